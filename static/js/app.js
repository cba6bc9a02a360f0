// Entry point: mounts each panel on the page; one transport serves them all.
import { mountPlayground } from "./playground.js";
import { mountQuiz } from "./quiz.js";
import { mountRestarts } from "./restarts.js";
import { mountStepper } from "./stepper.js";
import { Transport } from "./transport.js";

let transport = null;
const shared = () => (transport ??= new Transport(document.getElementById("connection")));

for (const section of document.querySelectorAll('[data-panel="stepper"]')) mountStepper(section);
for (const section of document.querySelectorAll('[data-panel="playground"]')) mountPlayground(section, shared());
for (const section of document.querySelectorAll('[data-panel="restarts"]')) mountRestarts(section, shared());
for (const section of document.querySelectorAll("[data-quiz]")) mountQuiz(section);
