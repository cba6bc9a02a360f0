// Presenter mode (?present=1): large type, one section of the lesson per screen (a screen starts at
// each h2), Next and Previous with buttons or the keyboard (arrow keys, Page Up/Down, Space; a screen
// taller than the window is scrolled to its end before Page Down, Space or Down moves on). While a
// scenario is being replayed, Next and Previous step through it instead, so the class sees one step
// and its narration at a time. The playgrounds stay live. Loaded only in presenter mode (app.js
// imports it then, and otherwise offers the link into it).
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { activeScenario } from "./scenario.js";

const FORWARD = new Set(["ArrowRight", "ArrowDown", "PageDown", " "]);
const BACKWARD = new Set(["ArrowLeft", "ArrowUp", "PageUp"]);
// A screen taller than the window (a playground's) is read to its end first: these keys scroll it while
// there is more of it below (or above), and move to the next (or previous) screen only from its end.
// The left and right arrows and the bar's buttons always move a whole screen.
const SCROLLS_FIRST = new Set(["ArrowDown", "PageDown", " ", "ArrowUp", "PageUp"]);

function leaveUrl() {
  const url = new URL(window.location.href);
  url.searchParams.delete("present");
  return url.pathname + url.search + url.hash;
}

export function present(article) {
  document.body.classList.add("presenting");
  document.documentElement.classList.add("presenting"); // the root's type size grows (lesson.css)
  // Split the lesson into screens: its header, then one per h2 with whatever follows it.
  const screens = [[]];
  for (const child of article.children) {
    if (child.matches("nav.toc")) {
      child.classList.add("present-off");
      continue;
    }
    if (child.tagName === "H2" && screens[screens.length - 1].length) screens.push([]);
    screens[screens.length - 1].push(child);
  }
  let current = 0;

  const prev = h("button", { type: "button", "aria-keyshortcuts": "ArrowLeft PageUp" }, t("present.prev"));
  const next = h("button", { type: "button", "aria-keyshortcuts": "ArrowRight PageDown Space" }, t("present.next"));
  const position = h("p", { class: "present-position", role: "status", "aria-live": "polite" });
  const leave = h("a", { href: leaveUrl(), class: "present-leave" }, t("present.leave"));
  const bar = h(
    "nav",
    { class: "presenter-bar", "aria-label": t("present.bar") },
    prev,
    position,
    next,
    h("p", { class: "present-keys" }, t("present.keys")),
    leave,
  );
  document.body.append(bar);
  // The position keeps the width of its longest text ("Screen 12 of 12"), so the bar never rewraps
  // and Next stays under the presenter's pointer from the first screen to the last.
  position.textContent = t("present.position", { n: screens.length, total: screens.length });
  position.style.minWidth = `${Math.ceil(position.getBoundingClientRect().width)}px`;

  function show(n, focus) {
    current = Math.max(0, Math.min(screens.length - 1, n));
    screens.forEach((items, i) => {
      for (const el of items) {
        // The lesson's title stays on every screen, small: the page keeps its h1.
        const title = el.matches("header") && i !== current;
        el.classList.toggle("present-title-only", title);
        el.classList.toggle("present-off", i !== current && !title);
      }
    });
    position.textContent = t("present.position", { n: current + 1, total: screens.length });
    prev.disabled = current === 0;
    next.disabled = current === screens.length - 1;
    if (focus) {
      // The screen's heading takes the focus, so a screen reader reads where the class is now.
      const heading = screens[current].find((el) => el.matches("h1, h2, header")) || screens[current][0];
      const target = heading.matches("header") ? heading.querySelector("h1") || heading : heading;
      target.setAttribute("tabindex", "-1");
      target.focus();
      aim = null;
      window.scrollTo(0, 0);
    }
  }

  // Scroll the screen on by most of a window (a line or so for an arrow) if there is more of it that way.
  // Measured from where a smooth scroll still under way will end, so a key pressed during it counts.
  let aim = null;
  const forget = () => {
    aim = null;
  };
  window.addEventListener("scrollend", forget);
  for (const type of ["wheel", "touchstart", "mousedown"]) window.addEventListener(type, forget, { passive: true });
  function scrolled(forward, key) {
    const page = document.scrollingElement;
    const from = aim ?? page.scrollTop;
    const end = page.scrollHeight - window.innerHeight;
    if (forward ? end - from < 2 : from < 2) return false;
    const by = key.startsWith("Arrow") ? 80 : Math.max(80, window.innerHeight - bar.offsetHeight - 48); // a little overlap
    aim = Math.max(0, Math.min(end, from + (forward ? by : -by)));
    window.scrollTo({ top: aim });
    return true;
  }

  function step(forward, key = null) {
    const scenario = activeScenario();
    if (scenario && !scenario.section.classList.contains("present-off") && screens[current].some((el) => el.contains(scenario.section))) {
      if (forward && !scenario.atEnd()) return scenario.next();
      if (!forward && !scenario.atStart()) return scenario.prev();
    }
    if (key && SCROLLS_FIRST.has(key) && scrolled(forward, key)) return;
    if (forward && current < screens.length - 1) show(current + 1, true);
    if (!forward && current > 0) show(current - 1, true);
  }

  // A link to a part of the lesson on another screen (the quick check's "Do it in the playground", its
  // way back) shows that screen first; the link's own handler, or the browser, then scrolls to the part.
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target.closest?.('a[href^="#"]');
      const target = link && document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      const n = target ? screens.findIndex((items) => items.some((el) => el.contains(target))) : -1;
      if (n >= 0 && n !== current) show(n, false);
    },
    true,
  );

  prev.addEventListener("click", () => step(false));
  next.addEventListener("click", () => step(true));
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target.closest("input, textarea, select, [contenteditable], dialog[open]")) return;
    // Space and arrows keep their own meaning on controls that use them.
    if (event.key === " " && target.closest("button, a, summary")) return;
    // A table box that scrolls sideways (it has the focus only then) scrolls with the arrows.
    if (event.key.startsWith("Arrow") && target.closest(".table-wrap")) return;
    if (FORWARD.has(event.key)) {
      event.preventDefault();
      step(true, event.key);
    } else if (BACKWARD.has(event.key)) {
      event.preventDefault();
      step(false, event.key);
    }
  });
  show(0, false);
}
