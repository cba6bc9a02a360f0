// A playground panel. The page holds the playground: its start and its presses (the log), kept
// in sessionStorage. The server only caches the run; when it has lost it (a restart, another
// worker) it answers need_log and the page hands the log back once. Answers carry the newest
// log entry; the page keeps the history.
import { diffViews, stepName, summarize, toolKey } from "./changes.js";
import { fill, h, loadStyle, reducedMotion, whenNear } from "./dom.js";
import { comparison, costStrip, counterLine, handleState, logEntry, logList, markServers, plural, promptList, serverTable, stepWire, wireList } from "./render.js";
import { t } from "./i18n.js";
import { makeTimeline } from "./timeline.js";
import { mountTabs } from "./tabs.js";
import { asideKey, linkedTo, playgroundKey, session } from "./store.js";

const LINK_BROKEN = () => t("playground.link_broken");

const MARKED = "data-mark";

// A module fetched when first needed. A failed fetch is asked again at the next need, under a new
// address, since browsers remember a module that failed.
function lazy(name) {
  let code = null;
  let tries = 0;
  return () =>
    (code ??= import(tries++ ? `./${name}?retry=${tries}` : `./${name}`).catch((err) => {
      code = null;
      throw err;
    }));
}
// shared links: a page opened from one, or the first "Share link"
const shareCode = lazy("share.js");
const diagramCode = lazy("diagram.js");
// the walk-throughs' replay, at the first "Walk me through it"
const scenarioCode = lazy("scenario.js");


