// Entry point: mounts each panel on the page; one transport serves them all.
import { h, whenNear } from "./dom.js";
import { t } from "./i18n.js";
import { mountProgress, relayStatements } from "./progress.js";
import { linkedTo, local, quizKey, safeStorage } from "./store.js";
import { Transport } from "./transport.js";

// A double click on an event button is one press, whoever handles it (the playground, the hold below,
// live mode): its second click would press again, and most presses are then refused ("C is already in
// the host's config"), a step the learner never meant.
document.addEventListener("click", (e) => e.detail > 1 && e.target.closest?.("button[data-button]") && e.stopImmediatePropagation(), true);
// First the storage probe, so a refusal is said at load rather than at the first save.
safeStorage("session");
// Statements and auto-height for a parent frame (only to the configured origins): embed.js only in a
// frame (a portal, the SCORM launch page) or with a learning record store to feed. A page on its own
// does neither and does not fetch it; there nothing hears a statement, so progress makes none.
const lrs = document.documentElement.dataset.lrs;
const framed = window.parent !== window;
const emitter = framed || lrs ? await import("./embed.js").then((m) => m.startEmbed().emitter, () => null) : null;
if (lrs) relayStatements(lrs);
const box = document.querySelector("[data-progress-file]");
if (box) mountProgress({ emitter, slug: box.dataset.lesson, quiz: document.querySelector("[data-quiz]"), box });

// A link to a section (#id): its code comes only with one (anchor.js says why it is needed).
const anchor = () => window.location.hash.length > 1 && import("./anchor.js").then((m) => m.keepAnchor());
// Not on a reload or a step back: there the browser puts the page back where the learner left it.
if (!["reload", "back_forward"].includes(performance.getEntriesByType?.("navigation")[0]?.type)) anchor();
window.addEventListener("hashchange", anchor);

let transport = null;
const shared = () => (transport ??= new Transport(document.getElementById("connection")));

// A panel that is not in the first screens (a stepper, the restart lab) fetches its code as it comes
// within a few hundred pixels of the screen, or at the first touch, click or focus inside it, or before
// printing: a first view carries only the code its first screens use. A click on one of its buttons
// that comes before the code is held and replayed once the panel is mounted, so no press is lost.
// If the code cannot be fetched, the panel says so and offers to try again (under a new address, since
// browsers remember a module that failed); a press held until then is dropped, not replayed later.
function mountNear(section, load) {
  let started = null;
  let tries = 0;
  // the note with "Try again", while one is on show
  let failed = null;
  const held = [];
  const start = () => {
    started ??= load(tries++).then(
      (mount) => {
        stop();
        failed?.remove();
        mount(section);
        for (const button of held.splice(0)) button.click();
      },
      () => {
        started = null;
        held.length = 0;
        if (failed) return;
        const retry = h("button", { type: "button" }, t("panel.retry"));
        failed = h("p", { class: "panel-failed", role: "status" }, t("panel.failed"), " ", retry);
        retry.addEventListener("click", () => {
          failed.remove();
          failed = null;
          start();
        });
        section.append(failed);
      },
    );
  };
  const hold = (event) => {
    // A link too: the panel's code may handle it (a quick check's "do it in the playground").
    const button = event.target.closest("button, a[href]");
    if (button && !failed?.contains(button)) {
      event.preventDefault();
      event.stopPropagation();
      held.push(button);
    }
    start();
  };
  let unwatch;
  function stop() {
    unwatch?.();
    section.removeEventListener("click", hold, true);
    section.removeEventListener("focusin", start);
    window.removeEventListener("beforeprint", start);
  }
  section.addEventListener("click", hold, true);
  section.addEventListener("focusin", start);
  window.addEventListener("beforeprint", start);
  unwatch = whenNear(section, start);
  return start;
}

// A module by name; a retry (n > 0) asks under a new address, since browsers remember a failed module.
const fetchModule = (name) => (n) => import(n ? `./${name}?retry=${n}` : `./${name}`);

for (const section of document.querySelectorAll('[data-panel="stepper"]')) {
  mountNear(section, (n) => fetchModule("stepper.js")(n).then((m) => m.mountStepper));
}
// A playground's code (and what it imports) comes as the playground nears the screen, like the lab's
// and the steppers': a page whose playground sits far below (the restarts lesson's, under its lab)
// does not carry it in its first view. A share link to a playground (#pg=<panel>:…) mounts it at once.
const playgrounds = document.querySelectorAll('[data-panel="playground"]');
for (const section of playgrounds) {
  const start = mountNear(section, (n) => fetchModule("playground.js")(n).then((m) => (s) => m.mountPlayground(s, shared())));
  if (linkedTo(section.dataset.panelId)) start();
}
for (const section of document.querySelectorAll('[data-panel="restarts"]')) {
  mountNear(section, (n) => fetchModule("restarts.js")(n).then((m) => (s) => m.mountRestarts(s, shared())));
}
// The course index fills each lesson's progress with quiz.js (it does so as it loads).
if (document.querySelector("[data-progress]")) import("./quiz.js");
// A quick check's code comes as the check nears the screen (most sit below a playground). Answers loaded
// from a progress file before then wait for it, and are handed over once it is mounted.
for (const section of document.querySelectorAll("[data-quiz]")) {
  const early = [];
  let start = null;
  // Answers loaded (a progress file, a portal resuming the learner) are shown at once: the code comes now.
  const keep = (event) => {
    early.push(event.detail);
    start?.();
  };
  section.addEventListener("lesson:load-answers", keep);
  start = mountNear(section, (n) =>
    fetchModule("quiz.js")(n).then(({ mountQuiz }) => (s) => {
      s.removeEventListener("lesson:load-answers", keep);
      mountQuiz(s);
      for (const detail of early.splice(0)) s.dispatchEvent(new CustomEvent("lesson:load-answers", { detail }));
    }),
  );
  // Answers the learner gave before: the check shows them (and its score) from the first view.
  if (Object.keys(local.get(quizKey(section.dataset.quiz)) || {}).length) start();
  // A task is done in a playground: the check's "Check my playground" is ready once the learner starts there.
  if (section.querySelector("[data-task-panel]")) {
    for (const pg of playgrounds) pg.addEventListener("click", start, { once: true });
  }
}

// Presenter mode (?present=1): its code is fetched only then. Otherwise a lesson offers a link into it,
// on the kicker line, so the first playground stays in the first screen.
const article = document.querySelector("article.lesson");
if (article && new URLSearchParams(window.location.search).get("present") === "1") {
  import("./presenter.js").then(({ present }) => present(article));
} else if (article && !document.documentElement.dataset.embed) {
  // Not inside a portal's frame: there the presenter's bar would sit at the foot of a frame as tall as
  // the lesson, out of sight, and the portal owns the screen.
  const url = new URL(window.location.href);
  url.searchParams.set("present", "1");
  url.hash = "";
  const kicker = article.querySelector(":scope > header .kicker");
  if (kicker) kicker.append(h("span", { class: "present-offer" }, " · ", h("a", { href: url.pathname + url.search }, t("offer.present"))));
}
