// The theme switch: auto (follow the system), light or dark, remembered across pages and visits.
// Loaded as a classic script in <head>, so the chosen theme applies before the first paint.
// localStorage can be refused (a cross-site iframe, strict privacy settings): then the choice lives
// in memory for this page only, and nothing breaks.
(() => {
  const KEY = "churn-lab:theme";
  const CHOICES = ["auto", "light", "dark"];
  let remembered = "auto";

  function read() {
    try {
      const value = window.localStorage.getItem(KEY);
      if (CHOICES.includes(value)) return value;
    } catch {
      // Storage refused: fall back to memory.
    }
    return remembered;
  }

  function write(value) {
    remembered = value;
    try {
      window.localStorage.setItem(KEY, value);
    } catch {
      // Storage refused: the choice holds until the page is left.
    }
  }

  function apply(value) {
    // "auto" sets no attribute: the stylesheet then follows prefers-color-scheme.
    if (value === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = value;
  }

  apply(read());

  function mount() {
    const group = document.querySelector('[data-role="theme"]');
    if (!group) return;
    const current = read();
    for (const input of group.querySelectorAll('input[name="theme"]')) input.checked = input.value === current;
    group.addEventListener("change", (event) => {
      const value = event.target.value;
      if (!CHOICES.includes(value)) return;
      write(value);
      apply(value);
    });
    // Without this script the switch could do nothing, so it stays hidden until now.
    group.hidden = false;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
