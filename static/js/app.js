// Entry point: mounts each panel on the page; one transport serves them all.
import { h } from "./dom.js";
import { startEmbed } from "./embed.js";
import { t } from "./i18n.js";
import { mountPlayground } from "./playground.js";
import { mountProgress, relayStatements } from "./progress.js";
import { mountQuiz } from "./quiz.js";
import { mountRestarts } from "./restarts.js";
import { mountStepper } from "./stepper.js";
import { Transport } from "./transport.js";

// First: statements and auto-height for a parent frame (only to the configured origins), and the
// storage probe, so a refusal is said at load.
const { emitter } = startEmbed();
const lrs = document.documentElement.dataset.lrs;
if (lrs) relayStatements(lrs);
const box = document.querySelector("[data-progress-file]");
if (box) mountProgress({ emitter, slug: box.dataset.lesson, quiz: document.querySelector("[data-quiz]"), box });

let transport = null;
const shared = () => (transport ??= new Transport(document.getElementById("connection")));

for (const section of document.querySelectorAll('[data-panel="stepper"]')) mountStepper(section);
for (const section of document.querySelectorAll('[data-panel="playground"]')) mountPlayground(section, shared());
for (const section of document.querySelectorAll('[data-panel="restarts"]')) mountRestarts(section, shared());
for (const section of document.querySelectorAll("[data-quiz]")) mountQuiz(section);

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
  if (kicker) kicker.append(h("span", { class: "present-offer" }, " · ", h("a", { href: url.pathname + url.search }, t("present.enter"))));
}
