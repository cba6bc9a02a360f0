// A link to a section (#id) lands on it before the panels above it are drawn: they grow as their code
// mounts (a playground's first view, a stepper's moment), long after the browser's own jump, and push
// the section down by a screen or more. Until the learner scrolls, touches or presses a key, goes Back
// or follows another link (or a few seconds pass), the page keeps the section where the link put it.
export function keepAnchor() {
  let id = "";
  try {
    id = decodeURIComponent(window.location.hash.slice(1));
  } catch {
    return; // not an address any section has
  }
  const target = id && document.getElementById(id);
  if (!target || !("ResizeObserver" in window)) return;
  const events = ["wheel", "touchstart", "keydown", "pointerdown"];
  // Only when the page changed size: the browser's own jump (a smooth scroll, with motion on) goes on
  // undisturbed until something above the section grows under it.
  let height = null;
  const keep = new ResizeObserver(([entry]) => {
    if (height !== null && entry.contentRect.height !== height) target.scrollIntoView({ block: "start", behavior: "instant" });
    height = entry.contentRect.height;
  });
  const stop = () => {
    keep.disconnect();
    for (const name of events) window.removeEventListener(name, stop, true);
    window.removeEventListener("popstate", stop);
  };
  for (const name of events) window.addEventListener(name, stop, { capture: true, passive: true });
  // The browser's Back comes as no event of the page's own: kept, the section would pull the page away
  // from where Back put it (a feedback link's question) at the next growth above.
  window.addEventListener("popstate", stop);
  keep.observe(document.body);
  setTimeout(stop, 4000);
}