export function mountPlayground(section, transport) {
  const panel = section.dataset.panelId;
  const region = (name) => section.querySelector(`[data-region="${name}"]`);
  // The log, the two eras and the wire as tabs, one on view (when the playground shows two or more).
  const accounts = section.querySelector('[data-role="accounts"]');
  if (accounts) mountTabs(accounts);
  // The wire's diagrams, when their tab is not on view, are drawn when it is chosen, not at every press:
  // they are the costliest part of a view to build.
  const offView = (el) => Boolean(el?.closest('[role="tabpanel"]')?.hidden);
  // region name -> draws it with the newest view, once its tab is on view
  const waiting = new Map();
  const drawOnView = (name, drawIt) => {
    if (offView(region(name))) return void waiting.set(name, drawIt);
    waiting.delete(name);
    drawIt();
  };
  accounts?.addEventListener("tabs:select", () => {
    for (const [name, drawIt] of waiting) if (!offView(region(name))) drawOnView(name, drawIt);
  });

  // The wire as a list waits in a disclosure: a press draws it only while that is open, and opening
  // it draws the view on show. Most presses are read from the diagram, and a list of every frame's
  // JSON is the costliest part of a view to build.
  const wireBox = region("wire");
  const wireDetails = wireBox?.closest("details") ?? null;
  // the view whose wire the list should show
  let wireWanted = null;
  // the view whose wire it shows
  let wireDrawn = null;
  function drawWanted() {
    if (!wireBox || !wireWanted || wireDrawn === wireWanted) return;
    fill(wireBox, wireList(stepWire(wireWanted)));
    wireDrawn = wireWanted;
  }
  // The sequence diagrams' code is fetched once the playground is touched or its wire comes near the
  // screen, not with the first view. Once here, a view's diagram is drawn with the rest of it, before
  // the page scrolls to the changes. Until then the box says nothing has crossed yet (before the first
  // press) or that the diagram is coming. A failed fetch is tried again at the next view.
  let diagrams = null;
  let loading = null;
  const loadDiagrams = () =>
    (loading ??= Promise.all([diagramCode(), loadStyle("diagram.css")]).then(
      ([m]) => (diagrams = m),
      () => {
        loading = null;
        return null;
      },
    ));
  function drawDiagrams(v) {
    const box = region("diagram");
    if (!box) return;
    if (diagrams) return fill(box, diagrams.eraDiagrams(v));
    fill(box, h("p", { class: "placeholder" }, t(v.comparison ? "wire.diagram_loading" : "wire.none")));
    if (!v.comparison) return;
    loadDiagrams().then((m) => {
      if (shown === v) fill(box, m ? m.eraDiagrams(v) : h("p", { class: "placeholder" }, t("wire.diagram_failed")));
    });
  }
  if (region("diagram")) {
    section.addEventListener("pointerdown", loadDiagrams, { once: true });
    section.addEventListener("focusin", loadDiagrams, { once: true });
    // Each pass asks again: once the code is here that costs nothing, and a failed fetch is tried again.
    whenNear(region("diagram"), loadDiagrams);
  }
  function drawWire(v) {
    wireWanted = v;
    if (!wireDetails || wireDetails.open) drawWanted();
  }
  // Drawn as the summary is clicked, before the disclosure opens, so the list is there the moment it
  // shows; and on toggle, for any other way of opening it.
  wireDetails?.querySelector("summary")?.addEventListener("click", () => {
    if (!wireDetails.open) drawWanted();
  });
  wireDetails?.addEventListener("toggle", () => {
    if (wireDetails.open) drawWanted();
  });
  const announce = section.querySelector('[data-role="announce"]');
  // The status line says in full what a press changed, for screen readers (the marks say it to the eye);
  // in view, a short line names the press, and the open tab tells the rest: each press is told once.
  const said = h("p", { class: "said", "aria-hidden": "true" });
  announce.after(said);
  const say = (full, short) => {
    announce.textContent = full;
    said.textContent = short;
  };
  const undoBtn = section.querySelector('[data-action="undo"]');
  // The share control is made here: it only makes sense when the playground runs. Its link box comes
  // with share.js, at the first press of it.
  const shareBtn = h("button", { type: "button", "data-action": "share", disabled: "" }, t("playground.share"));
  section.querySelector(".buttons.history").append(shareBtn);
  let linkBox = null;
  const controls = [...section.querySelectorAll("button, input:not([readonly])")];
  const timeline = makeTimeline(section, viewStep);
  // Words the stylesheet adds after a later log step (::after), from the catalogue.
  section.style.setProperty("--t-later", JSON.stringify(t("log.later")));
  announce.before(timeline.el);
  // The log: { handle, variant, era, events: [["p", button] | ["e", era]], seq }.
  let log = session.get(playgroundKey(panel));
  // The log entries the page holds, one per step; the log region's list mirrors it item by item.
  let history = [];
  // The views this page has drawn, by step: the timeline shows them again without asking.
  let views = [];
  // the view on screen, to find what the next one changed
  let shown = null;
  // the control behind the change on its way, kept in view with what it changed
  let pressed = null;
  let reopen = null;
  // the log grew: scroll it to its end once the page has been laid out
  let logMoved = false;
  // scrolls the log and brings the marks into view, once the words above are in
  let reveal = null;
  // log entries are marked "later" (an earlier step is on view)
  let pastShown = false;
  // a prediction's result the answer being drawn revealed
  let freshReveal = null;
  // a question the answer being drawn asked (predict.js shows it after a press)
  let freshAsk = null;
  let linkNotice = null;
  // A notice for the next answer's status line (a scenario left by this press says so there).
  section.addEventListener("playground:notice", (event) => {
    linkNotice = linkNotice ? `${linkNotice} ${event.detail}` : event.detail;
  });
  // A shared link to this playground: its presses replace the log.
  function openLink({ takeLink, decodeLink }) {
    const decoded = decodeLink(takeLink(panel));
    if (decoded) log = { handle: null, ...decoded, seq: decoded.events.length };
    else {
      log = null;
      linkNotice = LINK_BROKEN();
    }
  }

  function save() {
    session.set(playgroundKey(panel), log);
  }

  // The log region holds one list item per step. An answer carries the entries from `log_from` on:
  // drop the items from there and append the new ones, so a press costs the same at step 5 and 300.
  function updateLog(from, entries) {
    const box = region("log");
    history = history.slice(0, from).concat(entries);
    if (!box) return;
    let list = box.querySelector("ol.log");
    if (!list || from === 0) {
      list = logList([]);
      fill(box, list);
    }
    while (list.children.length > from) list.lastElementChild.remove();
    // Not map(logEntry): map's index would be read as `numbered`.
    list.append(...entries.map((entry) => logEntry(entry)));
    logMoved = true;
  }

  // A storage choice (variant) by the words of its radio button.
  const variantName = (v) => section.querySelector(`[data-role="variant"] input[value="${CSS.escape(v)}"]`)?.closest("label").textContent.trim() || v;

  function render(answer, frame) {
    const v = answer.view;
    // What an undo takes back is the newest step before it: say so, or it reads as a new press.
    const undone = frame.type === "undo" ? history[history.length - 1] : null;
    updateLog(answer.log_from, v.log);
    // presses a reset sets aside
    const dropped = frame.type === "reset" ? log.events.length : 0;
    const events = frame.type === "open" ? (log && log.events) || [] : log.events.slice();
    if (frame.type === "press") events.push(["p", frame.button]);
    else if (frame.type === "era") events.push(["e", frame.era]);
    else if (frame.type === "undo") events.pop();
    else if (frame.type === "reset") events.length = 0;
    log = { handle: answer.handle, variant: answer.variant, era: answer.start_era, events, seq: answer.seq };
    save();
    const k = events.length;
    views = frame.type === "open" || frame.type === "reset" ? [] : views.slice(0, k);
    views[k] = v;
    for (const el of controls) el.disabled = false;
    // Undo back to the start disables the button the learner is on: keep the focus in the playground, on
    // Reset beside it, where a key pressed once more changes nothing (on an event button it would press it).
    const keepFocus = !answer.can_undo && document.activeElement === undoBtn;
    undoBtn.disabled = !answer.can_undo;
    if (keepFocus) (section.querySelector('[data-action="reset"]:not(:disabled)') || section.querySelector("button[data-button]"))?.focus();
    for (const input of section.querySelectorAll('[data-role="variant"] input')) input.checked = input.value === answer.variant;
    timeline.setTotal(k);
    // An open draws a playground afresh: nothing was pressed, so nothing is marked. Neither is a
    // new storage choice: it starts another playground, which did not change from this one.
    const afresh = frame.type === "open" || (frame.type === "reset" && frame.variant);
    const changes = draw(v, afresh ? null : shown, k, pressed, undone !== null);
    pressed = null;
    // A reconnect's open draws the same playground again: a link shown for it still holds.
    if (frame !== reopen) linkBox?.hide();
    const last = history[history.length - 1];
    // The summary with what changed (for the status line), and without (for the short line in view).
    const summary = (changes) => {
      if (frame.type === "reset" && dropped) {
        // A new storage choice (a variant) is a new start: say that the presses made so far are gone.
        const presses = plural(dropped, "press");
        return frame.variant ? t("playground.restarted_variant", { variant: variantName(frame.variant), presses }) : t("playground.restarted", { presses });
      }
      if (undone) return t("playground.undone", { label: undone.label.text, now: last.step ? t("playground.now_after", { k, step: last.step, label: last.label.text }) : t("playground.now_start"), changes }).trim();
      return last.step ? t("playground.after", { k, step: last.step, label: last.label.text, changes }).trim() : t("playground.ready");
    };
    const notice = answer.notice || linkNotice;
    linkNotice = null;
    const lead = notice ? `${notice} ` : "";
    // In view the timeline's own line already says which press this is ("Now: after press 2").
    const plain = last.step && !undone && !(frame.type === "reset" && dropped);
    say(lead + summary(changes), lead + (plain ? t("playground.step_said", { step: last.step, label: last.label.text }) : summary("")));
    // Other widgets (goals, predictions) listen for every answer the playground draws. A prediction it
    // reveals is brought into view with the changes.
    const results = [...section.querySelectorAll('[data-role="predict-result"]')];
    const shownBefore = results.filter((r) => !r.hidden);
    const questions = [...section.querySelectorAll('[data-role="predict"]')];
    const askedBefore = questions.filter((q) => !q.hidden);
    section.dispatchEvent(new CustomEvent("playground:answer", { detail: answer }));
    freshReveal = results.find((r) => !r.hidden && !shownBefore.includes(r)) || null;
    freshAsk = questions.find((q) => !q.hidden && !askedBefore.includes(q)) || null;
    settle();
  }

  // Whether a region must be drawn again: not when it already shows the same data (a press that
  // changes only the log leaves the table's and the prompt's nodes, and their layout, alone); then only
  // what the last press added to it (a note, a changed cell) goes.
  // region -> the data it shows, as JSON
  const drawnData = new Map();
  function redraw(box, data) {
    const json = JSON.stringify(data);
    if (!box.firstChild || drawnData.get(box) !== json) {
      drawnData.set(box, json);
      return true;
    }
    for (const note of box.querySelectorAll(".change-note")) note.remove();
    for (const cell of box.querySelectorAll(".cell-changed")) cell.classList.remove("cell-changed");
    return false;
  }

  // Draw one view, mark what changed since `prev` (none when null), and bring the first change
  // into view. Returns the sentence that says what changed.
  function draw(v, prev, k, button = null, undo = false) {
    const d = diffViews(prev, v);
    // A host of both eras has no era to choose: the choice goes away rather than sit there greyed and blank.
    const eras = section.querySelector('[data-role="era"]');
    if (eras) eras.hidden = v.dual_era;
    for (const input of section.querySelectorAll('[data-role="era"] input')) [input.checked, input.disabled] = [input.value === v.era && !v.dual_era, v.dual_era];
    // A choice that makes a difference in one era only is off in the other, and says so.
    const variants = section.querySelector('[data-role="variant"][data-era]');
    if (variants) {
      variants.disabled = v.era !== variants.dataset.era;
      variants.querySelector(".why-not").hidden = !variants.disabled;
    }
    for (const el of section.querySelectorAll(`[${MARKED}]`)) el.removeAttribute(MARKED);
    const marked = [];
    const mark = (el, word) => {
      if (!el) return;
      // shown by the stylesheet
      el.setAttribute(MARKED, word && t(`mark.${word.replace(" ", "_")}`));
      marked.push(el);
    };
    const servers = region("servers");
    if (servers) {
      if (redraw(servers, v.servers)) fill(servers, serverTable(v.servers));
      markServers(servers, d.servers, mark);
      if (d.servers.removed.length) {
        const note = h("p", { class: "change-note" }, t(undo ? "playground.gone_undo" : "playground.gone", { servers: d.servers.removed.join(", ") }));
        servers.append(note);
        mark(note, "gone");
      }
    }
    const promptBox = region("prompt");
    if (promptBox) {
      if (redraw(promptBox, [v.next_prompt, v.counters])) {
        fill(promptBox, promptList(v.next_prompt), counterLine(v.counters));
      }
      const items = promptBox.querySelectorAll("ul.prompt:not(.removed) > li");
      const joined = new Set(d.prompt.joined.map(toolKey));
      // A tool that joined is outlined; it is also named "joined" unless its badge already says it is new
      // since the last turn (one word for one change).
      v.next_prompt.tools.forEach((t, i) => {
        if (joined.has(toolKey(t))) mark(items[i], t.change === "new" ? "" : "joined");
      });
      // A tool that left with this press and that the model saw last turn is already listed, struck
      // through, as gone since that turn: it is outlined there, not named a second time in a note.
      const struckItems = promptBox.querySelectorAll("ul.prompt.removed > li");
      const struck = new Map(v.next_prompt.removed.map((x, i) => [toolKey(x), struckItems[i]]));
      for (const x of d.prompt.left) mark(struck.get(toolKey(x)), "");
      const unsaid = d.prompt.left.filter((x) => !struck.has(toolKey(x)));
      if (unsaid.length) {
        const note = h("p", { class: "change-note" }, t(undo ? "playground.left_undo" : "playground.left", { tools: unsaid.map((x) => t(x.origin ? "playground.tool_from_via" : "playground.tool_from", { tool: x.name, server: x.server, origin: x.origin })).join(", ") }));
        promptBox.querySelector(".meta")?.before(note);
        mark(note, "gone");
      }
      // A counter taken back to zero (an undo) is no longer shown: its line is marked instead.
      for (const c of d.counters) mark(promptBox.querySelector(`.counters [data-counter="${c.key}"]`) || promptBox.querySelector(".counters"), "changed");
      if (d.turns) mark(promptBox.querySelector(".meta.turns"), "changed");
    }
    const cmp = region("comparison");
    if (cmp) {
      // Beside the log, the comparison leaves this era's lines to it; as a tab of its own it says them.
      fill(cmp, comparison(v.comparison, Boolean(region("log")) && !accounts, v.dual_era));
      if (d.comparison) mark(cmp.querySelector(".eras"), "new step");
    }
    drawWire(v);
    const cost = section.querySelector('[data-role="cost"]');
    if (cost) {
      const strip = costStrip(v.comparison, region("diagram") ? `${panel}-wire` : null);
      cost.hidden = !strip;
      fill(cost, strip || []);
    }
    const handles = region("handles");
    if (handles) {
      fill(handles, handleState(v));
      const inStore = (b) => handles.querySelector(`[data-store="${CSS.escape(b.store)}"] [data-basket="${CSS.escape(b.id)}"]`);
      for (const b of d.stores.added) mark(inStore(b), "new");
      for (const b of d.stores.changed) mark(inStore(b), "changed");
      if (d.stores.current) mark(handles.querySelector(`[data-store="${CSS.escape(d.stores.current)}"] h5`), "changed");
      const held = new Set(d.stores.held);
      for (const code of handles.querySelectorAll(":scope > p > code")) if (held.has(code.textContent)) mark(code, "new");
      if (d.stores.removed.length) {
        const gone = d.stores.removed.map((b) => t("playground.basket_from", { basket: b.id, store: b.store })).join(", ");
        const note = h("p", { class: "change-note" }, t(undo ? "playground.baskets_gone_undo" : "playground.baskets_gone", { baskets: gone }));
        handles.append(note);
        mark(note, "gone");
      }
    }
    if (region("diagram")) drawOnView("diagram", () => drawDiagrams(v));
    markLogStep(k);
    // A tool call that came back as an error (a basket the server no longer has) may change nothing
    // in the regions above: its lines in the log are the change, and the status line says it first.
    const failed = prev && !undo ? (history[k]?.lines || []).filter((line) => line.tone === "failed") : [];
    // A press the simulation would not do ("A is already down") says why, not only that nothing changed.
    const refused = prev && !undo ? (history[k]?.lines || []).find((line) => line.tone === "rejected") : null;
    // A step that changes nothing on screen is explained by its note, when it has one.
    const note = prev && !undo ? (history[k]?.lines || []).find((line) => line.tone === "warn") : null;
    if (failed.length) for (const li of region("log")?.querySelectorAll(`ol.log > li[data-step="${k}"] .tone-failed`) || []) mark(li, "failed");
    const firstView = !shown;
    shown = v;
    // Marked elements are new nodes (a region with a change in it is drawn again), so adding the class
    // starts the flash without forcing a layout first.
    const quiet = reducedMotion();
    if (!quiet) for (const el of marked) el.classList.add("flash");
    // What to keep on screen: a scenario's box while it plays (its moment's words with its buttons), else
    // the control with the focus, when it is in this playground (the timeline's slider, a keyboard
    // press), else the one pressed.
    const focused = document.activeElement;
    const scenarioBox = section.hasAttribute("data-scenario-driving") ? section.querySelector(".scenario-box") : null;
    const keep = scenarioBox || (focused && focused !== section && section.contains(focused) ? focused : button);
    // On a phone (the stage above the regions): a prediction's verdict, just revealed above the regions,
    // comes first; then a question just asked (the learner's next move is to answer it), when it fits on
    // screen with the changes; then them. A walk-through's moment points at its lines in the log: they
    // come too, when all fits.
    const bringPressIntoView = (entry) => {
      const controls = section.querySelector(".stage > .controls");
      if (marked.some((el) => el.getClientRects().length) || freshReveal || freshAsk) {
        const verdict = freshReveal?.querySelector('[data-role="predict-verdict"]');
        const first = verdict ? [verdict, ...marked] : marked;
        bringIntoView(first, keep, quiet, controls, freshAsk || (scenarioBox && entry));
      } else if (entry) {
        // Nothing on view changed (a mark in a tab not on view is not seen): the press's own lines in
        // the log say what it did (a notice ignored, a press refused), so they come into view, above
        // the controls' bar.
        bringIntoView([entry], keep, quiet, controls);
      }
    };
    // Run by settle() once the status line and the goal above the regions have their new words (they
    // move everything below them), in one layout: the log's scroll position first, so a marked line
    // at its end is measured where it will show, then what to bring into view.
    reveal = () => {
      const box = region("log");
      if (logMoved && box) box.scrollTop = box.scrollHeight;
      else if (box) showLogEntry(box, k);
      logMoved = false;
      const entry = box?.querySelector('ol.log > [aria-current="step"]');
      // The page's first view (the page opening, a link landing on its heading) leaves the page where it is;
      // so does a step chosen on a phone with the timeline's slider, which must stay under the keys moving
      // it (its status line says what changed).
      const still = firstView || keep?.type === "range";
      if (stageBeside()) {
        if (!firstView) alignRegions(quiet, keep, freshAsk);
      } else if (!still) {
        bringPressIntoView(entry);
      }
      freshReveal = freshAsk = null;
    };
    const shows = { servers: Boolean(servers), prompt: Boolean(promptBox), handles: Boolean(handles) };
    return summarize(d, { failure: failed[0]?.text, refused: refused?.text, note: note?.text, shows });
  }

  // On a wide screen the stage (the walk-through, the buttons, the question) stays in view beside
  // the regions: the page brings the regions' top (the table, then the prompt) to the top of the screen,
  // the same place after every press, so nothing jumps and the stage stays stuck beside them.
  const stage = section.querySelector(".stage");
  const stageBeside = () => stage && !framedFullHeight() && getComputedStyle(stage).position === "sticky";
  function alignRegions(quiet, keep, asked = null) {
    const top = section.querySelector(".regions").getBoundingClientRect().top;
    if (Math.abs(top - 8) >= 1) window.scrollBy({ top: top - 8, behavior: quiet ? "auto" : "smooth" });
    // The control pressed (or focused) stays in view inside the stage, which scrolls on its own.
    const focused = document.activeElement;
    const held = focused && stage.contains(focused) ? focused : keep && stage.contains(keep) ? keep : null;
    if (!held) return;
    const s = stage.getBoundingClientRect();
    const r = held.getBoundingClientRect();
    if (r.bottom > s.bottom) stage.scrollTop += r.bottom - s.bottom + 8;
    else if (r.top < s.top) stage.scrollTop -= s.top - r.top + 8;
    // A question the press just asked, under the buttons, comes into view as far as it can with the
    // control (a walk-through's whole box, while one plays) still on screen above it.
    const q = asked?.getBoundingClientRect();
    const c = (keep && stage.contains(keep) ? keep : held).getBoundingClientRect();
    if (q && q.bottom > s.bottom) stage.scrollTop += Math.max(0, Math.min(q.bottom - s.bottom + 8, c.top - s.top - 8));
  }

  function settle() {
    const r = reveal;
    reveal = null;
    r?.();
  }

  // The log entry of the step on view is the current one; entries after it are "later". At the
  // latest step only the current entry changes, so a press touches two entries, not the whole log.
  function markLogStep(k) {
    const list = region("log")?.querySelector("ol.log");
    if (!list) return;
    list.querySelector('[aria-current="step"]')?.removeAttribute("aria-current");
    const past = k < list.children.length - 1;
    if (past || pastShown) for (const el of list.children) el.classList.toggle("later", Number(el.dataset.step) > k);
    pastShown = past;
    list.children[k]?.setAttribute("aria-current", "step");
  }

  // The timeline asks for step k: draw the view this page holds for it, or ask for it (an open of
  // the log cut at k, under a handle of its own: the playground itself stays where it is).
  // The view after press j, asked for once and kept; null if the answer is not a view.
  async function viewAfter(j) {
    if (!views[j]) {
      const { variant, era, events } = log;
      const answer = await transport.send({ type: "open", panel, log: { variant, era, events: events.slice(0, j), seq: j } });
      if (answer.type !== "view") return null;
      views[j] = answer.view;
    }
    return views[j];
  }

  // A view the next step put on view is marked against, instead of the one before it (an Undo's).
  let markAgainst = null;

  async function viewStep(k) {
    const total = log ? log.events.length : 0;
    const where = stepName(k, total);
    const against = markAgainst;
    markAgainst = null;
    // Marked against the view before it, not the screen left: what that press did, as when it was made.
    const v = await viewAfter(k);
    const before = against || (k > 0 && v ? await viewAfter(k - 1) : null);
    if (!v || timeline.viewing !== k) return;
    const changes = draw(v, before, k);
    // A scenario the timeline ended says so here: no answer is coming to say it with.
    const notice = linkNotice;
    linkNotice = null;
    const lead = notice ? `${notice} ` : "";
    // the timeline's line says where, in view
    say(lead + t("playground.viewing", { where, changes }), lead.trim());
    settle();
  }

  // Before a change made while an earlier step is on view: cut the log at that step, under a new
  // handle, so the change continues from there.
  async function continueFromPast() {
    if (!timeline.past) return;
    const k = timeline.viewing;
    const { variant, era } = log;
    const dropped = log.events.length - k;
    // Set aside, not lost: an Undo right after the change that follows brings them back (see change).
    branch = { k, variant, era, events: log.events.slice(), views: views.slice() };
    const events = log.events.slice(0, k);
    log = { handle: null, variant, era, events, seq: k };
    const answer = await transport.send({ type: "open", panel, log: { variant, era, events, seq: k } });
    if (answer.type === "view") {
      const held = views.slice(0, k + 1);
      render(answer, { type: "open" });
      views = held;
      // Said with the change that follows: the presses after this step are gone.
      linkNotice = t("playground.dropped", { presses: plural(dropped, "press") });
    }
  }

  function showError(answer) {
    const error = t("playground.error", { message: answer.message });
    say(error, error);
  }

  // A change that fails on its way (the network gone while over HTTP, a fault drawing its answer) is
  // said where the learner pressed, never dropped in silence; the presses after it still go.
  function failed(err) {
    console.error(err);
    showError({ message: (err && err.message) || String(err) });
  }

  // Presses go out one at a time, in the order the learner made them: a press made while the
  // previous answer is on its way waits its turn instead of being dropped.
  let chain = Promise.resolve();

  // The frame is made when its turn comes, from the log as it is then: a press made while the
  // playground reopens (a storage choice, a cut to an earlier step, Undo of a cut) goes out after the
  // reopen, with the handle it brought. No frame (the reopen failed, said already): nothing to send.
  function send(makeFrame) {
    chain = chain
      .then(() => {
        const frame = makeFrame();
        return frame && exchange(frame);
      })
      .catch(failed);
    return chain;
  }

  function openFrame() {
    if (!log) return { type: "open", panel };
    const { handle, variant, era, events, seq } = log;
    return handle
      ? { type: "open", panel, handle, log: { variant, era, events, seq } }
      : { type: "open", panel, log: { variant, era, events, seq } };
  }

  async function exchange(frame, tries = 0) {
    // The header says a lost connection too, but it may be far off screen (a long page, a portal's
    // tall frame): say it where the learner pressed, until the answer replaces it.
    if (transport.mode === "connecting" && frame.type !== "open") say(t("playground.waiting"), t("playground.waiting"));
    const answer = await transport.send(frame);
    if (answer.type === "view") render(answer, frame);
    else if (answer.type === "need_log" && tries < 2) {
      // The server lost this playground (a restart, another worker) or missed a change: send the
      // change again with the log it follows, and the server rebuilds the playground from it.
      const { variant, era, events, seq } = log;
      await exchange({ ...frame, log: { panel, variant, era, events, seq } }, tries + 1);
    } else if (frame.type === "open" && frame.log) openFresh(answer);
    else showError(answer);
  }

  async function openFresh(answer) {
    // The server refused the log (an old link, or a log from an older lesson): begin again.
    log = null;
    history = [];
    views = [];
    session.remove(playgroundKey(panel));
    linkNotice = answer.message && !linkNotice ? `${LINK_BROKEN()} (${answer.message})` : LINK_BROKEN();
    const fresh = await transport.send({ type: "open", panel });
    if (fresh.type === "view") render(fresh, { type: "open" });
  }

  // Each storage choice keeps the presses made under it while another is tried: arrow keys in a
  // radio group choose every option they pass, and going back must not have cost the learner's work.
  // variant -> { era, events }
  const setAside = new Map();
  const chooseVariant = (v) => {
    branch = null;
    chain = chain.then(continueFromPast).catch(failed);
    return send(() => {
      // the reopen before it failed: said already
      if (!log || !log.handle) return null;
      if (log.events.length) setAside.set(log.variant, { era: log.era, events: log.events.slice() });
      const kept = setAside.get(v);
      setAside.delete(v);
      if (!kept) return { type: "reset", handle: log.handle, seq: log.seq + 1, variant: v };
      const n = kept.events.length;
      log = { handle: null, variant: v, era: kept.era, events: kept.events, seq: n };
      linkNotice = t("playground.restored_variant", { variant: variantName(v), presses: plural(n, "press") });
      return openFrame();
    });
  };

  // A scenario starts afresh: the learner's own presses wait here (and in this tab's storage, so a
  // reload keeps them), and a button beside Undo and Reset brings them back.
  // { variant, era, events, own }
  let aside = session.get(asideKey(panel));
  // the views drawn for them, while this page holds them
  let asideViews = [];
  // A press, era or storage choice of the learner's own since the last set-aside (kept with the
  // presses set aside, so a reload does not take the learner's later work for a scenario's).
  let own = Boolean(aside && aside.own);
  const keepAside = () => (aside ? session.set(asideKey(panel), { ...aside, own }) : session.remove(asideKey(panel)));
  const onPlayground = () => ({ variant: log.variant, era: log.era, events: log.events.slice() });
  function mineNow() {
    if (own) return;
    own = true;
    keepAside();
  }
  const bringBack = h("button", { type: "button", "data-action": "bring-back", hidden: "" });
  section.querySelector(".controls .history")?.append(bringBack);
  function showAside() {
    bringBack.hidden = !(aside && Array.isArray(aside.events) && aside.events.length);
    if (!bringBack.hidden) bringBack.textContent = t("playground.bring_back", { presses: plural(aside.events.length, "press") });
  }
  showAside();
  // Sent by a scenario before it resets the playground: set the learner's presses aside, unless those
  // on the playground are a scenario's (a second scenario keeps the first set-aside). The event's
  // detail learns how many were set aside now, for the scenario to say so.
  section.addEventListener("playground:set-aside", (event) => {
    if (!log || !log.events.length || (aside && !own)) return;
    aside = onPlayground();
    asideViews = views.slice();
    own = false;
    keepAside();
    showAside();
    if (event.detail) event.detail.setAside = aside.events.length;
  });

  // Back to the presses set aside. What the learner did since the scenario is set aside in their
  // place (the button then offers it back), so neither is lost; a scenario's own presses are not.
  function restoreAside() {
    const a = aside;
    const av = asideViews;
    const mine = own && log && log.events.length;
    aside = mine ? onPlayground() : null;
    asideViews = mine ? views.slice() : [];
    own = Boolean(mine);
    branch = null;
    keepAside();
    const focusBack = document.activeElement === bringBack;
    showAside();
    if (focusBack && bringBack.hidden) section.querySelector("button[data-button]:not([disabled])")?.focus();
    return send(() => {
      log = { handle: null, variant: a.variant, era: a.era, events: a.events, seq: a.events.length };
      linkNotice = t("playground.aside_back", { presses: plural(a.events.length, "press") });
      return openFrame();
    }).then(() => {
      // the open failed: said already
      if (!log || log.events.length !== a.events.length) return;
      views = av.map((v, i) => views[i] || v);
    });
  }

  // The presses a change made from an earlier state set aside (continueFromPast), until the next change.
  let branch = null;
  const change = (type, extra = {}) => {
    if (type === "undo" && branch && !timeline.past && log.events.length === branch.k + 1) return restoreBranch();
    // what was set aside is gone for good
    if (!timeline.past || type === "reset") branch = null;
    // A reset clears every press, the later ones too: no cut first, so it says how many it cleared.
    if (type !== "reset") chain = chain.then(continueFromPast).catch(failed);
    return send(() => (log && log.handle ? { type, handle: log.handle, seq: log.seq + 1, ...extra } : null));
  };

  // Undo of the one change made from an earlier state: the playground as it was before it, that
  // earlier state on view and every press after it back.
  function restoreBranch() {
    const b = branch;
    // what the learner saw before Undo: the changes are marked against it
    const before = shown;
    branch = null;
    const label = history[history.length - 1]?.label.text || "";
    return send(() => {
      log = { handle: null, variant: b.variant, era: b.era, events: b.events, seq: b.events.length };
      return openFrame();
    }).then(() => {
      // the open failed: said already
      if (!log || log.events.length !== b.events.length) return;
      views = b.views.map((v, i) => views[i] || v);
      markAgainst = before;
      linkNotice = t("playground.branch_back", { label, presses: plural(b.events.length - b.k, "press") });
      timeline.view(b.k);
    });
  }

  // A press brings its changes into view, and on a phone they lie far below the event buttons. While
  // those are above the screen, a button at its foot takes the learner back to the one last pressed
  // (an event, Undo or Reset; the first event when that one is now disabled, as Undo at the start is).
  // On a phone the controls are a bar stuck to the foot of the screen: the page's scroll padding keeps
  // what the keyboard or a link brings into view above it.
  const bar = section.querySelector(".stage > .controls");
  if (bar && "ResizeObserver" in window) {
    new ResizeObserver(() => {
      const stuck = getComputedStyle(bar).position === "sticky";
      document.documentElement.style.setProperty("--controls-bar", stuck ? `${Math.ceil(bar.getBoundingClientRect().height)}px` : "0px");
    }).observe(bar);
  }
  const eventButtons = section.querySelector(".buttons.events");
  // On a phone the events are one row that scrolls sideways (lesson.css): an edge with more beyond it fades.
  if (eventButtons && "ResizeObserver" in window) {
    const edges = () => {
      const { scrollLeft, scrollWidth, clientWidth } = eventButtons;
      eventButtons.classList.toggle("more-before", scrollLeft > 1);
      eventButtons.classList.toggle("more-after", scrollLeft + clientWidth < scrollWidth - 1);
    };
    eventButtons.addEventListener("scroll", edges, { passive: true });
    new ResizeObserver(edges).observe(eventButtons);
  }
  // Chromium's focus leaves a button it can partly see where it is: one the keyboard focuses comes into
  // view whole. Not one pressed by a pointer: the row would move between its press and its release.
  eventButtons?.addEventListener("focusin", (event) => {
    if (!event.target.matches(":focus-visible") || eventButtons.scrollWidth <= eventButtons.clientWidth) return;
    event.target.scrollIntoView({ block: "nearest", inline: "nearest" });
  });
  let lastEvent = null;
  let placeBack = () => {};
  if (eventButtons) {
    const back = h("button", { type: "button", class: "to-events", hidden: "" }, t("playground.to_events"));
    section.append(h("div", { class: "to-events-dock" }, back));
    back.addEventListener("click", (event) => {
      // not a change to the playground
      event.stopPropagation();
      const target = lastEvent.disabled ? eventButtons.querySelector("button:not(:disabled)") || lastEvent : lastEvent;
      target.scrollIntoView({ block: "center", behavior: reducedMotion() ? "auto" : "smooth" });
      target.focus({ preventScroll: true });
    });
    // Worked out from where the buttons are on every scroll (once a frame), not from their crossing the
    // screen's edge: a jump past them, or a disclosure opened below them, crosses no edge.
    let queued = false;
    placeBack = () => {
      // nothing pressed yet: nothing to go back to, no layout to read
      if (queued || !lastEvent) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const r = eventButtons.getBoundingClientRect();
        // Undo and Reset sit below the events: while the one last pressed is on screen, no way back is needed.
        const last = lastEvent.getBoundingClientRect();
        const seen = last.height > 0 && last.bottom > 0 && last.top < window.innerHeight;
        const show = lastEvent.isConnected && r.height > 0 && r.bottom < 0 && !seen;
        back.hidden = !show;
        // the focus is brought into view above the button (lesson.css)
        section.classList.toggle("backing", show);
      });
    };
    window.addEventListener("scroll", placeBack, { passive: true });
    window.addEventListener("resize", placeBack, { passive: true });
  }

  section.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || button.disabled || !log || button.getAttribute("role") === "tab") return;
    // Not while the playground reopens: the second click of a double click would swap straight back.
    if (button.dataset.action === "bring-back") return aside && log.handle && restoreAside();
    // Work of the learner's own (an Undo or a Reset only takes a scenario's presses away).
    if (button.dataset.button && !section.hasAttribute("data-scenario-driving")) mineNow();
    pressed = button;
    if (button.dataset.button || button.dataset.action === "undo" || button.dataset.action === "reset") {
      lastEvent = button;
      // room for the way back, kept from now on (lesson.css)
      section.classList.add("dock-room");
      placeBack();
    }
    if (button.dataset.button) change("press", { button: button.dataset.button });
    else if (button.dataset.action === "undo") change("undo");
    else if (button.dataset.action === "reset") change("reset");
    else if (button.dataset.action === "share") {
      const at = log;
      shareCode().then((m) => (linkBox ??= m.addLinkBox(shareBtn.parentElement)).show(m.encodeLink(panel, at)), showError);
    }
  });
  section.addEventListener("change", (event) => {
    const input = event.target;
    if (!log) return;
    if (!section.hasAttribute("data-scenario-driving")) mineNow();
    pressed = input.closest("fieldset");
    if (input.closest('[data-role="era"]')) change("era", { era: input.value });
    else if (input.closest('[data-role="variant"]')) chooseVariant(input.value);
  });
  // A reconnect opens the playground again; an earlier step the learner was looking at stays on view.
  transport.onReconnect(() => {
    const at = timeline.past ? timeline.viewing : null;
    const held = views.slice();
    return send(() => (reopen = openFrame())).then(() => {
      if (!log) return;
      views = held.map((v, i) => views[i] || v);
      if (at !== null && at < log.events.length) timeline.view(at);
    });
  });
  // "Walk me through it": the page offers the panel's scenarios (disabled, as every control, until the
  // playground answers); the code that replays them and their steps come at the first press of one.
  for (const button of section.querySelectorAll(".scenario-offer button[data-scenario]")) {
    button.addEventListener("click", () => scenarioCode().then((m) => m.playScenario(section, button.dataset.scenario, button)).catch(showError));
  }
  if (linkedTo(panel)) {
    chain = shareCode().then(openLink, () => {
      log = null;
      linkNotice = LINK_BROKEN();
    });
  }
  send(openFrame);
}

