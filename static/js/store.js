// Page storage that never throws, as JSON. The one wrapper is embed.js's safeStorage: a cross-site
// iframe may refuse sessionStorage and localStorage, and then values live in memory for the life of
// the page and the page says, once, that progress will not survive a reload.
import { safeStorage } from "./embed.js";

function make(kind) {
  let area = null;
  const get = () => (area ??= safeStorage(kind)); // probed on first use
  return {
    get(key) {
      const text = get().getItem(key);
      if (text == null) return null;
      try {
        return JSON.parse(text);
      } catch {
        return null; // damaged: as if nothing were stored
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

// Where the page keeps a lesson's quiz answers (quiz.js writes them; app.js looks before loading quiz.js).
export const quizKey = (slug) => `churn-lab:quiz:${slug}`;
