// Embedding support for a lesson shown in another site's iframe (a training portal, an LMS).
//
// - safeStorage() (from store.js, re-exported): sessionStorage/localStorage that never throws. In a
//   cross-site iframe with third-party storage blocked, touching storage throws SecurityError; then
//   values live in memory and the page says once that progress will not survive a reload.
// - The H5P resizer protocol over postMessage, so the parent frame grows and shrinks with the page:
//   we send {context: 'h5p', action: 'hello'}; the parent answers 'hello'; then 'prepareResize'
//   -> 'resizePrepared' -> 'resize'.
// - An xAPI statement emitter: statements (see lesson/portal/xapi.py) posted to the parent as
//   {context: 'lesson', action: 'statement', statement}. The parent may answer our
//   {context: 'lesson', action: 'ready'} with {context: 'lesson', action: 'resume', progress, learner};
//   {context: 'lesson', action: 'cleared'} tells it the learner started over.
//
// Messages go to, and are accepted from, only the origins in <html data-embed-origins="..."> (space
// separated; "https://*.example.com" matches subdomains; "*" any parent). No attribute: no messages.

import { SAFE_ID, safeStorage } from "./store.js";

const ADL = "http://adlnet.gov/expapi";
const READY_WAIT_MS = 1500; // how long statements wait for a parent that may name the learner
const TYPES = {
  lesson: `${ADL}/activities/lesson`,
  section: `${ADL}/activities/module`,
  question: `${ADL}/activities/cmi.interaction`,
  goal: `${ADL}/activities/objective`,
};

// --- storage: safeStorage() and the notice live in store.js (every page's storage goes through it);
// they are exported here too, for a portal's page that uses this file with store.js alone.
export { safeStorage, STORAGE_NOTICE, storageUnavailable } from "./store.js";

// --- the channel to the parent ------------------------------------------------------------------

/** The allowed parent origins from <html data-embed-origins>. */
export function configuredOrigins(root = document.documentElement) {
  return (root.dataset.embedOrigins || "").split(/\s+/).filter(Boolean);
}

/** Whether `origin` is one of `origins` ("*" any; "https://*.example.com" any subdomain). */
export function originAllowed(origins, origin) {
  return !!origin && origin !== "null" && origins.some((p) => originMatches(p, origin));
}

function originMatches(pattern, origin) {
  if (pattern === "*") return true;
  if (!pattern.includes("*")) return pattern === origin;
  const re = new RegExp("^" + pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join("[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*") + "$");
  return re.test(origin);
}

function parentOriginGuess() {
  const ancestors = window.location.ancestorOrigins; // Chromium, Safari
  if (ancestors && ancestors.length) return ancestors[0];
  try {
    return window.parent.location.origin; // readable only when the parent is same-origin
  } catch {
    // cross-origin: fall through
  }
  try {
    // The referrer is the parent only on the frame's first page; after a link inside the frame it is us.
    const origin = document.referrer ? new URL(document.referrer).origin : null;
    return origin === window.location.origin ? null : origin;
  } catch {
    return null;
  }
}

/** Post to and hear from the parent window, limited to the allowed origins. */
export function parentChannel(origins = configuredOrigins(), target = window.parent) {
  const framed = target && target !== window;
  const allowed = (origin) => originAllowed(origins, origin);
  let parentOrigin = parentOriginGuess();
  const handlers = [];
  window.addEventListener("message", (event) => {
    if (!framed || event.source !== target || !allowed(event.origin)) return;
    if (!event.data || typeof event.data !== "object") return;
    parentOrigin = event.origin; // now certain
    for (const handler of handlers) handler(event.data);
  });
  return {
    get enabled() {
      return framed && origins.length > 0;
    },
    /** Post a message; false when there is no allowed parent to receive it. */
    send(message) {
      if (!framed) return false;
      if (parentOrigin && allowed(parentOrigin)) {
        target.postMessage(message, parentOrigin);
        return true;
      }
      if (parentOrigin) return false; // a parent we know, and may not talk to
      const exact = origins.filter((o) => o !== "*" && !o.includes("*"));
      for (const origin of exact) target.postMessage(message, origin); // the browser drops mismatches
      return exact.length > 0;
    },
    on(handler) {
      handlers.push(handler);
    },
  };
}

