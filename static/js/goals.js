// Goals: a playground panel with a goal shows it, hints in stages, and whether the goal is
// reached. The simulation decides: every answer carries `goal: {met: true|false}` (or `goal: null` when
// the panel has none); the page only shows it. Reaching it is said in words, in the goal block and in
// the panel's status line, and told to the rest of the page as a `lesson:goal` event. A goal the
// learner's saved progress says was reached (this browser's, a portal's resume, a file) reads "reached
// earlier" until the playground reaches it again: progress.js names those goals in
// <html data-goals-reached> and a `lesson:goals-known` event on document.
import { h } from "./dom.js";
import { t } from "./i18n.js";
const DONE = () => t("goal.done");
const NOT_YET = () => t("goal.open");
const BEFORE = () => t("goal.before");
const WALKED = () => t("goal.walked");

// Staged hints: each press of the hint button shows the next stage, the last one being the solution, so
// a learner who wants a nudge is not handed the whole sequence.
function mountHints(section) {
  const box = section.querySelector('[data-role="hints"]');
  if (!box) return;
  const stages = [...box.querySelectorAll("li")];
  const button = box.querySelector('[data-action="hint"]');
  button.addEventListener("click", () => {
    const next = stages.find((li) => li.hidden);
    if (!next) return;
    next.hidden = false;
    const left = stages.filter((li) => li.hidden).length;
    if (!left) {
      button.remove();
      next.tabIndex = -1;
      next.focus();
    } else {
      button.textContent = left === 1 ? button.dataset.last : button.dataset.more;
      // The focus stays on the button: the status line says the hint that appeared above it.
      section.querySelector('[data-role="announce"]').textContent = next.textContent;
    }
  });
}

function mountGoal(section) {
  const block = section.querySelector('[data-role="goal"]');
  if (!block) return;
  const state = block.querySelector('[data-role="goal-state"]');
  const announce = section.querySelector('[data-role="announce"]');
  const text = block.dataset.goalText;
  const flag = h("p", { class: "goal-flag", "aria-hidden": "true", hidden: "" });
  section.querySelector(".stage > .controls")?.append(flag);
  // unknown until the first answer
  let met = null;
  let everMet = false;
  // The goal holds by a walk-through's presses: not reached by the learner until it has stopped holding.
  let metByScenario = false;
  // The block says the walk-through reached the goal (WALKED), until an answer says otherwise.
  let walked = false;

  const known = (panels) => {
    if (everMet || !panels.includes(section.dataset.panelId)) return;
    everMet = true;
    if (met !== true) state.textContent = BEFORE();
  };
  // Whichever script runs first: the list already made, and any later one.
  known((document.documentElement.dataset.goalsReached || "").split(" "));
  document.addEventListener("lesson:goals-known", (event) => known(event.detail.panels));

  section.addEventListener("playground:answer", (event) => {
    const goal = event.detail && event.detail.goal;
    // no goal to check, or a server that does not say
    if (!goal || typeof goal.met !== "boolean") return;
    // A scenario's presses are not the learner reaching the goal: the block waits for their own, and a
    // press of theirs that leaves the scenario's state as it was (a refusal, a turn) does not reach it.
    if (section.hasAttribute("data-scenario-driving")) {
      metByScenario = goal.met;
      // Played again from the start: the way to the goal said after the last walk-through no longer holds.
      if (!goal.met && walked) {
        walked = false;
        state.textContent = (everMet ? BEFORE : NOT_YET)();
      }
      return;
    }
    if (!goal.met) metByScenario = false;
    const nowMet = goal.met && !metByScenario;
    if (nowMet) everMet = true;
    // Held by a walk-through's presses, it may never stop holding by the learner's own (a count only grows):
    // say how to reach it.
    walked = goal.met && !nowMet;
    state.textContent = (nowMet ? DONE : walked ? WALKED : everMet ? BEFORE : NOT_YET)();
    block.classList.toggle("done", nowMet);
    // On a phone the goal block and the short line lie above the screen: the controls' bar says it too
    // (lesson.css shows it there only). Hidden from screen readers, which hear it in the status line.
    flag.hidden = !nowMet || block.hidden;
    flag.textContent = DONE();
    // A quiz task standing in for the goal (quiz.js) is the aim in view: a hidden goal counts, unsaid.
    if (nowMet && met === false) {
      if (!block.hidden) {
        // Appended after the playground's own summary, so a screen reader hears both.
        if (announce) announce.textContent = `${announce.textContent} ${t("goal.reached", { goal: text })}`;
        // And in the short line in view: the goal block may lie above the screen by now.
        const said = section.querySelector(".said");
        if (said) said.textContent = `${said.textContent} ${DONE()}`.trim();
      }
      document.dispatchEvent(new CustomEvent("lesson:goal", { detail: { panel: section.dataset.panelId, goal: text } }));
    }
    met = nowMet;
  });
}

for (const section of document.querySelectorAll('[data-panel="playground"]')) {
  mountGoal(section);
  mountHints(section);
}
