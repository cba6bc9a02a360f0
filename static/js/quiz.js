// Quick checks: the same forms work without JavaScript; with it, feedback comes without a reload.
import { fill, h } from "./dom.js";

export function mountQuiz(section) {
  const slug = section.dataset.quiz;
  const scoreEl = section.querySelector('[data-role="score"]');
  section.addEventListener("submit", async (event) => {
    const form = event.target.closest("form.question");
    if (!form) return;
    event.preventDefault();
    const feedback = form.querySelector('[data-role="feedback"]');
    const chosen = form.querySelector('input[name="choice"]:checked');
    if (!chosen) {
      fill(feedback, h("p", { class: "verdict verdict-missing" }, h("strong", {}, "Pick an answer first.")));
      return;
    }
    let resp;
    try {
      resp = await fetch(`/api/quiz/${slug}/${form.dataset.question}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ choice: chosen.value }),
      });
    } catch {
      form.submit();
      return;
    }
    const result = await resp.json();
    if (!resp.ok) {
      fill(feedback, h("p", { class: "verdict verdict-missing" }, result.error));
      return;
    }
    const right = form.querySelector(`input[value="${result.answer}"]`).parentElement.textContent.trim();
    fill(
      feedback,
      result.correct
        ? h("p", { class: "verdict verdict-right" }, h("strong", {}, "Correct."), ` ${result.explanation}`)
        : h("p", { class: "verdict verdict-wrong" }, h("strong", {}, "Not quite."), ` The answer is: ${right}. ${result.explanation}`),
    );
    const s = result.score;
    scoreEl.textContent = `Score: ${s.correct} of ${s.total} correct (${s.answered} answered)`;
  });
}
