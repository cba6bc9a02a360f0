// Shareable links: a playground's start and presses in the URL's fragment (never sent to the server), as
// the one line a task's answer carries too (presses.js): #pg=<panel>:<era>:<variant>:<presses>.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { logLine, readLine } from "./presses.js";
import { linkedTo } from "./store.js";

export function encodeLink(panel, log) {
  // The lesson's own address (its public one when configured), not this page's: a link copied inside
  // a portal's frame or in presenter mode opens the ordinary lesson.
  const url = new URL(document.documentElement.dataset.lessonIri || window.location.href, window.location.href);
  url.hash = `pg=${logLine(panel, log)}`;
  return url.toString();
}

// Someone followed a link to this playground: open the disclosures it sits in (a closed <details>
// hides it), bring it into view and put the focus on its heading, so the link lands where it points.
function showLinked(panel) {
  const title = document.getElementById(`${panel}-title`);
  const section = title?.closest("section[data-panel-id]");
  if (!title || !section) return;
  // A title kept for screen readers only (the lesson's heading right above says the same): land there.
  const heading = (title.dataset.shownBy && document.getElementById(title.dataset.shownBy)) || title;
  for (let el = section.parentElement; el; el = el.parentElement) {
    if (el instanceof HTMLDetailsElement) el.open = true;
  }
  heading.tabIndex = -1;
  heading.scrollIntoView({ block: "start", behavior: "instant" });
  heading.focus({ preventScroll: true });
  // The playground fills in once the server answers, and the page above it may have grown by then:
  // bring it back into view unless the learner has moved on. The browser may also drop the focus while
  // the page finishes loading (it lands on nothing): unless the learner moved it, it goes back.
  const keep = () => {
    if (document.activeElement === document.body) heading.focus({ preventScroll: true });
    if (document.activeElement === heading) heading.scrollIntoView({ block: "start", behavior: "instant" });
  };
  section.addEventListener("playground:answer", keep, { once: true });
  if (document.readyState !== "complete") window.addEventListener("load", keep, { once: true });
}

// The link's line for this panel, taken off the address so a reload does not replay it again.
export function takeLink(panel) {
  if (!linkedTo(panel)) return null;
  let line = "";
  try {
    line = decodeURIComponent(window.location.hash.slice("#pg=".length));
  } catch {
    // a damaged link: said as one that cannot be read
  }
  try {
    history.replaceState(null, "", window.location.pathname + window.location.search + `#${panel}-title`);
  } catch {
    // An embedding page may refuse; the link then stays in the address.
  }
  showLinked(panel);
  return line;
}

// {variant, era, events} when the line is one this page can replay; otherwise null.
export function decodeLink(line) {
  const read = readLine(line); // null (no link) reads as no line either
  return read && { variant: read.variant, era: read.era, events: read.events };
}

// The box that shows a link, under the playground's Undo, Reset and Share buttons (`group`).
export function addLinkBox(group) {
  const label = h("label", { class: "share-link", hidden: "" }, t("playground.share_label"));
  const input = h("input", { type: "text", readonly: "", size: "40" });
  label.append(input);
  // Says whether the link is on the clipboard; copying is a convenience, the link is in the box either way.
  const note = h("p", { class: "share-note subtle", "aria-live": "polite" });
  group.after(label, note);
  return {
    async show(url) {
      input.value = url;
      label.hidden = false;
      input.focus();
      input.select();
      note.textContent = "";
      let copied = false;
      try {
        await navigator.clipboard.writeText(url);
        copied = true;
      } catch {
        // No clipboard here (plain http, a frame without the permission): the box is selected to copy.
      }
      if (!label.hidden && input.value === url) note.textContent = t(copied ? "playground.copied" : "playground.copy_yourself");
    },
    hide() {
      label.hidden = true;
      note.textContent = "";
    },
  };
}
