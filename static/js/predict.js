// Predict, then see: a question asked before a press. The learner picks an answer; the press itself
// reveals what happens, and the explanation says why. A question with `data-predict-after` is asked
// only right after that button's press (the moment it is about); any other press puts it away. Once
// its answer has been shown, it is not asked again until the playground is reset. One with
// `data-predict-variant` is asked only while the playground plays that variant.
import { h, reducedMotion } from "./dom.js";
import { need, t } from "./i18n.js";

// This module's own messages (i18n.js). Its questions are mounted once they are here: a press made
// before then is one no question was asked about.
await need("predict");
function mountPredictions(section) {
  const sets = [...section.querySelectorAll('[data-role="predict"]')];
  if (!sets.length) return;
  const announce = section.querySelector('[data-role="announce"]');
  // What each answer on its way is for, oldest first: a button id, or "" for any other change.
  const pending = [];

  const choiceText = (set, id) => set.querySelector(`input[value="${id}"]`).parentElement.textContent.trim();
  const buttonFor = (set) => section.querySelector(`button[data-button="${CSS.escape(set.dataset.predictButton)}"]`);

  // On a phone the page brings a press's changes into view, and a question it asks lies above them:
  // while one waits for an answer, the controls' bar (stuck to the foot of the screen) points to it.
  const pointer = h("button", { type: "button", class: "predict-pointer", hidden: "" });
  section.querySelector(".stage > .controls")?.prepend(pointer);
  const waiting = () => sets.find((s) => unanswered(s) && !s.querySelector("input:checked"));
  // Only while the question is mostly off screen: beside it, the pointer would say it twice.
  const inView = new Set();
  const watch =
    "IntersectionObserver" in window &&
    new IntersectionObserver(
      (entries) => {
        for (const e of entries) e.intersectionRatio >= 0.5 ? inView.add(e.target) : inView.delete(e.target);
        point();
      },
      { threshold: [0, 0.5] },
    );
  for (const set of sets) if (watch) watch.observe(set);
  function point() {
    const set = waiting();
    // Not while it has the focus: hidden, it would drop the keyboard's place to the page.
    pointer.hidden = !set || (inView.has(set) && document.activeElement !== pointer);
    if (set) pointer.textContent = t("predict.pointer", { button: buttonFor(set)?.textContent.trim() });
  }
  const back = h("button", { type: "button", class: "predict-back", hidden: "" });
  // A press stopped to ask first says how to go on without a guess, in view (the status line says it
  // to a screen reader, and may be off a phone's screen), in place of the question's own "pick, then
  // press", which it supersedes.
  const skip = h("p", { class: "subtle", "aria-hidden": "true", hidden: "" });
  let how = null;
  const unskip = () => {
    back.hidden = skip.hidden = true;
    if (how) how.hidden = false;
  };
  back.addEventListener("click", () => {
    const set = back.closest('[data-role="predict"]');
    unskip();
    if (set) buttonFor(set)?.focus();
  });
  // The question into view, its first choice focused, and after the choices the keyboard's way back to
  // the button, which the page's order puts far from the question.
  function bringUp(set) {
    set.scrollIntoView({ block: "center", behavior: reducedMotion() ? "auto" : "smooth" });
    set.querySelector("input")?.focus({ preventScroll: true });
    back.textContent = t("predict.back", { button: buttonFor(set)?.textContent.trim() });
    set.append(back);
    back.hidden = false;
  }
  pointer.addEventListener("blur", point);
  pointer.addEventListener("click", () => {
    const set = waiting();
    if (set) bringUp(set);
  });

  function ask(set) {
    set.hidden = false;
    delete set.dataset.seen;
    for (const input of set.querySelectorAll("input")) input.checked = false;
    set.querySelector('[data-role="predict-result"]').hidden = true;
    for (const label of set.querySelectorAll("label")) label.classList.remove("right-answer");
    // Said with the press's own status, so a learner who does not see the question (a screen reader, a
    // phone scrolled to the changes) knows it is there before pressing on.
    const button = buttonFor(set);
    if (announce && button) announce.textContent = `${announce.textContent} ${t("predict.asked", { button: button.textContent.trim() })}`;
  }

  function reveal(set, picked) {
    const answer = set.dataset.answer;
    const verdict = set.querySelector('[data-role="predict-verdict"]');
    // What happened is marked in the list for the eye; a screen reader hears it named in the verdict.
    const said = !picked ? t("predict.none") : picked === answer ? t("predict.right") : t("predict.wrong", { picked: choiceText(set, picked) });
    verdict.replaceChildren(said, " ", h("span", { class: "visually-hidden" }, t("predict.what_happened", { right: choiceText(set, answer) })));
    // The marker's words come from the catalogue, through a custom property the stylesheet's ::after reads.
    set.style.setProperty("--t-what-happens", JSON.stringify(t("predict.what_happens")));
    set.querySelector(`input[value="${answer}"]`).parentElement.classList.add("right-answer");
    set.querySelector('[data-role="predict-result"]').hidden = false;
    set.dataset.revealed = "";
    // The explanation opens beside the outcome on a wide screen; not during a walk-through, whose box
    // says what to notice and must stay in view above it.
    const why = set.querySelector('[data-role="predict-why"]');
    if (why) why.open = !window.matchMedia?.("(max-width: 59.99rem)").matches && !section.querySelector(".scenario-box");
    // The reveal shows where the question was, in the stage beside the outcome it predicts: brought into
    // view there (the stage scrolls on its own on a wide screen), never by a jump of the whole page.
    set.querySelector('[data-role="predict-result"]').scrollIntoView({ block: "nearest", behavior: "instant" });
    if (announce) announce.textContent = `${announce.textContent} ${verdict.textContent}`;
  }

  // Predict first: a question waiting for a button, out of sight when that button is pressed (on a phone
  // the page brings a press's changes into view first, and the question lies above them), is brought
  // into view by the press instead, which presses nothing; the next press goes ahead, picked or not. A
  // walk-through's presses are its own: they reveal the question as they go.
  section.addEventListener(
    "click",
    (event) => {
      const button = event.target.closest("button[data-button]");
      if (!button || button.disabled || section.hasAttribute("data-scenario-driving")) return;
      const set = sets.find((s) => s.dataset.predictButton === button.dataset.button && !s.hidden && !("revealed" in s.dataset));
      if (!set || "seen" in set.dataset || set.querySelector("input:checked")) return;
      set.dataset.seen = "";
      const r = set.getBoundingClientRect();
      const bar = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--controls-bar")) || 0;
      if (r.bottom > 0 && r.top < window.innerHeight - bar) return; // on screen: the learner saw it
      event.stopImmediatePropagation();
      bringUp(set);
      skip.textContent = t("predict.first", { button: button.textContent.trim() });
      back.before(skip);
      skip.hidden = false;
      if (how) how.hidden = false; // another question's line, hidden by an earlier hold, comes back first
      how = set.querySelector(":scope > p.subtle");
      how.hidden = true;
      if (announce) announce.textContent = skip.textContent;
    },
    true,
  );

  section.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || button.disabled) return;
    if (button.dataset.button) {
      // The choice is read at the press: the answer to this press is what the learner predicted about.
      const set = sets.find((s) => s.dataset.predictButton === button.dataset.button && !s.hidden);
      const picked = set && set.querySelector("input:checked");
      pending.push({ button: button.dataset.button, picked: picked ? picked.value : null });
    } else if (button.dataset.action === "undo") pending.push({ button: "", undo: true });
    else if (button.dataset.action === "reset") pending.push({ button: "", reset: true });
  });
  section.addEventListener("change", (event) => {
    const picked = event.target.closest('[data-role="predict"]');
    if (picked) {
      point();
      // The button the answer is for, in view in the phone's row of events (it may sit cut at its edge).
      const button = buttonFor(picked);
      const row = button?.parentElement;
      const [b, r] = [button?.getBoundingClientRect(), row?.getBoundingClientRect()];
      if (b && (b.left < r.left || b.right > r.right)) row.scrollBy({ left: b.left - r.left - 24 });
    }
    // Another storage choice begins the playground again, as a reset does.
    if (event.target.closest('[data-role="variant"]')) pending.push({ button: "", reset: true });
    else if (event.target.closest('[data-role="era"]')) pending.push({ button: "" });
  });

  // A question about one variant is put away while another plays; one with a premise (`when`, which
  // the server evaluates: the answer's `asks`) is asked only while it holds (A's return, while A is down).
  const offVariant = (set, variant) => set.dataset.predictVariant !== undefined && set.dataset.predictVariant !== variant;
  const premiseHolds = (set, asks) => set.dataset.predictWhen === undefined || asks.includes(set.dataset.predictButton);
  const unanswered = (set) => !set.hidden && !set.querySelector('[data-role="predict-result"]:not([hidden])');

  section.addEventListener("playground:answer", (event) => {
    const variant = event.detail?.variant;
    const asks = event.detail?.asks || [];
    const press = pending.shift();
    for (const set of sets) if (offVariant(set, variant)) set.hidden = true;
    if (!press) {
      // The first view, or a reconnect: nothing was pressed. A question asked from the start waits for its premise.
      for (const set of sets) if (unanswered(set) && !premiseHolds(set, asks)) set.hidden = true;
      return;
    }
    // A press the simulation refused ("A is back" while A is up) happened to nothing: it answers no
    // question, asks none and puts none away.
    if (press.button && !press.undo && !press.reset && (event.detail?.view?.log?.at(-1)?.lines || []).some((line) => line.tone === "rejected")) return;
    for (const set of sets) {
      if (offVariant(set, variant)) continue;
      const after = set.dataset.predictAfter;
      const holds = premiseHolds(set, asks);
      // A question answered once (A back, then a turn) is not asked again until a reset: its moment then
      // puts it away like any other press. One asked from the start is asked afresh.
      if (press.reset) {
        delete set.dataset.revealed;
        if (!after) {
          if (holds) ask(set);
          else set.hidden = true;
          continue;
        }
      }
      if (press.button === set.dataset.predictButton && unanswered(set)) {
        // A walk-through's press reveals it too, picked or not: left open, the question would ask about
        // a moment already past ("If A dies now", with A dead).
        reveal(set, press.picked);
      } else if (after && press.button === after && !("revealed" in set.dataset) && holds) ask(set);
      else if (after || (unanswered(set) && !holds)) set.hidden = true;
      // One asked from the start and put away while its premise failed is asked again once it holds.
      else if (!after && set.hidden && holds && !("revealed" in set.dataset)) ask(set);
    }
  });
  // After the handler above has asked, revealed or put away the questions (listeners run in order).
  section.addEventListener("playground:answer", () => {
    unskip();
    point();
  });
}

for (const section of document.querySelectorAll('[data-panel="playground"]')) mountPredictions(section);
