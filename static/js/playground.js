// A playground panel: buttons send presses; every answer carries the whole view, rendered as is.
import { fill, h } from "./dom.js";
import { comparison, counterLine, logList, promptList, serverTable, wireList } from "./render.js";

const KEY = (id) => `churn-lab:playground:${id}`;

export function mountPlayground(section, transport) {
  const panel = section.dataset.panelId;
  const region = (name) => section.querySelector(`[data-region="${name}"]`);
  const announce = section.querySelector('[data-role="announce"]');
  const controls = [...section.querySelectorAll("button, input")];
  const undoBtn = section.querySelector('[data-action="undo"]');
  let handle = sessionStorage.getItem(KEY(panel));

  function render(answer) {
    const v = answer.view;
    handle = answer.handle;
    sessionStorage.setItem(KEY(panel), handle);
    for (const el of controls) el.disabled = false;
    undoBtn.disabled = !answer.can_undo;
    for (const input of section.querySelectorAll('[data-role="era"] input')) input.checked = input.value === answer.era;
    for (const input of section.querySelectorAll('[data-role="variant"] input')) input.checked = input.value === answer.variant;
    if (region("servers")) fill(region("servers"), serverTable(v.servers));
    if (region("prompt")) fill(region("prompt"), promptList(v.next_prompt), counterLine(v.counters));
    if (region("log")) {
      fill(region("log"), logList(v.log));
      region("log").scrollTop = region("log").scrollHeight;
    }
    if (region("comparison")) fill(region("comparison"), comparison(v.comparison));
    if (region("wire")) fill(region("wire"), wireList(v.wire));
    const last = v.log[v.log.length - 1];
    const summary = last.step ? `Step ${last.step}: ${last.label}. ${last.lines.map((l) => l.text).join(" ")}` : "Playground ready.";
    announce.textContent = answer.notice ? `${answer.notice} ${summary}` : summary;
  }

  function showError(answer) {
    announce.textContent = `Could not do that: ${answer.message}`;
  }

  // Presses go out one at a time, in the order the learner made them: a press made while the
  // previous answer is on its way waits its turn instead of being dropped.
  let chain = Promise.resolve();

  function send(makeFrame) {
    chain = chain.then(() => exchange(makeFrame()));
    return chain;
  }

  async function exchange(frame) {
    try {
      const answer = await transport.send(frame);
      if (answer.type === "view") render(answer);
      else if (answer.code === "unknown_handle") {
        sessionStorage.removeItem(KEY(panel));
        handle = null;
        await exchange({ type: "open", panel, handle });
        announce.textContent = "That playground is no longer on the server; this is a new one.";
      } else showError(answer);
    } catch {
      // The transport reconnects and re-opens the panel from its handle.
    }
  }

  function open() {
    return send(() => ({ type: "open", panel, handle }));
  }

  section.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || button.disabled || !handle) return;
    if (button.dataset.button) send(() => ({ type: "press", handle, button: button.dataset.button }));
    else if (button.dataset.action === "undo") send(() => ({ type: "undo", handle }));
    else if (button.dataset.action === "reset") send(() => ({ type: "reset", handle }));
  });
  section.addEventListener("change", (event) => {
    const input = event.target;
    if (!handle) return;
    if (input.closest('[data-role="era"]')) send(() => ({ type: "era", handle, era: input.value }));
    else if (input.closest('[data-role="variant"]')) send(() => ({ type: "reset", handle, variant: input.value }));
  });
  transport.onReconnect(() => open());
  open();
}