// --- auto-height (the H5P resizer protocol) -----------------------------------------------------

/** Keep the parent's iframe as tall as the page. Returns a function that stops it. */
export function startResizer(channel) {
  let friendly = false;
  let queued = false;
  const measure = () => {
    queued = false;
    if (!friendly) channel.send({ context: "h5p", action: "hello" });
    else
      channel.send({
        context: "h5p",
        action: "prepareResize",
        scrollHeight: document.body.scrollHeight,
        clientHeight: document.body.clientHeight,
      });
  };
  const schedule = () => {
    if (!queued) {
      queued = true;
      setTimeout(measure, 0);
    }
  };
  channel.on((msg) => {
    if (msg.context !== "h5p") return;
    if (msg.action === "hello") {
      friendly = true;
      document.body.style.height = "auto";
      document.body.style.overflow = "hidden"; // the parent's frame scrolls, not ours
      document.documentElement.dataset.parentScrolls = ""; // see followInPageLinks and playground.js
      schedule();
    } else if (msg.action === "resizePrepared") {
      channel.send({ context: "h5p", action: "resize", scrollHeight: document.body.scrollHeight });
    } else if (msg.action === "resize") {
      schedule();
    } else if (msg.action === "ready") {
      channel.send({ context: "h5p", action: "hello" }); // a resizer loaded after us
    }
  });
  const observer = new ResizeObserver(schedule);
  observer.observe(document.body);
  channel.send({ context: "h5p", action: "hello" });
  return () => observer.disconnect();
}

// --- xAPI statements ----------------------------------------------------------------------------

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID(); // secure contexts only
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function visitActor() {
  const storage = safeStorage("session");
  let id = storage.getItem("lesson.visit");
  if (!id) {
    id = uuid().replace(/-/g, "");
    storage.setItem("lesson.visit", id);
  }
  return { objectType: "Agent", account: { homePage: window.location.origin, name: id } };
}

/**
 * Build and post statements. `lessonIri` defaults to <html data-lesson-iri>, else this page's URL.
 * A learner named by the parent's 'resume' message becomes the actor of later statements. Each method
 * returns its statement; its `actor` is filled in when it is sent (after 'ready', once the parent answers).
 */
