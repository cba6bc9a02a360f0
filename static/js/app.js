// Entry point: mounts each panel on the page; one transport serves them all.
import { startEmbed } from "./embed.js";
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
