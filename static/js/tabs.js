// A playground's accounts of a press (the log, the two eras, the wire) as tabs: one on view at a time.
// The tabs pattern of the ARIA practices: the arrow keys, Home and End move between the tabs and show the
// one they reach; Tab leaves the tab list for the panel. A link to something inside a hidden panel (the
// restart cost's "see the messages") shows that panel first.

export function mountTabs(root) {
  const list = root.querySelector('[role="tablist"]');
  if (!list) return { select() {} };
  const tabs = [...list.querySelectorAll('[role="tab"]')];
  const panelOf = (tab) => document.getElementById(tab.getAttribute("aria-controls"));

  function select(tab, focus = false) {
    const y = tab.getBoundingClientRect().top;
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      panelOf(t).hidden = !on;
    }
    // The wire's panel takes the full width, below: the page follows, so the tab stays under the eye.
    window.scrollBy(0, tab.getBoundingClientRect().top - y);
    if (focus) tab.focus();
    root.dispatchEvent(new CustomEvent("tabs:select", { detail: tab.dataset.tab }));
  }

  list.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) select(tab);
  });
  list.addEventListener("keydown", (event) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    select(tabs[(to + tabs.length) % tabs.length], true);
  });

  // A link to an element in a hidden panel: show the panel, then let the link do the rest.
  const section = root.closest("section.playground") || document;
  section.addEventListener("click", (event) => {
    const link = event.target.closest('a[href^="#"]');
    const target = link && document.getElementById(decodeURIComponent(link.hash.slice(1)));
    const panel = target?.closest('[role="tabpanel"]');
    if (!panel || !root.contains(panel) || !panel.hidden) return;
    select(tabs.find((t) => panelOf(t) === panel));
  });

  return {
    select: (name) => {
      const tab = tabs.find((t) => t.dataset.tab === name);
      if (tab) select(tab);
    },
    shown: () => tabs.find((t) => t.getAttribute("aria-selected") === "true")?.dataset.tab,
  };
}
