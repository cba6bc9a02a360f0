// Page storage that never throws, as JSON. A cross-site iframe may refuse sessionStorage and
// localStorage (so may a browser that blocks site data): then values live in memory for the life of
// the page and the page says, once, that progress will not survive a reload. No imports: embed.js,
// which re-exports safeStorage for a portal's own use, is served with this file alone.

// The notice's text comes from the page: <p data-storage-notice="..."> (the lesson page writes it from
// its message catalogue, in the page's language). This English text is only for a page that leaves
// the attribute empty (embed.js used without the lesson's other scripts).
export const STORAGE_NOTICE =
  "This page cannot use your browser's storage here, so your progress is kept only until you reload or leave.";

const memory = { session: new Map(), local: new Map() };
// the error name, once storage has been refused
let storageRefused = null;

function reportStorage(err) {
  if (storageRefused !== null) return;
  storageRefused = (err && err.name) || "Error";
  const show = () => {
    for (const el of document.querySelectorAll("[data-storage-notice]")) {
      el.textContent = el.dataset.storageNotice || STORAGE_NOTICE;
      el.hidden = false;
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show, { once: true });
  else show();
  window.dispatchEvent(new CustomEvent("lesson:storage-unavailable", { detail: { reason: storageRefused } }));
}

// A portal that hands progress back (its 'resume', see embed.js) keeps it: the notice that nothing
// outlives a reload then says what does.
window.addEventListener("lesson:resume", () => {
  for (const el of document.querySelectorAll("[data-storage-portal]")) el.textContent = el.dataset.storagePortal;
});

/** Whether storage was refused on this page (the error's name), or null. */
export function storageUnavailable() {
  return storageRefused;
}

/** A Storage-like object ("session" or "local") that falls back to memory instead of throwing. */
export function safeStorage(kind = "session") {
  const mem = memory[kind === "local" ? "local" : "session"];
  let store = null;
  try {
    store = kind === "local" ? window.localStorage : window.sessionStorage;
    const probe = "__lesson_probe__";
    store.setItem(probe, "1");
    store.removeItem(probe);
  } catch (err) {
    store = null;
    reportStorage(err);
  }
  const guard = (fn, fallback) => {
    if (store) {
      try {
        return fn(store);
      } catch (err) {
        // refused mid-way (quota, policy change): memory from now on
        store = null;
        reportStorage(err);
      }
    }
    return fallback();
  };
  return {
    get persistent() {
      return store !== null;
    },
    getItem: (key) => guard((s) => s.getItem(key), () => (mem.has(key) ? mem.get(key) : null)),
    setItem: (key, value) => guard((s) => s.setItem(key, String(value)), () => void mem.set(key, String(value))),
    removeItem: (key) => guard((s) => s.removeItem(key), () => void mem.delete(key)),
  };
}

function make(kind) {
  let area = null;
  // probed on first use
  const get = () => (area ??= safeStorage(kind));
  return {
    get(key) {
      const text = get().getItem(key);
      if (text == null) return null;
      try {
        return JSON.parse(text);
      } catch {
        // damaged: as if nothing were stored
        return null;
      }
    },
    set(key, value) {
      get().setItem(key, JSON.stringify(value));
    },
    remove(key) {
      get().removeItem(key);
    },
  };
}

export const session = make("session");
export const local = make("local");

// An id read back from storage, a progress file or a portal, or put in a statement: a short IRI-safe word.
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,79}$/;

// Where the page keeps what it holds, each written by one module and cleared by Start over (startover.js):
// a lesson's quiz answers (quiz.js; app.js looks before loading it), its progress (progress.js), a
// playground's log (playground.js; quiz.js reads it for a task) and the presses a walk-through set aside.
export const quizKey = (slug) => `churn-lab:quiz:${slug}`;
export const progressKey = (slug) => `churn-lab:progress:${slug}`;
export const playgroundKey = (panel) => `churn-lab:playground:${panel}`;
export const asideKey = (panel) => `churn-lab:aside:${panel}`;
// Whether the address carries a share link to this playground (share.js): #pg=<panel>:… (or an older
// link's #pg=<panel>~…, which the page then says it cannot read).
export const linkedTo = (panel) => /^#pg=([a-z0-9-]+)[:~]/.exec(window.location.hash)?.[1] === panel;
