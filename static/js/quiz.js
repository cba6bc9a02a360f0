// Quick checks: the same forms work without JavaScript; with it, feedback comes without a reload.
// The page holds the learner's answers (localStorage), so a server restart, another worker or a
// lost cookie loses nothing; the server grades them every time and never takes a verdict from here.
import { fill, h } from "./dom.js";
import { logLine } from "./presses.js";
import { local, playgroundKey, quizKey, session } from "./store.js";
import { need, t } from "./i18n.js";
import { appUrl } from "./transport.js";

await need("quiz"); // this module's own messages (i18n.js)

const KEY = quizKey;

const playgroundOf = (panel) => document.querySelector(`section[data-panel-id="${CSS.escape(panel)}"]`);

// The step of a playground the learner is looking at, read from the timeline (timeline.js): its box is
// marked "past" while the learner looks back, and then the slider's value is the step on view. (At the
// latest step the value may lag behind a new maximum, so it is only read while looking back.) Null when
// the latest step is in view.
function viewedStep(panel) {
  const slider = document.getElementById(`${panel}-timeline`);
  if (!slider || !playgroundOf(panel)?.contains(slider) || !slider.closest(".timeline")?.classList.contains("past")) return null;
  const at = Number(slider.value);
  return Number.isInteger(at) && at >= 0 ? at : null;
}

/** A playground's log as one line, panel:era:variant:presses (lesson/playground/tasks.py reads it), cut at the step
 * on view when the learner looks back in time (what they see is what is checked); null before a press. */
export function taskLine(panel) {
  const log = session.get(playgroundKey(panel));
  if (!log || !Array.isArray(log.events) || typeof log.era !== "string") return null;
  const at = viewedStep(panel);
  const events = at === null ? log.events : log.events.slice(0, at);
  if (!events.length) return null;
  return logLine(panel, { ...log, events });
}

// A way back from the playground to the question that sent the learner there: right after the
// playground's buttons, the task in words and a link that puts the focus back on the question's check
// button. One per playground, for the question followed last; gone once used. Until then the task
// stands in for the playground's own goal, which asks for something else: one aim in view.
function offerWayBack(section, form) {
  let back = section.querySelector('[data-role="back-to-question"]');
  const task = form.querySelector("legend [data-content]")?.textContent.trim() || "";
  const goal = section.querySelector('[data-role="goal"]');
  // The phone's "goal reached" flag in the controls bar goes and comes back with the goal it speaks of.
  const flag = section.querySelector(".goal-flag");
  const showGoal = (on) => {
    if (goal) goal.hidden = !on;
    if (flag) flag.hidden = !on || !goal?.classList.contains("done");
  };
  showGoal(false);
  if (!back) {
    const link = h("a", { href: `#${form.id}` }, t("quiz.task.back"));
    const what = h("span", { "data-role": "task-text" });
    back = h("p", { class: "back-to-question", "data-role": "back-to-question" }, h("strong", {}, t("quiz.task.doing")), " ", what, " ", link);
    const controls = section.querySelector(".controls");
    if (controls) controls.after(back);
    else section.querySelector("h3")?.after(back);
    link.addEventListener("click", (event) => {
      const target = document.getElementById(link.getAttribute("href").slice(1));
      const check = target?.querySelector('[data-role="task-check"]');
      if (!check) return;
      event.preventDefault();
      back.remove();
      showGoal(true);
      check.scrollIntoView({ block: "center", behavior: "instant" });
      check.focus({ preventScroll: true });
    });
  }
  back.querySelector("a").setAttribute("href", `#${form.id}`);
  back.querySelector('[data-role="task-text"]').textContent = task;
}

// "Do it in the playground": bring the playground into view and put the focus on its first button.
function goToPlayground(link) {
  const form = link.closest("form");
  const section = playgroundOf(form.dataset.taskPanel);
  if (!section) return false;
  const first = section.querySelector("button[data-button]:not([disabled])");
  const heading = section.querySelector("h3");
  offerWayBack(section, form);
  // At once: focusing a button of a phone's sideways row brings it into view, which would stop a smooth
  // scroll part-way.
  section.scrollIntoView({ block: "start", behavior: "instant" });
  // The task, said on arrival: a screen reader, at the first button, would not meet it for several Tabs.
  const announce = section.querySelector('[data-role="announce"]');
  if (announce) announce.textContent = section.querySelector('[data-role="back-to-question"]').textContent;
  if (first) first.focus({ preventScroll: true });
  else if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  return true;
}

// Why the server would not grade an answer, from the catalogue: the server sends a code and the values
// for its message (and an English "error" for logs and API clients, not shown here).
function refusal(result) {
  const key = `quiz.refused.${result.code}`;
  const text = typeof result.code === "string" ? t(key, result.params || {}) : key;
  return text === key ? t("quiz.refused") : text;
}

/** The answers this browser holds for one lesson's quick check: {question id: choice id}. */
const heldAnswers = (slug) => local.get(KEY(slug)) || {};

