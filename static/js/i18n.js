// UI strings for the page scripts, from the server's message catalogue (lesson/messages/*.json).
// The page carries them in a data attribute on <html> (the CSP forbids inline scripts).
let table = null;

function messages() {
  if (table === null) {
    try {
      table = JSON.parse(document.documentElement.dataset.messages || "{}");
    } catch {
      table = {};
    }
  }
  return table;
}

// t("scenario.step", { n: 2, total: 5, title: "A dies" }) -> "Step 2 of 5: A dies"
export function t(key, values = {}) {
  const text = messages()[key];
  if (text === undefined) return key; // a missing key shows itself, so a test can find it
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
