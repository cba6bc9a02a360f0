// Tiny DOM helpers: every piece of text goes in as a text node, never as HTML.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

// A live status line. `quiet` keeps the words for screen readers only, where the page already shows
// them (a heading, a result line), so sighted readers do not read the same thing twice; a status
// nobody else shows (loading, an error) stays in view.
export function status(el, text, quiet = false) {
  el.textContent = text;
  el.classList.toggle("visually-hidden", quiet);
}

// The learner asked the system for less motion: the page's scrolls are instant then.
export const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

// `fn` each time `el` comes within 400px of the screen (at once, where nothing can tell): what a part
// of the page fetches only as it nears the reader. Gives what stops the watch.
export function whenNear(el, fn) {
  if (!("IntersectionObserver" in window)) return fn(), () => {};
  const watch = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && fn(), { rootMargin: "400px 0px" });
  watch.observe(el);
  return () => watch.disconnect();
}

// A stylesheet of its own for a part of the page few first views need (the sequence diagrams, presenter
// mode), next to lesson.css under the same build prefix. Resolves once it applies, or failed: the part
// still works unstyled rather than not at all.
export function loadStyle(name) {
  const href = new URL(`../css/${name}`, import.meta.url).href;
  let link = [...document.querySelectorAll('link[rel="stylesheet"]')].find((l) => l.href === href);
  if (link?.dataset.loaded) return Promise.resolve();
  if (!link) {
    link = h("link", { rel: "stylesheet", href });
    document.head.append(link);
  }
  return new Promise((done) => {
    link.addEventListener("load", () => {
      link.dataset.loaded = "1";
      done();
    }, { once: true });
    link.addEventListener("error", () => done(), { once: true });
  });
}
