// Page storage that never throws: a cross-site iframe may refuse sessionStorage and localStorage,
// so every access is guarded and falls back to memory for the life of the page.
const memory = new Map();

function area(kind) {
  try {
    const s = kind === "local" ? window.localStorage : window.sessionStorage;
    const probe = "churn-lab:probe";
    s.setItem(probe, "1");
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

function make(kind) {
  let storage;
  const get = () => (storage === undefined ? (storage = area(kind)) : storage);
  return {
    get(key) {
      try {
        const s = get();
        const text = s ? s.getItem(key) : memory.get(`${kind}:${key}`);
        return text == null ? null : JSON.parse(text);
      } catch {
        return null;
      }
    },
    set(key, value) {
      const text = JSON.stringify(value);
      try {
        const s = get();
        if (s) s.setItem(key, text);
        else memory.set(`${kind}:${key}`, text);
      } catch {
        memory.set(`${kind}:${key}`, text);
      }
    },
    remove(key) {
      try {
        const s = get();
        if (s) s.removeItem(key);
      } catch {
        // nothing stored there
      }
      memory.delete(`${kind}:${key}`);
    },
  };
}

export const session = make("session");
export const local = make("local");
