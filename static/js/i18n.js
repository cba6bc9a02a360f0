// UI strings for the page scripts, from the server's message catalogue (lesson/messages/*.json).
// The page names the catalogue's script part in <html data-messages> (a hashed, immutable JSON asset,
// preloaded by the page's head and cached for good); every module that imports this one waits for it.
// A group only a module fetched later uses (quiz, stepper, ...: LATER_GROUPS in lesson/web/strings.py)
// is a document of its own beside it, which that module awaits first: `await need("quiz")`.
// Without the attribute, or when a fetch fails, a key shows itself, so a test can find it.
const base = document.documentElement.dataset.messages;

async function load(url) {
  if (!url) return {};
  try {
    const resp = await fetch(url);
    return resp.ok ? await resp.json() : {};
  } catch {
    return {};
  }
}

const table = await load(base);
const groups = new Map(); // group -> its fetch, once

/** The messages of a group the first view's document leaves out, added to the table. */
export function need(group) {
  if (!groups.has(group)) groups.set(group, load(base && base.replace(/\.json$/, `-${group}.json`)).then((more) => void Object.assign(table, more)));
  return groups.get(group);
}

// t("moment", { n: 2, total: 5, title: "A dies" }) -> "Moment 2 of 5: A dies"
export function t(key, values = {}) {
  const text = table[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
