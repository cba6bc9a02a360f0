// Presenter mode (?present=1): large type, the lesson shown a screen at a time (a screen starts at each
// h2), moved with the bar's buttons or the keys a clicker sends. Loaded only in presenter mode (app.js
// imports it then, and otherwise offers the link into it).
//
// - The clicker's keys (Page Down, Page Up, the arrows, Space) belong to the presenter wherever the focus
//   is: they are taken before any control sees them, so a focused button, radio, slider or summary is
//   never pressed or changed by them. A playground is pressed only by a click or Enter. The one exception
//   is a quick-check choice with the focus: its arrows and Space choose, as a radio's do (the keyboard's
//   only way to answer), and Page Down and Page Up still move on.
// - Those keys step through what the screen holds before moving on: a stepper's moments, or a
//   playground's first walk-through (started by the key) and its moments; back keys step back the same
//   way. The bar's Previous and Next move a whole screen.
// - On a window at least 48rem wide (a projector, a laptop) every screen fits without scrolling: a
//   section taller than the window is split between blocks (a panel, a quiz question and the prose
//   around them), and a screen still too tall (a playground) is scaled down to fit, again each time its
//   content grows. On a phone a tall screen scrolls instead, and is read to its end first.
// - "Smaller text" and "Larger text" set the type's size, remembered in localStorage.
import { h, loadStyle } from "./dom.js";
import { need, t } from "./i18n.js";
import { activeScenario } from "./scenario.js";
import { local } from "./store.js";

await need("present"); // this module's own messages (i18n.js)

const FORWARD = new Set(["ArrowRight", "ArrowDown", "PageDown", " "]);
const BACKWARD = new Set(["ArrowLeft", "ArrowUp", "PageUp"]);
// On a phone, a screen taller than the window is read to its end first: these keys scroll it while
// there is more of it below (or above), and move to the next (or previous) screen only from its end.
const SCROLLS_FIRST = new Set(["ArrowDown", "PageDown", " ", "ArrowUp", "PageUp"]);
// Where the keys keep their own meaning: text being typed, and an open dialog.
const TYPING = 'textarea, [contenteditable]:not([contenteditable="false"]), dialog[open]';
const TEXT_INPUT = /^(text|search|email|url|tel|password|number)$/;
const WIDE = window.matchMedia("(min-width: 48rem)");
const SIZES = [0.6, 0.7, 0.85, 1, 1.15, 1.3]; // times the presenter's usual type size (a class each in presenter.css)
const SIZE_DEFAULT = 3;
const SIZE_KEY = "presenter.text-size";
// A panel takes most of a screen whatever its height now: it grows as it mounts and as it is played,
// and is scaled to fit then. Only a short introduction or ending shares its screen.
const PANEL_SHARE = 0.85;

function leaveUrl() {
  const url = new URL(window.location.href);
  url.searchParams.delete("present");
  return url.pathname + url.search + url.hash;
}

// Whether a key is the clicker's: taken from whatever has the focus, unless text is being typed there.
function clickerKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return false;
  if (!FORWARD.has(event.key) && !BACKWARD.has(event.key)) return false;
  const target = event.target;
  if (!(target instanceof Element)) return true;
  if (target.closest(TYPING)) return false;
  if (event.key !== "PageDown" && event.key !== "PageUp" && target.matches("form.question input[type=radio]")) return false;
  return !(target.matches("input") && TEXT_INPUT.test(target.type) && !target.readOnly);
}

// The blocks a screen is made of: the article's children, a quiz's questions one by one.
function blocksOf(article) {
  const blocks = [];
  for (const child of article.children) {
    if (child.matches("nav.toc")) child.classList.add("present-off");
    else if (child.matches("section.quiz")) blocks.push(...[...child.children].map((el) => ({ el, holder: child })));
    else blocks.push({ el: child, holder: null });
  }
  return blocks;
}

