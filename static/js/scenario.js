// Scripted scenarios, replayed from a playground's "Walk me through it": the page offers them, and
// playground.js fetches this code at the first press of one (presenter mode imports it with its own).
// A replay presses the panel's own buttons (and Undo, for Previous), so it is an ordinary playground
// run: the learner can leave at any step and keep playing from there. The scenarios' steps come from a
// data asset built from content/scenarios/*.yaml (only those whose steps are all presses of the panel),
// fetched with the first replay.
import { h, loadStyle, reducedMotion } from "./dom.js";
import { need, t } from "./i18n.js";
import { momentName, plural } from "./render.js";

await Promise.all([need("scenario"), loadStyle("scenario.css")]); // this module's own messages (i18n.js) and looks

const ANSWER_WAIT_MS = 15000;
const MAX_SAID = 3; // a moment's last few presses are said with it; the log has them all
let active = null; // the replay under way, if any: { next(), prev(), leave(), section }

export function activeScenario() {
  return active;
}

// The playground's next answer (it dispatches playground:answer on its section after each one).
function nextAnswer(section) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      section.removeEventListener("playground:answer", done);
      reject(new Error("no answer"));
    }, ANSWER_WAIT_MS);
    function done(event) {
      clearTimeout(timer);
      section.removeEventListener("playground:answer", done);
      resolve(event.detail);
    }
    section.addEventListener("playground:answer", done);
  });
}

// How many replays are pressing in each section (one left mid-step may still be finishing its
// press): goals tell the scenario's presses from the learner's own by the attribute.
const driving = new WeakMap();
function drivingBy(section, delta) {
  const n = (driving.get(section) || 0) + delta;
  driving.set(section, n);
  section.toggleAttribute("data-scenario-driving", n > 0);
}

async function clickAndWait(section, button) {
  if (!button || button.matches(":disabled")) throw new Error("control not available"); // a fieldset's too
  const answer = nextAnswer(section);
  button.click();
  return answer;
}

