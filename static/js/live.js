// Live mode (docs/live.md; the page loads this module only when the server runs with --live): the outage
// playground's presses also go to real MCP SDK servers on this machine, over the /live socket. The answers
// fill a "Live" region with the real server table, prompt and wire, and the simulated frames for the same
// presses beside the real ones. Closing the page closes the socket, and the server kills the processes.
import { fill, h } from "./dom.js";
import { need, t } from "./i18n.js";
import { lineItem, promptList, serverTable, wireList } from "./render.js";
import { LANG, socketUrl } from "./transport.js";

await need("live"); // this module's own messages (i18n.js)

// The playgrounds that can run live: lesson/live/__init__.py keeps the same list.
const LIVE_PANELS = ["outage"];

function mount(section) {
  const panel = section.dataset.panelId;
  const id = (part) => `${panel}-live-${part}`;
  const status = h("p", { class: "live-status", role: "status", "aria-live": "polite" }, t("live.connecting"));
  const servers = h("div", { "data-live": "servers" });
  const prompt = h("div", { "data-live": "prompt" });
  const lines = h("div", { "data-live": "lines" });
  const simWire = h("div", { "data-live": "sim-wire" });
  const realWire = h("div", { "data-live": "real-wire" });
  const part = (key, box) => h("section", { class: "live-part", "aria-labelledby": id(key) }, h("h5", { id: id(key) }, t(`live.${key}`)), box);
  const region = h(
    "section",
    { class: "region region-live", "aria-labelledby": id("title") },
    h("h4", { id: id("title") }, h("span", { class: "badge live-badge" }, t("live.badge")), " ", t("live.title")),
    h("p", { class: "subtle" }, t("live.lede")),
    status,
    part("servers", servers),
    part("prompt", prompt),
    part("lines", lines),
    h("div", { class: "live-wires" }, part("sim_wire", simWire), part("real_wire", realWire)),
  );
  // The marker beside the playground's title, so the page says at once that this one is live.
  const title = section.querySelector(`#${CSS.escape(panel)}-title`);
  const marker = h("span", { class: "badge live-badge", "data-role": "live-marker" }, t("live.badge"));
  if (title) title.append(" ", marker);
  section.querySelector(".regions")?.prepend(region);

  const era = () => section.querySelector('[data-role="era"] input:checked')?.value || "modern";
  let ws = null;
  let liveEra = null;
  let waiting = 0;

  function send(frame) {
    if (frame.type === "open") liveEra = frame.era;
    waiting += 1;
    status.textContent = t(frame.type === "open" ? "live.starting" : "live.working");
    ws.send(JSON.stringify(frame.type === "open" ? { ...frame, lang: LANG } : frame));
  }

  function show(view) {
    fill(servers, serverTable(view.servers));
    fill(prompt, promptList(view.next_prompt));
    fill(lines, view.lines.length ? h("ul", { class: "log-lines" }, view.lines.map(lineItem)) : h("p", { class: "placeholder" }, t("live.no_lines")));
    fill(simWire, wireList(view.sim.wire));
    fill(realWire, wireList(view.wire));
    status.textContent = view.step ? t("live.step", { step: view.step, label: view.label.text }) : t("live.ready", { era: view.era });
  }

  function connect() {
    const url = socketUrl("live");
    ws = new WebSocket(url);
    ws.addEventListener("open", () => send({ type: "open", panel, era: era() }));
    ws.addEventListener("message", (e) => {
      const frame = JSON.parse(e.data);
      if (frame.type === "starting") return;
      waiting = Math.max(0, waiting - 1);
      if (frame.type === "live") show(frame);
      else if (frame.type === "error") status.textContent = t("live.error", { message: frame.message });
      if (waiting && frame.type !== "error") status.textContent = t("live.working");
    });
    ws.addEventListener("close", (e) => {
      ws = null;
      if (e.code !== 1000) status.textContent = t("live.closed", { reason: e.reason || String(e.code) });
    });
  }

  // In the capture phase, before the playground's own handler runs (it may disable the button).
  section.addEventListener(
    "click",
    (e) => {
      if (!ws || ws.readyState !== WebSocket.OPEN) return;
      const button = e.target.closest("[data-button], [data-action]");
      if (!button || !section.contains(button)) return;
      if (button.dataset.action === "reset") send({ type: "open", panel, era: era() });
      else if (button.dataset.action === "undo") status.textContent = t("live.no_undo");
      else if (button.dataset.button) {
        if (era() !== liveEra) send({ type: "open", panel, era: era() }); // the era changed: start over live
        send({ type: "press", button: button.dataset.button });
      }
    },
    true,
  );
  section.addEventListener("change", (e) => {
    if (ws && ws.readyState === WebSocket.OPEN && e.target.closest('[data-role="era"]') && era() !== liveEra) send({ type: "open", panel, era: era() });
  });
  connect();
}

for (const section of document.querySelectorAll('section[data-panel="playground"]')) {
  if (LIVE_PANELS.includes(section.dataset.panelId)) mount(section);
}
