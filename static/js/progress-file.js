// Progress as a file (download, load) and as a portal's resume message: read and checked here, fetched
// by progress.js at the first use, since a first view neither downloads nor loads progress.
import { need, t } from "./i18n.js";
import { idList, MAX_ITEMS } from "./progress.js";
import { local, quizKey, SAFE_ID } from "./store.js";

await need("progress"); // this module's own messages (i18n.js)

const FORMAT = "mcp-churn-lab-progress";
const MAX_ANSWER = 12000; // a task's log line (lesson/playground/tasks.py MAX_LINE)

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
    if (SAFE_ID.test(q) && typeof choice === "string" && choice.length <= MAX_ANSWER) out[q] = choice;
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

/** Save the lesson's progress (`state`: sections read, goals reached) as a file; returns what to say. */
export function download(slug, state) {
  const data = {
    format: FORMAT,
    v: 1,
    lesson: slug,
    saved: new Date().toISOString(),
    sections: state.sections,
    answers: local.get(quizKey(slug)) || {},
    goals: state.goals,
  };
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: `${slug}-progress.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
  return t("progress.downloading");
}

/** Read a progress file the learner picked and hand what this page takes to `load`; returns what to say. */
export async function upload(file, slug, former, load) {
  let progress = null;
  try {
    progress = file.size <= 256 * 1024 ? readProgress(JSON.parse(await file.text()), slug, former) : null;
  } catch {
    progress = null;
  }
  if (!progress) return t("progress.bad_file");
  const n = (k, key) => t(`${key}.${k === 1 ? "one" : "many"}`, { n: k });
  if (progress.from) {
    // Saved before the lesson was split: this lesson takes its part, and says where the rest is.
    progress = keepWhatIsHere(progress);
    const answers = Object.keys(progress.answers).length;
    load(progress);
    if (!answers && !progress.goals.length && !progress.sections.length) return t("progress.former.none", { slug: progress.from });
    return t("progress.former", {
      slug: progress.from,
      answers: n(answers, "progress.answers"),
      goals: n(progress.goals.length, "progress.goals"),
    });
  }
  load(progress);
  return t("progress.loaded", {
    sections: n(progress.sections.length, "progress.sections"),
    answers: n(Object.keys(progress.answers).length, "progress.answers"),
    goals: n(progress.goals.length, "progress.goals"),
  });
}
