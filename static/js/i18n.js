// UI strings for the page scripts, from the server's message catalogue (lesson/messages/*.json).
// The page names the catalogue's script part in <html data-messages> (a hashed, immutable JSON asset,
// preloaded by the page's head and cached for good); every module that imports this one waits for it.
// Without the attribute, or when the fetch fails, a key shows itself, so a test can find it.
async function load() {
  const url = document.documentElement.dataset.messages;
  if (!url) return {};
  try {
    const resp = await fetch(url);
    return resp.ok ? await resp.json() : {};
  } catch {
    return {};
  }
}

const table = await load();

// t("scenario.step", { n: 2, total: 5, title: "A dies" }) -> "Moment 2 of 5: A dies"
export function t(key, values = {}) {
  const text = table[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