export function createEmitter(channel, lessonIri = null) {
  const iri = (lessonIri || document.documentElement.dataset.lessonIri || window.location.origin + window.location.pathname).replace(/\/$/, "");
  // The course, where the lessons' IRIs hang (the site's root): a report per course is a query on it.
  const LESSONS = /\/lessons\/[^/]+$/;
  const course = LESSONS.test(iri) ? iri.replace(LESSONS, "/") : null;
  const ref = (id) => [{ objectType: "Activity", id }];
  let actor = null;
  // Statements wait from 'ready' until the parent answers (it may name the learner) or READY_WAIT_MS has
  // passed: one sent meanwhile would name an anonymous visitor, and the rest the learner.
  let held = null;
  const send = (s) => {
    s.actor = actor || (actor = visitActor());
    channel.send({ context: "lesson", action: "statement", statement: s });
    window.dispatchEvent(new CustomEvent("lesson:statement", { detail: s })); // the server's relay (progress.js)
  };
  const release = () => {
    const waiting = held || [];
    held = null;
    waiting.forEach(send);
  };
  channel.on((msg) => {
    if (msg.context !== "lesson" || msg.action !== "resume") return;
    const learner = msg.learner;
    if (learner && typeof learner.id === "string" && learner.id) {
      actor = { objectType: "Agent", account: { homePage: parentOriginGuess() || window.location.origin, name: learner.id } };
      if (typeof learner.name === "string" && learner.name) actor.name = learner.name;
    }
    release();
    window.dispatchEvent(new CustomEvent("lesson:resume", { detail: { progress: msg.progress || null, learner: learner || null } }));
  });

  const statement = (verb, kind, part, title, result, task = false) => {
    if (kind !== "lesson" && !SAFE_ID.test(String(part))) throw new Error(`bad ${kind} id for a statement: ${part}`);
    const definition = { type: TYPES[kind] };
    if (title) definition.name = { "en-US": String(title) };
    if (kind === "question") definition.interactionType = task ? "other" : "choice";
    const out = {
      id: uuid(),
      actor: null, // set as it is sent
      verb: { id: `${ADL}/verbs/${verb}`, display: { "en-US": verb } },
      object: { objectType: "Activity", id: kind === "lesson" ? iri : `${iri}/${kind}/${part}`, definition },
      timestamp: new Date().toISOString(),
    };
    if (result) out.result = result;
    // A part names its lesson (the parent), so the lesson's statements can be asked for with its parts.
    const activities = {};
    if (kind !== "lesson") activities.parent = ref(iri);
    if (course) activities.grouping = ref(course);
    if (Object.keys(activities).length) out.context = { contextActivities: activities };
    return out;
  };
  const emit = (s) => {
    if (held) held.push(s);
    else send(s);
    return s;
  };

  return {
    /** Ask the parent for saved progress; it arrives as a 'lesson:resume' event on window. */
    ready: () => {
      held ??= [];
      setTimeout(release, READY_WAIT_MS);
      // A page left before the parent answered sends what it holds: it would not be sent again.
      window.addEventListener("pagehide", release, { once: true });
      document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && release());
      channel.send({ context: "lesson", action: "ready" });
    },
    /** The learner started over: the parent forgets the progress it would hand back on 'resume'. */
    cleared: () => channel.send({ context: "lesson", action: "cleared" }),
    experienced: (section, title) => emit(statement("experienced", "section", section, title)),
    /** A choice's id, or with `task` the playground log that did the task (interactionType "other"). */
    answered: (question, response, success, title, task = false) =>
      emit(statement("answered", "question", question, title, { success: !!success, response: String(response) }, task)),
    goalCompleted: (goal, title) => emit(statement("completed", "goal", goal, title, { completion: true })),
    lessonCompleted: (title) => emit(statement("completed", "lesson", null, title, { completion: true })),
    /** 'passed' when correct/total reaches `passing` (0..1), else 'failed'; the score is scaled to 0..1. */
    lessonScored: (correct, total, passing = 0.8, title) => {
      if (!(total > 0 && correct >= 0 && correct <= total)) throw new Error(`bad score ${correct}/${total}`);
      const scaled = Math.round((correct / total) * 10000) / 10000;
      const passed = scaled >= passing;
      const result = { success: passed, completion: true, score: { scaled, raw: correct, min: 0, max: total } };
      return emit(statement(passed ? "passed" : "failed", "lesson", null, title, result));
    },
  };
}

/** Everything at once, for a page in an iframe: resizer, emitter and a 'ready' to the parent. */
export function startEmbed(origins = configuredOrigins()) {
  safeStorage("session"); // probe now, so a refusal is said at load rather than at the first save
  const channel = parentChannel(origins);
  const emitter = createEmitter(channel);
  if (channel.enabled) {
    startResizer(channel);
    emitter.ready();
    followInPageLinks();
    window.addEventListener("lesson:cleared", () => emitter.cleared()); // from "Start over"
  }
  return { channel, emitter };
}

// A frame the parent sizes to the lesson (it answered the resizer's hello) never scrolls itself, so
// a "#section" link would move nothing the learner sees: scroll the target into the portal's view
// instead (scrollIntoView crosses origins).
function followInPageLinks() {
  document.addEventListener("click", (event) => {
    const link = event.target.closest('a[href^="#"]');
    if (!link || event.defaultPrevented || !("parentScrolls" in document.documentElement.dataset)) return;
    const target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
    if (!target) return;
    event.preventDefault();
    history.replaceState(null, "", link.hash);
    target.scrollIntoView({ block: "start" });
    if (!target.hasAttribute("tabindex") && !target.matches("a, button, input, select, textarea")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
  });
}