export async function present(article) {
  await loadStyle("presenter.css"); // before the first screen is measured
  const root = document.documentElement;
  document.body.classList.add("presenting");
  root.classList.add("presenting");
  const blocks = blocksOf(article);
  const holders = [...new Set(blocks.map((b) => b.holder).filter(Boolean))];
  let screens = [blocks]; // each a list of blocks; set by pack()
  let current = 0;

  const prev = h("button", { type: "button" }, t("present.prev"));
  const next = h("button", { type: "button" }, t("present.next"));
  const position = h("p", { class: "present-position", role: "status", "aria-live": "polite" });
  const smaller = h("button", { type: "button", class: "present-size" }, t("present.smaller"));
  const larger = h("button", { type: "button", class: "present-size" }, t("present.larger"));
  const leave = h("a", { href: leaveUrl(), class: "present-leave" }, t("present.leave"));
  const bar = h(
    "nav",
    { class: "presenter-bar", "aria-label": t("present.bar") },
    prev,
    position,
    next,
    h("span", { class: "present-sizes", role: "group", "aria-label": t("present.size") }, smaller, larger),
    h("p", { class: "present-keys" }, t("present.keys")),
    leave,
  );
  document.body.append(bar);

  // ---- Text size ----
  let size = Number.isInteger(local.get(SIZE_KEY)) ? Math.max(0, Math.min(SIZES.length - 1, local.get(SIZE_KEY))) : SIZE_DEFAULT;
  function setSize(n) {
    size = n;
    SIZES.forEach((_, i) => root.classList.toggle(`present-size-${i}`, i === size)); // presenter.css
    smaller.disabled = size === 0;
    larger.disabled = size === SIZES.length - 1;
  }
  setSize(size);
  for (const [button, by] of [[smaller, -1], [larger, 1]]) {
    button.addEventListener("click", () => {
      setSize(Math.max(0, Math.min(SIZES.length - 1, size + by)));
      local.set(SIZE_KEY, size);
      if (button.disabled) (by < 0 ? larger : smaller).focus(); // a disabled button would drop the focus
      repack();
    });
  }

  // ---- Screens ----
  const fits = () => WIDE.matches;
  const room = () => window.innerHeight - bar.offsetHeight;

  // Split at each h2; on a wide window, split a section further between its blocks so each screen fits
  // the window, measured with every block on show at full size.
  function pack() {
    const limit = fits() ? (room() - 96) : Infinity; // less the title line and the page's margins
    const heightOf = (el) => {
      if (!el.getClientRects().length) return 0;
      const style = getComputedStyle(el);
      const height = el.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
      return el.matches(".panel") ? Math.max(height, limit * PANEL_SHARE) : height;
    };
    const heights = blocks.map((b) => heightOf(b.el));
    const packed = [[]];
    let used = 0;
    blocks.forEach((block, i) => {
      const here = packed[packed.length - 1];
      const heading = here.length === 1 && here[0].el.matches("h2"); // a heading stays with what follows it
      const starts = block.el.tagName === "H2" || (here.length && !heading && used + heights[i] > limit);
      if (starts && here.length) {
        packed.push([]);
        used = 0;
      }
      packed[packed.length - 1].push(block);
      used += heights[i];
    });
    return packed;
  }

  // Pack again (a new size, a resized window), staying on the screen that holds the current first block.
  // Measured at full size with every block on show, once the browser has laid that out (hidden meanwhile).
  let packing = 0;
  async function repack() {
    const run = ++packing;
    const first = screens[current]?.[0];
    root.style.setProperty("--present-bar", `${bar.offsetHeight}px`); // the page ends above the bar
    article.classList.add("present-fitting");
    for (const el of blocks.map((b) => b.el).concat(holders)) el.classList.remove("present-off", "present-title-only");
    zoomTo(1);
    await laidOut();
    if (run !== packing) return;
    screens = pack();
    const n = Math.max(0, screens.findIndex((items) => items.includes(first)));
    position.style.minWidth = "";
    // The position keeps the width of its longest text ("Screen 12 of 12"), so the bar never rewraps
    // and Next stays under the presenter's pointer from the first screen to the last.
    position.textContent = t("present.position", { n: screens.length, total: screens.length });
    position.style.minWidth = `${Math.ceil(position.getBoundingClientRect().width)}px`;
    show(n, false);
  }

  const onScreen = (el) => screens[current].some((b) => b.el === el || b.el.contains(el));

  function show(n, focus) {
    current = Math.max(0, Math.min(screens.length - 1, n));
    screens.forEach((items, i) => {
      for (const { el } of items) {
        // The lesson's title stays on every screen, small: the page keeps its h1.
        const title = el.matches("header") && i !== current;
        el.classList.toggle("present-title-only", title);
        el.classList.toggle("present-off", i !== current && !title);
      }
    });
    for (const holder of holders) holder.classList.toggle("present-off", !screens[current].some((b) => b.holder === holder));
    position.textContent = t("present.position", { n: current + 1, total: screens.length });
    prev.disabled = current === 0;
    next.disabled = current === screens.length - 1;
    started = false;
    aim = null;
    fit(true);
    if (focus) {
      // The screen's heading (else its first block) takes the focus, so a screen reader reads where the
      // class is now.
      const first = screens[current][0].el;
      const heading = first.matches("header") ? first.querySelector("h1") || first : first.matches("h1, h2") ? first : first.querySelector("h2, h3, legend") || first;
      const target = heading.matches("legend") ? heading.closest("form, fieldset") || heading : heading;
      target.setAttribute("tabindex", "-1");
      target.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    }
  }

  // Scale the screen's type down until the page is no taller than the window (wide windows only): the
  // largest scale that fits, found by halving (smaller type fits more on a line, so height is not
  // proportional). Each try is measured once the browser has laid it out, frames later (a size read at
  // once can still be the one before). The screen is hidden meanwhile, so the class never sees a try.
  // A screen that still fits at its scale keeps it when its content changes, unless it would leave
  // much of the window empty.
  // The scales presenter.css has a class for (present-fit-40 … present-fit-95): a class, since a class
  // change reaches every rule that depends on it at the next measure.
  let scale = 1; // the scale on show (or being tried)
  const LEVELS = [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1];
  const zoomTo = (zoom) => {
    scale = zoom;
    for (const level of LEVELS) root.classList.toggle(`present-fit-${Math.round(level * 100)}`, level === zoom && zoom < 1);
  };
  let fitRun = 0;
  let owed = false; // a full search was asked for (a new screen, size or window) and has not finished
  // Where the screen's last line ended when the last search chose its scale. A screen may fit only well
  // short of the window (one level larger overflows: a table turning into cards): while its last line
  // stays there, nothing changed but the scale, and a search would only find the same scale again.
  let settled = null;
  // Two frames: one frame after a change of the root's size, a container query in rem (the server
  // table's cards) can still be laid out at the size before, and a scale would be judged by the old one.
  const laidOut = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve))));
  const overflow = () => document.scrollingElement.scrollHeight - window.innerHeight;
  async function fit(fresh = false) {
    const run = ++fitRun;
    const current = () => run === fitRun;
    owed ||= fresh;
    try {
      if (!fits()) {
        zoomTo(1);
        owed = false;
        return;
      }
      await laidOut();
      if (!current()) return;
      const spare = -overflow();
      const lastLine = article.closest("main")?.getBoundingClientRect().bottom ?? 0;
      if (!owed && spare >= 0 && (scale === 1 || window.innerHeight - lastLine < window.innerHeight * 0.15 || Math.round(lastLine) === settled)) return;
      if (!owed && spare < 0 && scale === LEVELS[0]) return; // as small as it goes already: no search again
      article.classList.add("present-fitting");
      const tryAt = async (zoom) => {
        zoomTo(zoom);
        await laidOut();
        return current();
      };
      if (!(await tryAt(1))) return;
      // The largest level that fits, by halving the list (the smallest is kept when none does).
      let [lo, hi] = [0, LEVELS.length - 1];
      if (overflow() <= 0) lo = hi;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (!(await tryAt(LEVELS[mid]))) return;
        if (overflow() <= 0) lo = mid;
        else hi = mid;
      }
      lo = LEVELS[lo];
      if (scale !== lo && !(await tryAt(lo))) return; // laid out at the scale chosen before measuring it
      owed = false;
      settled = Math.round(article.closest("main")?.getBoundingClientRect().bottom ?? 0);
    } finally {
      // Whichever run is the last one shows the screen again, however it ended.
      if (current()) {
        article.classList.remove("present-fitting");
        showNarration();
      }
    }
  }
  // While a walk-through plays on a wide screen, its moment's words stay in view at the top of the stage,
  // which scrolls on its own: a control focused lower down (one the presenter clicked before) would
  // otherwise keep the stage scrolled past them. Run after every fit, so after every change it follows.
  function showNarration() {
    const active = activeScenario();
    if (!fits() || !active || !onScreen(active.section)) return;
    const words = active.section.querySelector(".scenario-narration");
    const stage = words?.closest(".stage");
    if (!stage) return;
    const w = words.getBoundingClientRect();
    const s = stage.getBoundingClientRect();
    if (w.top < s.top || w.bottom > s.bottom) stage.scrollTop += w.top - s.top - 8;
  }
  // A playground mounting or played, a stepper's moment, a quiz's feedback, a box opened: fit again.
  // Also whenever the page's height changes for any other reason (a layout settling after a screen was
  // measured): a fit that finds the screen fitting leaves it as it is, so its own changes end there.
  // At most one fit every 80 ms, and none while a search is under way (it measures the latest anyway):
  // a playground redrawing many times must not keep putting the fit off.
  let changed = 0;
  const later = () => {
    changed ||= setTimeout(() => {
      changed = 0;
      if (article.classList.contains("present-fitting")) later();
      else fit();
    }, 80);
  };
  new MutationObserver(later).observe(article, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["open", "hidden"] });
  new ResizeObserver(later).observe(document.body);
  // And a check each second, in case a change reached no observer: one read of the page's height.
  setInterval(() => {
    if (fits() && !changed && overflow() > 0 && scale > LEVELS[0]) later();
  }, 1000);
  let resizing = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(repack, 150);
  });

  // ---- Next and Previous ----
  // On a phone, scroll the screen on by most of a window (a line or so for an arrow) if there is more
  // of it that way. Measured from where a smooth scroll still under way will end, so a key pressed
  // during it counts.
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

  // A walk-through started by Next on this visit to the screen: Next plays it rather than starting it again.
  let started = false;

  // What Next and Previous do within the screen before moving on: true when they did something.
  function within(forward) {
    const active = activeScenario();
    const scenario = active && onScreen(active.section) ? active : null;
    if (scenario) {
      if (forward && !scenario.atEnd()) return scenario.next(), true;
      if (!forward && !scenario.atStart()) return scenario.prev(), true;
    }
    for (const stepper of article.querySelectorAll('[data-panel="stepper"]')) {
      if (!onScreen(stepper) || !stepper.querySelector(".moment-card")) continue; // not here, or its moments not yet in
      const button = stepper.querySelector(`[data-action="${forward ? "next" : "prev"}"]`);
      // At an end the stepper's button keeps the focus and only says it can do nothing (aria-disabled).
      if (button && !button.disabled && button.getAttribute("aria-disabled") !== "true") return button.click(), true;
    }
    if (forward && !started && !scenario) {
      // The screen's first walk-through (its playground's own control), as the presenter's next step.
      const offer = [...article.querySelectorAll(".scenario-offer button")].find((b) => onScreen(b) && !b.disabled);
      if (offer) {
        started = true;
        offer.click();
        return true;
      }
    }
    return false;
  }

  function step(forward, key = null) {
    if (within(forward)) return;
    if (key && SCROLLS_FIRST.has(key) && !fits() && scrolled(forward, key)) return;
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
      const n = target ? screens.findIndex((items) => items.some((b) => b.el.contains(target))) : -1;
      if (n >= 0 && n !== current) show(n, false);
    },
    true,
  );

  // The bar's buttons move a whole screen: the presenter at the computer chooses where to be.
  prev.addEventListener("click", () => show(current - 1, true));
  next.addEventListener("click", () => show(current + 1, true));
  // Taken in the capture phase, before the focused control (a button Space would press, a radio group
  // or slider the arrows would change, the stepper's own arrow keys) sees the key.
  window.addEventListener(
    "keydown",
    (event) => {
      if (!clickerKey(event)) return;
      event.preventDefault();
      event.stopPropagation();
      // Shift+Space goes back, as it scrolls back on an ordinary page.
      step(FORWARD.has(event.key) && !(event.key === " " && event.shiftKey), event.key);
    },
    true,
  );
  // A button is pressed when Space is released: the release is the presenter's too.
  window.addEventListener(
    "keyup",
    (event) => {
      if (event.key === " " && clickerKey(event)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true,
  );
  repack();
}
