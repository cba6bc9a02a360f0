// The learner's progress in this lesson: sections seen, answers, playground goals reached. Each
// step becomes an xAPI statement (embed.js, fetched only in a frame or with a learning record store,
// posts it to a configured parent; with a learning record store configured the page also sends it to
// the server, which forwards it). Progress can be downloaded as a file and loaded again; answers
// loaded are graded again by the server. That code (progress-file.js) and Start over's
// (startover.js) come at their first use: a first view uses neither.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { local, progressKey, SAFE_ID } from "./store.js";

export const MAX_ITEMS = 200;

export function idList(value) {
  return Array.isArray(value) ? [...new Set(value.filter((x) => typeof x === "string" && SAFE_ID.test(x)))].slice(0, MAX_ITEMS) : [];
}

const fileCode = () => import("./progress-file.js");

export function mountProgress({ emitter, slug, quiz, box }) {
  const former = ((box && box.dataset.former) || "").split(" ").filter(Boolean);
  const KEY = progressKey(slug);
  const saved = local.get(KEY) || {};
  const state = { sections: idList(saved.sections), goals: idList(saved.goals), scored: saved.scored ?? null };
  const save = () => local.set(KEY, state);
  // Goal blocks show what progress says was reached, even when the playground no longer shows it.
  const tellGoals = () => {
    document.documentElement.dataset.goalsReached = state.goals.join(" ");
    document.dispatchEvent(new CustomEvent("lesson:goals-known", { detail: { panels: [...state.goals] } }));
  };
  if (state.goals.length) tellGoals();
  const say = (text) => {
    const el = box && box.querySelector('[data-role="progress-status"]');
    if (el) el.textContent = text;
  };
  const safely = (fn) => {
    // not in a frame, no record store: nobody to tell
    if (!emitter) return;
    try {
      fn();
    } catch (err) {
      // a malformed id never stops the lesson
      console.warn("statement not sent:", err.message);
    }
  };

  // A section counts as experienced once its heading has been on screen.
  const headings = [...document.querySelectorAll("article.lesson h2[id]")];
  if (headings.length && "IntersectionObserver" in window) {
    const seen = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        seen.unobserve(entry.target);
        const id = entry.target.id;
        if (state.sections.includes(id)) continue;
        state.sections.push(id);
        save();
        safely(() => emitter.experienced(id, entry.target.textContent.trim()));
      }
    });
    for (const heading of headings) if (!state.sections.includes(heading.id)) seen.observe(heading);
  }

  document.addEventListener("lesson:answered", (event) => {
    const { question, choice, correct, score, title, task } = event.detail;
    safely(() => emitter.answered(question, choice, correct, title, Boolean(task)));
    if (score && score.total > 0 && score.answered >= score.total) {
      const key = `${score.correct}/${score.total}`;
      // the same result again says nothing new
      if (state.scored === key) return;
      state.scored = key;
      save();
      const name = document.querySelector("article.lesson h1")?.textContent.trim();
      safely(() => emitter.lessonCompleted(name));
      safely(() => emitter.lessonScored(score.correct, score.total, undefined, name));
    }
  });

  document.addEventListener("lesson:goal", (event) => {
    const { panel, goal } = event.detail || {};
    if (typeof panel !== "string" || state.goals.includes(panel)) return;
    state.goals.push(panel);
    save();
    const title = typeof goal === "string" ? goal : goal && goal.text;
    safely(() => emitter.goalCompleted(panel, title));
  });

  function load(progress) {
    for (const s of progress.sections) if (!state.sections.includes(s)) state.sections.push(s);
    for (const g of progress.goals) if (!state.goals.includes(g)) state.goals.push(g);
    save();
    if (state.goals.length) tellGoals();
    if (quiz && Object.keys(progress.answers).length) {
      quiz.dispatchEvent(new CustomEvent("lesson:load-answers", { detail: { answers: progress.answers } }));
    }
  }

  // A portal (the SCORM launch page) hands back what it saved for a returning learner.
  window.addEventListener("lesson:resume", async (event) => {
    const progress = (await fileCode()).readProgress(event.detail.progress, slug);
    if (progress) load(progress);
  });

  if (!box) return;
  // the buttons need this script
  box.hidden = false;
  // Each answer of the file's code says what it did; a fetch that fails says so in the same line.
  const failed = () => say(t("panel.failed"));
  box.querySelector('[data-action="export-progress"]').addEventListener("click", () => {
    fileCode().then((m) => say(m.download(slug, state)), failed);
  });
  box.querySelector('[data-action="import-progress"]').addEventListener("change", (event) => {
    const input = event.target;
    const file = input.files && input.files[0];
    input.value = "";
    if (file) fileCode().then((m) => m.upload(file, slug, former, load), failed).then((said) => said && say(said));
  });
  // Start over: its button with "Your progress", its confirmation's code at the first press.
  const button = h("button", { type: "button", class: "start-over", "aria-haspopup": "dialog" }, t("offer.start_over"));
  box.querySelector(".actions").append(button);
  button.addEventListener("click", () => {
    import("./startover.js").then((m) => m.startOver(button, slug), failed);
  });
}

/** Send statements to the server too, when it forwards them to a learning record store. */
export function relayStatements(url) {
  let queue = [];
  const flush = () => {
    while (queue.length) {
      const batch = queue.slice(0, 20);
      queue = queue.slice(20);
      fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(batch),
        keepalive: true,
      // the server queues and retries; the lesson never waits for the store
      }).catch(() => {});
    }
  };
  window.addEventListener("lesson:statement", (event) => {
    // statements made together go together
    if (queue.push(event.detail) === 1) setTimeout(flush, 0);
  });
}
