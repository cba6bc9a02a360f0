// The learner's progress in this lesson: sections seen, answers, playground goals reached. Each
// step becomes an xAPI statement (embed.js posts it to a configured parent; with a learning record
// store configured the page also sends it to the server, which forwards it). Progress can be
// downloaded as a file and loaded again; answers loaded are graded again by the server.
import { t } from "./i18n.js";
import { local } from "./store.js";

const FORMAT = "mcp-churn-lab-progress";
const ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,79}$/;
const MAX_ITEMS = 200;
const MAX_ANSWER = 12000; // a task's log line (lesson/playground/tasks.py MAX_LINE)

function idList(value) {
  return Array.isArray(value) ? [...new Set(value.filter((x) => typeof x === "string" && ID.test(x)))].slice(0, MAX_ITEMS) : [];
}

/** Progress from a file or a portal's resume message, in either shape; null when unusable. A file saved
 * on a former lesson this one was split from (its slug in `former`) is read too, marked `from` it: the
 * caller keeps what this page has. */
export function readProgress(data, slug, former = []) {
  if (!data || typeof data !== "object" || Array.isArray(data)) return null;
  if (data.format === FORMAT) {
    if (data.v !== 1) return null;
    const read = { sections: idList(data.sections), answers: answerMap(data.answers), goals: idList(data.goals) };
    if (!data.lesson || data.lesson === slug) return read;
    return former.includes(data.lesson) ? { ...read, from: data.lesson } : null;
  }
  if (data.v === 1 && ("s" in data || "a" in data || "g" in data)) {
    // The compact shape the SCORM launch page keeps in cmi.suspend_data.
    return { sections: idList(data.s), answers: answerMap(data.a), goals: idList(data.g) };
  }
  return null;
}

function answerMap(value) {
  const out = {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return out;
  for (const [q, a] of Object.entries(value).slice(0, MAX_ITEMS)) {
    const choice = Array.isArray(a) ? a[0] : a; // the compact shape keeps [choice, success]
    // A choice id, or a task's playground log as one line (graded again by the server when loaded).
    if (ID.test(q) && typeof choice === "string" && choice.length <= MAX_ANSWER) out[q] = choice;
  }
  return out;
}

/** Of progress saved on a former lesson, what this page has: its questions, playgrounds and sections. */
function keepWhatIsHere(progress) {
  const here = (selector, attr) => new Set([...document.querySelectorAll(selector)].map((el) => el.getAttribute(attr)));
  const questions = here("[data-question]", "data-question");
  const panels = here("[data-panel-id]", "data-panel-id");
  const sections = here("article.lesson h2[id]", "id");
  return {
    from: progress.from,
    sections: progress.sections.filter((s) => sections.has(s)),
    answers: Object.fromEntries(Object.entries(progress.answers).filter(([q]) => questions.has(q))),
    goals: progress.goals.filter((g) => panels.has(g)),
  };
}

export function mountProgress({ emitter, slug, quiz, box }) {
  const former = ((box && box.dataset.former) || "").split(" ").filter(Boolean);
  const KEY = `churn-lab:progress:${slug}`;
  const QUIZ = `churn-lab:quiz:${slug}`;
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
    try {
      fn();
    } catch (err) {
      console.warn("statement not sent:", err.message); // a malformed id never stops the lesson
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
    for (const h of headings) if (!state.sections.includes(h.id)) seen.observe(h);
  }

  document.addEventListener("lesson:answered", (event) => {
    const { question, choice, correct, score, title, task } = event.detail;
    safely(() => emitter.answered(question, choice, correct, title, Boolean(task)));
    if (score && score.total > 0 && score.answered >= score.total) {
      const key = `${score.correct}/${score.total}`;
      if (state.scored === key) return; // the same result again says nothing new
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
  window.addEventListener("lesson:resume", (event) => {
    const progress = readProgress(event.detail.progress, slug);
    if (progress) load(progress);
  });

  if (!box) return;
  box.hidden = false; // the buttons need this script
  box.querySelector('[data-action="export-progress"]').addEventListener("click", () => {
    const data = {
      format: FORMAT,
      v: 1,
      lesson: slug,
      saved: new Date().toISOString(),
      sections: state.sections,
      answers: local.get(QUIZ) || {},
      goals: state.goals,
    };
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: `${slug}-progress.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
    say(t("progress.downloading"));
  });
  box.querySelector('[data-action="import-progress"]').addEventListener("change", async (event) => {
    const input = event.target;
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    let progress = null;
    try {
      progress = file.size <= 256 * 1024 ? readProgress(JSON.parse(await file.text()), slug, former) : null;
    } catch {
      progress = null;
    }
    if (!progress) {
      say(t("progress.bad_file"));
      return;
    }
    const n = (k, key) => t(`${key}.${k === 1 ? "one" : "many"}`, { n: k });
    if (progress.from) {
      // Saved before the lesson was split: this lesson takes its part, and says where the rest is.
      progress = keepWhatIsHere(progress);
      const answers = Object.keys(progress.answers).length;
      load(progress);
      if (!answers && !progress.goals.length && !progress.sections.length) {
        say(t("progress.former.none", { slug: progress.from }));
      } else {
        say(
          t("progress.former", {
            slug: progress.from,
            answers: n(answers, "progress.answers"),
            goals: n(progress.goals.length, "progress.goals"),
          }),
        );
      }
      return;
    }
    load(progress);
    say(
      t("progress.loaded", {
        sections: n(progress.sections.length, "progress.sections"),
        answers: n(Object.keys(progress.answers).length, "progress.answers"),
        goals: n(progress.goals.length, "progress.goals"),
      }),
    );
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
      }).catch(() => {}); // the server queues and retries; the lesson never waits for the store
    }
  };
  window.addEventListener("lesson:statement", (event) => {
    if (queue.push(event.detail) === 1) setTimeout(flush, 0); // statements made together go together
  });
}
