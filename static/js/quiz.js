// Quick checks: the same forms work without JavaScript; with it, feedback comes without a reload.
// The page holds the learner's answers (localStorage), so a server restart, another worker or a
// lost cookie loses nothing; the server grades them every time and never takes a verdict from here.
import { fill, h } from "./dom.js";
import { local } from "./store.js";
import { t } from "./i18n.js";
import { appUrl } from "./transport.js";

const KEY = (slug) => `churn-lab:quiz:${slug}`;

export function mountQuiz(section) {
  const slug = section.dataset.quiz;
  const scoreEl = section.querySelector('[data-role="score"]');
  const held = () => local.get(KEY(slug)) || {};

  function showScore(s) {
    scoreEl.textContent = t("quiz.score", s);
  }

  function verdict(form, result) {
    const feedback = form.querySelector('[data-role="feedback"]');
    const rightInput = form.querySelector(`input[value="${CSS.escape(result.answer)}"]`);
    const right = rightInput ? rightInput.parentElement.textContent.trim() : result.answer;
    fill(
      feedback,
      result.correct
        ? h("p", { class: "verdict verdict-right" }, h("strong", {}, t("quiz.right")), " ", h("span", { "data-content": "" }, result.explanation))
        : h("p", { class: "verdict verdict-wrong" }, h("strong", {}, t("quiz.wrong")), ` ${t("quiz.the_answer", { answer: right })} `, h("span", { "data-content": "" }, result.explanation)),
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
    const chosen = form.querySelector('input[name="choice"]:checked');
    if (!chosen) {
      fill(feedback, h("p", { class: "verdict verdict-missing" }, h("strong", {}, t("quiz.missing"))));
      return;
    }
    let reply;
    try {
      reply = await post(appUrl(`api/quiz/${slug}/${form.dataset.question}`), { choice: chosen.value, answers: held() });
    } catch {
      form.submit();
      return;
    }
    if (!reply.ok) {
      fill(feedback, h("p", { class: "verdict verdict-missing" }, reply.result.error));
      return;
    }
    local.set(KEY(slug), { ...held(), [form.dataset.question]: reply.result.choice });
    verdict(form, reply.result);
    showScore(reply.result.score);
    // For progress and statements (progress.js): the server's verdict, never the page's own.
    const { question, choice, correct, score } = reply.result;
    const title = form.querySelector("legend")?.textContent.replace(/\s+/g, " ").trim();
    document.dispatchEvent(new CustomEvent("lesson:answered", { detail: { quiz: slug, question, choice, correct, score, title } }));
  });
  // Answers from a progress file or the portal: held like the learner's own, then graded again.
  section.addEventListener("lesson:load-answers", (event) => {
    local.set(KEY(slug), { ...held(), ...event.detail.answers });
    restore();
  });
  restore();
}