export function mountQuiz(section) {
  const slug = section.dataset.quiz;
  const scoreEl = section.querySelector('[data-role="score"]');
  const held = () => heldAnswers(slug);

  function showScore(s) {
    scoreEl.textContent = t("quiz.score", s);
  }

  // The link under the feedback to the part of the lesson the question is about.
  const seeAlso = (result) =>
    result.see ? h("p", { class: "see" }, `${t("quiz.see")} `, h("a", { href: result.see.href, "data-content": "" }, result.see.title)) : "";

  // After a later answer, which scores nothing: what the first one, which counts, was.
  function firstNote(form, result) {
    if (result.task || result.counted !== false || result.scored === result.choice) return "";
    const input = form.querySelector(`input[value="${CSS.escape(result.scored)}"]`);
    const first = input ? input.parentElement.querySelector("[data-content]").textContent.trim() : result.scored;
    return h("p", { class: "verdict-first" }, result.scored_correct ? t("quiz.first.right") : t("quiz.first.wrong", { first }));
  }

  function verdict(form, result) {
    const feedback = form.querySelector('[data-role="feedback"]');
    verdictOnly(form, result, feedback);
    for (const extra of [firstNote(form, result), seeAlso(result)]) if (extra) feedback.append(extra);
  }

  function verdictOnly(form, result, feedback) {
    if (result.task && result.kept) {
      // Done once, it stays done: the playground has moved on since, and the page says so.
      fill(
        feedback,
        h("p", { class: "verdict verdict-right" }, h("strong", {}, t("quiz.task.kept")), " ", t("quiz.task.kept_why")),
        h("p", { class: "verdict verdict-right" }, h("span", { "data-content": "" }, result.explanation)),
      );
      return;
    }
    if (result.task) {
      fill(
        feedback,
        result.correct
          ? h("p", { class: "verdict verdict-right" }, h("strong", {}, t("quiz.right")), " ", h("span", { "data-content": "" }, result.explanation))
          : h("p", { class: "verdict verdict-wrong" }, h("strong", {}, t("quiz.task.not_yet")), " ", t("quiz.task.hint", { hint: result.hint })),
      );
      return;
    }
    const rightInput = form.querySelector(`input[value="${CSS.escape(result.answer)}"]`);
    const right = rightInput ? rightInput.parentElement.querySelector("[data-content]").textContent.trim() : result.answer;
    // A wrong answer: the right choice is marked in the list for the eye, and named in the verdict for a
    // screen reader (the explanation that follows says it again in its own words).
    for (const old of form.querySelectorAll(".answer-mark")) old.remove();
    if (!result.correct && rightInput) rightInput.parentElement.append(h("span", { class: "answer-mark", "aria-hidden": "true" }, t("quiz.answer_mark")));
    fill(
      feedback,
      result.correct
        ? h("p", { class: "verdict verdict-right" }, h("strong", {}, t("quiz.right")), " ", h("span", { "data-content": "" }, result.explanation))
        : h("p", { class: "verdict verdict-wrong" }, h("strong", {}, t("quiz.wrong")), " ", h("span", { class: "visually-hidden" }, t("quiz.the_answer", { answer: right })), " ", h("span", { "data-content": "" }, result.explanation)),
    );
  }

  async function post(url, body) {
    const resp = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { ok: resp.ok, result: await resp.json() };
  }

  async function restore() {
    const answers = held();
    if (!Object.keys(answers).length) return;
    let reply;
    try {
      reply = await post(appUrl(`api/quiz/${slug}`), { answers });
    } catch {
      return;
    }
    if (!reply.ok) return;
    for (const [qid, result] of Object.entries(reply.result.results)) {
      const form = section.querySelector(`form.question[data-question="${CSS.escape(qid)}"]`);
      if (!form) continue;
      const input = form.querySelector(`input[name="choice"][value="${CSS.escape(result.choice)}"]`);
      if (input) input.checked = true;
      verdict(form, result);
    }
    showScore(reply.result.score);
  }

  section.addEventListener("submit", async (event) => {
    const form = event.target.closest("form.question");
    if (!form) return;
    event.preventDefault();
    const feedback = form.querySelector('[data-role="feedback"]');
    const task = form.dataset.taskPanel;
    // A task sends the playground's log as the page holds it; the server replays it and decides.
    const given = task ? taskLine(task) : form.querySelector('input[name="choice"]:checked')?.value;
    if (!given) {
      const missing = task ? t("quiz.task.empty") : t("quiz.missing");
      fill(feedback, h("p", { class: "verdict verdict-missing" }, h("strong", {}, missing)));
      // Tie the message to the choices and go to them (WCAG 3.3.1): the answer is given there.
      const radios = [...form.querySelectorAll('input[name="choice"]')];
      for (const r of radios) r.setAttribute("aria-invalid", "true");
      radios[0]?.focus();
      return;
    }
    const body = task ? { log: given, answers: held() } : { choice: given, answers: held() };
    let reply;
    try {
      reply = await post(appUrl(`api/quiz/${slug}/${form.dataset.question}`), body);
    } catch {
      // The server cannot be reached: say so and keep the choice for another try (posting the form
      // instead would only trade the lesson for the browser's error page).
      fill(feedback, h("p", { class: "verdict verdict-missing" }, t("quiz.offline")));
      return;
    }
    if (!reply.ok) {
      fill(feedback, h("p", { class: "verdict verdict-missing" }, refusal(reply.result)));
      return;
    }
    // The page keeps the answer that scores: the first for a choice (the server says which), the log
    // graded for a task.
    const keep = task ? reply.result.choice : reply.result.scored;
    local.set(KEY(slug), { ...held(), [form.dataset.question]: keep });
    verdict(form, reply.result);
    showScore(reply.result.score);
    // A later answer to a choice question changes nothing that is reported: no statement, no score.
    if (!task && reply.result.counted === false) return;
    // For progress and statements (progress.js): the server's verdict, never the page's own.
    const { question, choice, correct, score } = reply.result;
    const title = form.querySelector("legend")?.textContent.replace(/\s+/g, " ").trim();
    // A task's "choice" is the playground log that did it.
    const detail = { quiz: slug, question, choice, correct, score, title, task: Boolean(task) };
    document.dispatchEvent(new CustomEvent("lesson:answered", { detail }));
  });
  // A verdict speaks of the choice it graded: picking another clears it until that one is checked.
  section.addEventListener("change", (event) => {
    const form = event.target.closest("form.question");
    if (form && !form.dataset.taskPanel && event.target.name === "choice") {
      fill(form.querySelector('[data-role="feedback"]'));
      for (const r of form.querySelectorAll('input[name="choice"]')) r.removeAttribute("aria-invalid");
    }
  });
  // Task questions need this script: show their check button, drop the note that says so.
  for (const form of section.querySelectorAll("form[data-task-panel]")) {
    form.querySelector('[data-role="task-check"]').hidden = false;
    form.querySelector('[data-role="task-noscript"]')?.remove();
  }
  section.addEventListener("click", (event) => {
    const link = event.target.closest('a[data-action="go-to-playground"]');
    if (link && goToPlayground(link)) event.preventDefault();
    else if (event.target.closest('.see a[href^="#"]')) keepPlace(event.target.closest("form"));
  });
  // Answers from a progress file or the portal: held like the learner's own, then graded again. An
  // answer this page already holds for a choice question was the first, and stays.
  section.addEventListener("lesson:load-answers", (event) => {
    const mine = held();
    const tasks = new Set([...section.querySelectorAll("form[data-task-panel]")].map((f) => f.dataset.question));
    const kept = Object.fromEntries(Object.entries(mine).filter(([q]) => !tasks.has(q)));
    local.set(KEY(slug), { ...mine, ...event.detail.answers, ...kept });
    restore();
  });
  restore();
}

