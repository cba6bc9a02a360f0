// Shareable links: a playground's start and presses in the URL's fragment (never sent to the
// server), compact and versioned: #pg=<panel>~<base64url of {"v":1,"s":variant,"e":era,"x":[...]}>.
// A press is its button id; an era switch is "@" and the era (presses.js).
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { eventsOf, isId, pressItems } from "./presses.js";

const VERSION = 1;

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

export function encodeLink(panel, log) {
  const x = pressItems(log.events);
  const data = toBase64Url(JSON.stringify({ v: VERSION, s: log.variant, e: log.era, x }));
  // The lesson's own address (its public one when configured), not this page's: a link copied inside
  // a portal's frame or in presenter mode opens the ordinary lesson.
  const url = new URL(document.documentElement.dataset.lessonIri || window.location.href, window.location.href);
  url.hash = `pg=${panel}~${data}`;
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

// The link's data for this panel, taken off the address so a reload does not replay it again.
export function takeLink(panel) {
  const hash = window.location.hash;
  const prefix = `#pg=${panel}~`;
  if (!hash.startsWith(prefix)) return null;
  try {
    history.replaceState(null, "", window.location.pathname + window.location.search + `#${panel}-title`);
  } catch {
    // An embedding page may refuse; the link then stays in the address.
  }
  showLinked(panel);
  return hash.slice(prefix.length);
}

// {variant, era, events} when the data is a link this version understands; otherwise null.
export function decodeLink(data) {
  let raw;
  try {
    raw = JSON.parse(fromBase64Url(data));
  } catch {
    return null;
  }
  if (!raw || raw.v !== VERSION || !Array.isArray(raw.x) || raw.x.length > 500) return null;
  if (raw.e !== "legacy" && raw.e !== "modern") return null;
  if (raw.s !== null && !isId(raw.s)) return null;
  const events = eventsOf(raw.x);
  return events && { variant: raw.s, era: raw.e, events };
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