// Scroll the page as little as it takes to show the marked elements, the first change first when
// they do not all fit; and, where the first change fits on screen with it, never so far that the
// control pressed leaves the screen (a keyboard user's focus is on it, and the next press starts
// there). What does not fit below is a scroll away, and the status line says in words what changed.
// `extra` (a question just asked) is shown with them when all fit on the screen, or alone when none shows.
function bringIntoView(marked, button, quiet, bar = null, extra = null) {
  const behavior = quiet ? "auto" : "smooth";
  const margin = 16;
  // A walk-through's box docked at the foot of a phone's screen covers what is under it; so does the
  // controls' bar, and the control pressed is in it, in view wherever the page scrolls.
  const docked = button?.classList.contains("scenario-box") && getComputedStyle(button).position === "fixed" ? button : null;
  const dock = docked || (bar && getComputedStyle(bar).position === "sticky" ? bar : null);
  const height = window.innerHeight - (dock ? dock.getBoundingClientRect().height : 0);
  const shown = (els) => els.map((el) => el.getBoundingClientRect()).filter((r) => r.width || r.height);
  let boxes = shown(marked);
  if (extra) {
    const all = shown([extra, ...marked]);
    const span = all.length ? Math.max(...all.map((r) => r.bottom)) - Math.min(...all.map((r) => r.top)) : 0;
    if (!boxes.length || span + 2 * margin <= height) [marked, boxes] = [[extra, ...marked], all];
  }
  if (!boxes.length) return;
  const top = Math.min(...boxes.map((r) => r.top));
  if (framedFullHeight()) {
    // The portal scrolls, not this page, and only scrollIntoView reaches across to it. This page
    // cannot see the portal's screen, so it cannot keep two things on it: a scenario's box (its words
    // and its Next moment) comes first, else the first change.
    const target = button?.classList.contains("scenario-box") ? button : marked[boxes.findIndex((r) => r.top === top)];
    target?.scrollIntoView({ block: "nearest", behavior });
    return;
  }
  const bottom = Math.max(...boxes.map((r) => r.bottom));
  let by = 0;
  if (bottom - top + 2 * margin > height || top < margin) by = top - margin;
  else if (bottom > height - margin) by = bottom - height + margin;
  const b = dock ? null : button?.getBoundingClientRect();
  if (b && (b.width || b.height)) {
    // Keep the control on screen when the first change (its first lines) fits there with it; when it
    // cannot (a phone, the change far below), the change wins.
    const first = boxes.find((r) => r.top === top);
    const seen = top + Math.min(first.height, 48);
    if (Math.max(b.bottom, seen) - Math.min(b.top, top) + 2 * margin <= height) {
      by = Math.max(b.bottom - height + margin, Math.min(b.top - margin, by));
    }
  }
  if (Math.abs(by) >= 1) window.scrollBy({ top: by, behavior });
}

// In a portal's frame that the portal sizes to the lesson (embed.js's resizer), the page never
// scrolls itself: the portal's page does.
function framedFullHeight() {
  return "parentScrolls" in document.documentElement.dataset;
}

// Scroll the log box (not the page) so the entry of step k shows in it, from its top when it does
// not fit: the timeline moves the step on view, and the log marks it there.
function showLogEntry(box, k) {
  const entry = box.querySelector(`ol.log > li[data-step="${k}"]`);
  if (!entry) return;
  const b = box.getBoundingClientRect();
  const e = entry.getBoundingClientRect();
  if (e.top < b.top || e.bottom > b.bottom) box.scrollTop += e.top - b.top - 8;
}