// A feedback link goes up to the part of the lesson the question is about. The panels between draw
// themselves as they come near (a stepper's moment, a playground's view) and push the question down,
// so the browser's own Back, which returns to the old scroll offset, would land a screen or more above
// it. The history entry keeps the question instead, and Back brings it to where it was on the screen.
function keepPlace(form) {
  if (!form?.id) return;
  history.replaceState({ ...history.state, quizAt: form.id, quizTop: form.getBoundingClientRect().top }, "");
}
window.addEventListener("popstate", (event) => {
  const form = event.state?.quizAt && document.getElementById(event.state.quizAt);
  if (form) requestAnimationFrame(() => window.scrollBy(0, form.getBoundingClientRect().top - event.state.quizTop));
});

// The course index: each lesson's quick-check progress from the answers this browser holds,
// graded on the server (the server renders the cookie's answers for pages without JavaScript).
// The bar counts correct answers; the text also says how many are still to answer.
function describeProgress(score) {
  if (!score.total) return `${t("quiz.index.check")} ${t("quiz.index.check.none")}`;
  const rest = score.total - score.answered;
  const tail = rest ? t("quiz.index.check.left", { left: rest }) : t("quiz.index.check.all");
  return `${t("quiz.index.check")} ${t("quiz.index.check.score", { correct: score.correct, total: score.total })}${tail}`;
}

async function fillProgress(item) {
  const answers = heldAnswers(item.dataset.progress);
  if (!Object.keys(answers).length) return; // nothing held here: the server's rendering stands
  let score;
  try {
    const resp = await fetch(appUrl(`api/quiz/${encodeURIComponent(item.dataset.progress)}`), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ answers }),
    });
    if (!resp.ok) return;
    score = (await resp.json()).score;
  } catch {
    return; // offline: keep what the server rendered
  }
  item.querySelector('[data-role="progress-text"]').textContent = describeProgress(score);
  const bar = item.querySelector("progress");
  if (bar) {
    bar.hidden = !score.answered;
    bar.max = score.total;
    bar.value = score.correct;
    bar.textContent = t("quiz.index.progress.text", { correct: score.correct, total: score.total });
  }
}

// app.js loads this module on the course index (its progress items) and where a quick check nears the screen.
for (const item of document.querySelectorAll("[data-progress]")) fillProgress(item);