// A moment's title has no full stop of its own: give it one, so it is not read into the narration.
const sentence = (text) => (/[.!?…:]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

function ready(section) {
  const reset = section.querySelector('[data-action="reset"]');
  return reset && !reset.disabled ? Promise.resolve() : nextAnswer(section);
}

// A learner's own press, undo, reset or era change ends the replay where it stands. Listened for
// from a section's first replay on (this code comes with the first "Walk me through it").
const watched = new WeakSet();
function watch(section) {
  if (watched.has(section)) return;
  watched.add(section);
  const takeOver = (event) => {
    if (!active || active.section !== section) return;
    const target = event.target;
    // Bringing the learner's presses back ends the replay even mid-moment: no later press of it goes out.
    if (target.closest("[data-action='bring-back']")) return active.leave(false);
    if (active.driving) return;
    // The timeline too: an earlier step on view is not the moment the scenario is at.
    if (target.closest("[data-button], [data-action='undo'], [data-action='reset'], [data-role='era'], [data-role='variant'], .timeline")) {
      active.leave(false);
    }
  };
  section.addEventListener("click", takeOver, true);
  section.addEventListener("change", takeOver, true);
  section.addEventListener("input", takeOver, true);
}

let data = null; // the scenarios by panel id, once asked for
function scenarios() {
  data ??= fetch(document.body.dataset.scenarios)
    .then((resp) => {
      if (!resp.ok) throw new Error(`${resp.status} ${resp.statusText}`);
      return resp.json();
    })
    .catch((err) => {
      data = null; // asked again at the next press
      throw err;
    });
  return data;
}

/** Replay the scenario `id` of this playground; rejects when its steps cannot be fetched. */
export async function playScenario(section, id, opener) {
  const byPanel = await scenarios();
  const scenario = (byPanel[section.dataset.panelId] || []).find((s) => s.id === id);
  if (scenario) play(section, scenario, opener);
}

async function play(section, scenario, opener) {
  watch(section);
  if (active) active.leave(false);
  const pid = section.dataset.panelId;
  const id = `${pid}-scenario-${scenario.id}`;
  const total = scenario.steps.length;
  const position = h("p", { class: "scenario-position" }, t("scenario.starting"));
  const narration = h("p", { class: "scenario-narration" });
  // A moment may hold several presses, so its number is not the log's: say which steps it made.
  const inLog = h("p", { class: "scenario-steps subtle" });
  // What a screen reader hears: once a moment's presses are answered, the moment and what they did, in
  // one sentence (the playground's status line is quiet meanwhile, see drivingBy). The words on show
  // change before the presses go out, so they are not the live region themselves.
  const said = h("p", { class: "visually-hidden", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  // The question the next moment answers may sit out of sight (above the box on a phone): the words
  // that name it are a button (so the box grows by nothing) that brings it into view, first choice focused.
  const toQuestion = h(
    "button",
    { type: "button", class: "to-question", "aria-label": t("scenario.show_question", { question: t("scenario.the_question") }) },
    t("scenario.the_question"),
  );
  toQuestion.addEventListener("click", () => {
    const set = askedSet(scenario.steps[index]?.press[0]);
    if (!set) return;
    // A phone's box covers the screen's foot: the question goes to the top. A wide screen moves as little
    // as it can, so the box at the top of the stage stays in view.
    const narrow = window.matchMedia?.("(max-width: 59.99rem)").matches;
    // Smooth, as the page's own scroll to a moment's changes may still be: an instant scroll made during
    // it was carried past by it, while a smooth one takes its place.
    set.scrollIntoView({ block: narrow ? "start" : "nearest", behavior: reducedMotion() ? "auto" : "smooth" });
    set.querySelector("input")?.focus({ preventScroll: true });
    // The keyboard's way back: the question sits far from the box in the page's order.
    set.append(toBox);
    toBox.hidden = false;
  });
  const toBox = h("button", { type: "button", class: "to-walkthrough", hidden: "" }, t("scenario.back"));
  toBox.addEventListener("click", () => {
    toBox.hidden = true;
    box.scrollIntoView({ block: "nearest", behavior: "instant" });
    (next.disabled ? leave : next).focus({ preventScroll: true });
  });
  const status = h("div", {}, position, inLog, narration, said);
  // The playground's status line keeps showing what each press did, but is quiet while the scenario is
  // on: two live regions at once would talk over each other. A press of the learner's own ends the
  // scenario before it goes out, so its line speaks again.
  const line = section.querySelector('[data-role="announce"]');
  line?.setAttribute("aria-live", "off");
  const heard = [];
  const hear = () => {
    if (active === state && state.driving && line) heard.push(line.textContent);
  };
  section.addEventListener("playground:answer", hear);
  const prev = h("button", { type: "button", "data-scenario-action": "prev", disabled: "" }, t("scenario.prev"));
  const next = h("button", { type: "button", "data-scenario-action": "next", disabled: "" }, t("scenario.next"));
  const leave = h("button", { type: "button", "data-scenario-action": "leave" }, t("scenario.leave"));
  const box = h(
    "section",
    { class: "scenario-box", "aria-labelledby": `${id}-title` },
    h("h4", { id: `${id}-title` }, t("scenario.heading", { title: scenario.title })),
    status,
    h("div", { class: "buttons", role: "group", "aria-label": t("scenario.heading", { title: scenario.title }) }, prev, next, leave),
  );
  section.querySelector(".scenario-offer").after(box);
  let index = 0; // steps played
  let busy = false;
  const state = {
    section,
    driving: false,
    next: () => forward(),
    prev: () => back(),
    leave: (focus = true) => end(focus),
    atStart: () => index <= 1,
    atEnd: () => index >= total,
  };
  active = state;

  function show() {
    toBox.hidden = true; // a question answered by this moment needs no way back to it
    if (index > 1) box.querySelector('[data-role="set-aside"]')?.remove(); // said once, at the first moment
    const step = scenario.steps[index - 1];
    position.textContent = momentName(index, total, step.title);
    // The reset before the first moment leaves an empty log: moment n's presses follow the earlier ones'.
    const before = scenario.steps.slice(0, index - 1).reduce((n, s) => n + s.press.length, 0);
    const count = step.press.length;
    inLog.textContent = t(count === 1 ? "log.steps.one" : "log.steps.many", { first: before + 1, last: before + count });
    inLog.hidden = count === 0;
    narration.textContent = index === total ? `${step.narration} ${t("scenario.finished")}` : step.narration;
    // The next moment answers a question on show: ask for a guess before it, as the page's own
    // question does for a learner's press (predict.js).
    const asking = Boolean(askedSet(scenario.steps[index]?.press[0]));
    if (asking) {
      const [lead, tail] = t("scenario.predict_first", { question: "\u0000" }).split("\u0000");
      narration.append(` ${lead}`, toQuestion, tail ?? "");
    }
    const focused = document.activeElement;
    prev.disabled = index <= 1;
    next.disabled = index >= total;
    if (focused === next && next.disabled) leave.focus();
    if (focused === prev && prev.disabled) next.focus();
  }

  // The question on show, not yet answered, that a press of `button` answers.
  const askedSet = (button) =>
    [...section.querySelectorAll('[data-role="predict"]')].find(
      (set) => !set.hidden && set.dataset.predictButton === button && set.querySelector('[data-role="predict-result"]').hidden,
    );

  async function drive(work) {
    if (busy || active !== state) return;
    busy = true;
    state.driving = true;
    drivingBy(section, 1);
    heard.length = 0;
    try {
      await work();
      show();
      said.textContent = [position.textContent, narration.textContent, ...heard.slice(-MAX_SAID)].map(sentence).join(" ");
    } catch {
      narration.textContent = said.textContent = t("scenario.failed");
      end(false, true);
    } finally {
      busy = false;
      state.driving = false;
      drivingBy(section, -1);
    }
  }

  // The box shows the moment before its presses go out: it sits above the playground's regions,
  // so its new words must be in when the playground measures where the changes are.
  async function playStep(n) {
    index = n;
    show();
    heard.length = 0; // not the reset and era change that went before the first moment
    for (const id of scenario.steps[n - 1].press) {
      if (active !== state) return; // left (or replaced by another replay) mid-step
      await clickAndWait(section, section.querySelector(`button[data-button="${CSS.escape(id)}"]`));
    }
  }

  function forward() {
    if (index < total) drive(() => playStep(index + 1));
  }

  function back() {
    if (index <= 1) return;
    drive(async () => {
      const undone = scenario.steps[index - 1].press;
      index -= 1;
      show();
      for (const _ of undone) {
        if (active !== state) return;
        await clickAndWait(section, section.querySelector('[data-action="undo"]'));
      }
    });
  }

  function end(focus, keepMessage = false) {
    if (active === state) active = null;
    section.removeEventListener("playground:answer", hear);
    if (!active || active.section !== section) line?.setAttribute("aria-live", "polite");
    if (keepMessage) {
      // The box stays, saying what went wrong, until the learner plays again.
      for (const b of [prev, next]) b.disabled = true;
      leave.addEventListener("click", () => box.remove(), { once: true });
      return;
    }
    box.remove();
    toBox.remove();
    const announce = section.querySelector('[data-role="announce"]');
    const left = index > 0 ? t("scenario.left", { n: index }) : null;
    // Left by the Leave button: said now. Left by a press of the learner's own: said with that press's
    // status, which would otherwise replace it at once.
    if (left && focus && announce) announce.textContent = left;
    else if (left) section.dispatchEvent(new CustomEvent("playground:notice", { detail: left }));
    if (focus) (section.querySelector("button[data-button]:not([disabled])") || opener).focus();
  }

  prev.addEventListener("click", back);
  next.addEventListener("click", forward);
  leave.addEventListener("click", () => {
    if (active === state) end(true);
  });

  await drive(async () => {
    await ready(section);
    const steps = () => Number(section.querySelector(".timeline input")?.max || 0); // steps in the log
    // The learner's presses are kept aside by the playground, with a button that brings them back (the
    // reset below clears them); none when those on the playground are an earlier scenario's.
    const kept = {};
    const setAside = () => steps() && section.dispatchEvent(new CustomEvent("playground:set-aside", { detail: kept }));
    setAside();
    // A scenario is written for the playground's first start: another storage choice goes aside under
    // its radio button, and presses kept under the first one go aside with the rest.
    const first = section.querySelector('[data-role="variant"] input');
    let storage = first && !first.checked;
    // The scenario's era, then a reset, which begins again in the era the host speaks: the walk-through
    // starts from its own start, with no era change in its log.
    const era = section.querySelector(`[data-role="era"] input[value="${CSS.escape(scenario.era)}"]`);
    const switched = era && !era.checked;
    // The era first where the storage choices are off in this one (they may be one era's only).
    const eraFirst = switched && storage && first.matches(":disabled");
    if (eraFirst) await clickAndWait(section, era);
    // Still off in the scenario's own era: the choice changes nothing there, and is left as it is.
    if (storage && first.matches(":disabled") && !switched) storage = false;
    if (storage) {
      await clickAndWait(section, first);
      setAside();
    }
    if (switched && !eraFirst) await clickAndWait(section, era);
    await clickAndWait(section, section.querySelector('[data-action="reset"]'));
    // Said with the first moment's status line (the reset's own is replaced at once), and in the box,
    // in view while the walk-through plays (on a phone the status line is off screen by then): the
    // presses set aside, and the storage choice and era it switched to.
    const eraName = () => (era.parentElement.querySelector(".era-long") || era.parentElement).textContent.trim();
    const words = [
      kept.setAside ? t("scenario.cleared", { presses: plural(kept.setAside, "press") }) : "",
      storage ? t("scenario.variant_switched", { variant: first.parentElement.textContent.trim() }) : "",
      switched ? t("scenario.era_switched", { era: eraName() }) : "",
    ].filter(Boolean).join(" ");
    if (words) {
      section.dispatchEvent(new CustomEvent("playground:notice", { detail: words }));
      box.querySelector(".buttons").before(h("p", { class: "subtle", "data-role": "set-aside" }, words));
    }
    await playStep(1);
  });
  if (active === state) next.focus();
}
