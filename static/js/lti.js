// LTI 1.3 pages (lesson/portal/lti): platform storage for a frame without cookies, the deep-linking return,
// and the launched lesson's answers for the course's gradebook.
//
// Platform storage is 1EdTech's client-side postMessages (lti.put_data / lti.get_data): messages go to
// the frame the launch names in lti_storage_target ("_parent" for the parent itself), addressed to the
// origin of the platform's OIDC authorization URL, and only answers from that origin are read.
import { need, t } from "./i18n.js";

// This module's own messages (i18n.js), awaited below before any page that shows them: the login page
// shows none of its own, and its step on to the platform does not wait for them.
const messages = need("lti");

const WAIT_MS = 8000; // how long the platform's storage may take to answer

function storageFrame(target) {
  const parent = window.parent !== window ? window.parent : window.opener;
  if (!parent) return null;
  if (target === "_parent") return parent;
  try {
    return parent.frames[target] || null;
  } catch {
    return null;
  }
}

/** Send one platform-storage message and wait for its answer: resolves with the answer's data, or
 * rejects when the platform reports an error or does not answer in time. */
function ask(frame, origin, subject, fields) {
  const id = crypto.randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      window.removeEventListener("message", listen);
      reject(new Error("timeout"));
    }, WAIT_MS);
    function listen(event) {
      const data = event.data;
      if (event.origin !== origin || !data || typeof data !== "object") return;
      if (data.subject !== `${subject}.response` || data.message_id !== id) return;
      clearTimeout(timer);
      window.removeEventListener("message", listen);
      if (data.error) reject(new Error(String(data.error.code || "error")));
      else resolve(data);
    }
    window.addEventListener("message", listen);
    frame.postMessage({ subject, message_id: id, ...fields }, origin);
  });
}

function say(box, text) {
  const status = box.querySelector('[data-role="lti-status"]');
  if (status) status.textContent = text;
}

// Login: keep the state and nonce in the platform's storage, then go on to its authorization endpoint
// (in this frame). If the storage fails the link still goes on: the state cookie may have been kept.
async function login(box) {
  const { storageTarget, platformOrigin, state, nonce } = box.dataset;
  const next = box.querySelector('[data-role="lti-continue"]').href;
  const frame = storageFrame(storageTarget);
  if (frame) {
    try {
      await Promise.all([
        ask(frame, platformOrigin, "lti.put_data", { key: state, value: state }),
        ask(frame, platformOrigin, "lti.put_data", { key: `nonce-${nonce}`, value: nonce }),
      ]);
    } catch {
      // the launch will say what happened: no cookie and no stored state offers a window of its own
    }
  }
  window.location.assign(next);
}

// Launch: the state this frame received must be the one the platform keeps for it.
async function verify(form) {
  const { storageTarget, platformOrigin } = form.dataset;
  const state = form.elements.state.value;
  const frame = storageFrame(storageTarget);
  let answer = null;
  try {
    if (!frame) throw new Error("no frame");
    answer = await ask(frame, platformOrigin, "lti.get_data", { key: state });
  } catch {
    say(form, t("lti.storage_failed"));
    const offer = document.querySelector('[data-role="lti-window"]');
    if (offer) offer.hidden = false;
    return;
  }
  if (answer.value !== state) {
    say(form, t("lti.mismatch"));
    return;
  }
  form.submit();
}

// The lesson: each checked answer goes to the server, which grades it again and keeps the first one.
function grade(box) {
  const launch = box.dataset.launch;
  const url = box.dataset.answerUrl;
  document.addEventListener("lesson:answered", async (event) => {
    const { question, choice } = event.detail;
    let resp;
    try {
      resp = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ launch, question, choice }),
      });
    } catch {
      say(box, t("lti.offline"));
      return;
    }
    const result = await resp.json().catch(() => ({}));
    if (!resp.ok) {
      say(box, t("lti.failed", { error: result.error || resp.status }));
      return;
    }
    if (!result.complete) say(box, t("lti.progress", result));
    else if (result.queued) say(box, t("lti.sent", result));
    else if (result.kept) say(box, t("lti.kept", result));
    else say(box, t("lti.final", result));
  });
}

const loginBox = document.querySelector("[data-lti-login]");
if (loginBox) login(loginBox);
await messages;
const verifyForm = document.querySelector("form[data-lti-verify]");
if (verifyForm) verify(verifyForm);
const returnForm = document.querySelector("form[data-lti-return]");
if (returnForm) returnForm.submit();
const gradeBox = document.querySelector("[data-lti-grade]");
if (gradeBox) grade(gradeBox);
