// A playground panel. The page holds the playground: its start and its presses (the log), kept
// in sessionStorage. The server only caches the run; when it has lost it (a restart, another
// worker) it answers need_log and the page hands the log back once. Answers carry the newest
// log entry; the page keeps the history.
import { fill, h } from "./dom.js";
import { comparison, counterLine, logList, promptList, serverTable, wireList } from "./render.js";
import { session } from "./store.js";
import { decodeLink, encodeLink, takeLink } from "./share.js";

const KEY = (id) => `churn-lab:playground:${id}`;
const LINK_BROKEN = "This link is damaged or from an older version of the lesson; here is a fresh playground.";

export function mountPlayground(section, transport) {
  const panel = section.dataset.panelId;
  const region = (name) => section.querySelector(`[data-region="${name}"]`);
  const announce = section.querySelector('[data-role="announce"]');
  const undoBtn = section.querySelector('[data-action="undo"]');
  const share = addShare(section);
  const controls = [...section.querySelectorAll("button, input:not([readonly])")];
  // The log: { handle, variant, era, events: [["p", button] | ["e", era]], seq }.
  let log = session.get(KEY(panel));
  let history = [];
  const fromLink = takeLink(panel);
  let linkNotice = null;
  if (fromLink !== null) {
    const decoded = decodeLink(fromLink);
    if (decoded) log = { handle: null, ...decoded, seq: decoded.events.length };
    else {
      log = null;
      linkNotice = LINK_BROKEN;
    }
  }

  function save() {
    session.set(KEY(panel), log);
  }

  function render(answer, frame) {
    const v = answer.view;
    history = history.slice(0, answer.log_from).concat(v.log);
    const events = frame.type === "open" ? (log && log.events) || [] : log.events.slice();
    if (frame.type === "press") events.push(["p", frame.button]);
    else if (frame.type === "era") events.push(["e", frame.era]);
    else if (frame.type === "undo") events.pop();
    else if (frame.type === "reset") events.length = 0;
    log = { handle: answer.handle, variant: answer.variant, era: answer.start_era, events, seq: answer.seq };
    save();
    for (const el of controls) el.disabled = false;
    undoBtn.disabled = !answer.can_undo;
    for (const input of section.querySelectorAll('[data-role="era"] input')) input.checked = input.value === answer.era;
    for (const input of section.querySelectorAll('[data-role="variant"] input')) input.checked = input.value === answer.variant;
    if (region("servers")) fill(region("servers"), serverTable(v.servers));
    if (region("prompt")) fill(region("prompt"), promptList(v.next_prompt), counterLine(v.counters));
    if (region("log")) {
      fill(region("log"), logList(history));
      region("log").scrollTop = region("log").scrollHeight;
    }
    if (region("comparison")) fill(region("comparison"), comparison(v.comparison));
    if (region("wire")) fill(region("wire"), wireList(v.wire));
    share.hide();
    const last = history[history.length - 1];
    const summary = last.step ? `Step ${last.step}: ${last.label}. ${last.lines.map((l) => l.text).join(" ")}` : "Playground ready.";
    const notice = answer.notice || linkNotice;
    linkNotice = null;
    announce.textContent = notice ? `${notice} ${summary}` : summary;
    // Other widgets (goals, predictions) listen for every answer the playground draws.
    section.dispatchEvent(new CustomEvent("playground:answer", { detail: answer }));
  }

  function showError(answer) {
    announce.textContent = `Could not do that: ${answer.message}`;
  }

  // Presses go out one at a time, in the order the learner made them: a press made while the
  // previous answer is on its way waits its turn instead of being dropped.
  let chain = Promise.resolve();

  function send(makeFrame) {
    chain = chain.then(() => exchange(makeFrame())).catch(() => {});
    return chain;
  }

  function openFrame() {
    if (!log) return { type: "open", panel };
    const { handle, variant, era, events, seq } = log;
    return handle
      ? { type: "open", panel, handle, log: { variant, era, events, seq } }
      : { type: "open", panel, log: { variant, era, events, seq } };
  }

  async function exchange(frame, tries = 0) {
    const answer = await transport.send(frame);
    if (answer.type === "view") render(answer, frame);
    else if (answer.type === "need_log" && tries < 2) {
      // The server lost this playground (a restart, another worker) or missed a change: send the
      // change again with the log it follows, and the server rebuilds the playground from it.
      const { variant, era, events, seq } = log;
      await exchange({ ...frame, log: { panel, variant, era, events, seq } }, tries + 1);
    } else if (frame.type === "open" && frame.log) startOver(answer);
    else showError(answer);
  }

  async function startOver(answer) {
    // The server refused the log (an old link, or a log from an older lesson): begin again.
    log = null;
    history = [];
    session.remove(KEY(panel));
    linkNotice = answer.message && !linkNotice ? `${LINK_BROKEN} (${answer.message})` : LINK_BROKEN;
    const fresh = await transport.send({ type: "open", panel });
    if (fresh.type === "view") render(fresh, { type: "open" });
  }

  const change = (type, extra = {}) => send(() => ({ type, handle: log.handle, seq: log.seq + 1, ...extra }));

  section.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || button.disabled || !log || !log.handle) return;
    if (button.dataset.button) change("press", { button: button.dataset.button });
    else if (button.dataset.action === "undo") change("undo");
    else if (button.dataset.action === "reset") change("reset");
    else if (button.dataset.action === "share") share.show(encodeLink(panel, log));
  });
  section.addEventListener("change", (event) => {
    const input = event.target;
    if (!log || !log.handle) return;
    if (input.closest('[data-role="era"]')) change("era", { era: input.value });
    else if (input.closest('[data-role="variant"]')) change("reset", { variant: input.value });
  });
  transport.onReconnect(() => send(openFrame));
  send(openFrame);
}

function addShare(section) {
  // The share control is made here: it only makes sense when the playground runs.
  const group = section.querySelector(".buttons.history");
  const button = h("button", { type: "button", "data-action": "share", disabled: "" }, "Share link");
  group.append(button);
  const label = h("label", { class: "share-link", hidden: "" }, "Link to this playground ");
  const input = h("input", { type: "text", readonly: "", size: "40" });
  label.append(input);
  group.after(label);
  return {
    show(url) {
      input.value = url;
      label.hidden = false;
      input.focus();
      input.select();
      try {
        navigator.clipboard?.writeText(url).catch(() => {});
      } catch {
        // Copying is a convenience; the link is in the box either way.
      }
    },
    hide() {
      label.hidden = true;
    },
  };
}
