// The course index: each lesson's quick-check progress from the answers this browser holds,
// graded on the server (the server renders the cookie's answers for pages without JavaScript).
// The bar counts correct answers; the text also says how many are still to answer.
import { heldAnswers } from "./quiz.js";

function describe(score) {
  if (!score.total) return "Quick check: none";
  const rest = score.total - score.answered;
  return `Quick check: ${score.correct} of ${score.total} correct, ${rest ? `${rest} still to answer` : "all answered"}`;
}

async function fill(item) {
  const answers = heldAnswers(item.dataset.progress);
  if (!Object.keys(answers).length) return; // nothing held here: the server's rendering stands
  let score;
  try {
    const resp = await fetch(`/api/quiz/${encodeURIComponent(item.dataset.progress)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ answers }),
    });
    if (!resp.ok) return;
    score = (await resp.json()).score;
  } catch {
    return; // offline: keep what the server rendered
  }
  item.querySelector('[data-role="progress-text"]').textContent = describe(score);
  const bar = item.querySelector("progress");
  if (bar) {
    bar.max = score.total;
    bar.value = score.correct;
    bar.textContent = `${score.correct} of ${score.total} correct`;
  }
}

for (const item of document.querySelectorAll("[data-progress]")) fill(item);
