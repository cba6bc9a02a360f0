// Renders the simulation's view as it is: the page decides nothing about the protocol.
import { h } from "./dom.js";

const TONE = {
  info: "",
  change: "Change",
  error: "Error",
  model: "Model",
  warn: "Note",
  rejected: "Not now",
};

const STATUS_MARK = {
  connected: "●",
  "connected, list stale": "◐",
  down: "✕",
  reconnecting: "↻",
  hidden: "◌",
};

export function logLine(line) {
  const label = TONE[line.tone];
  return h("li", { class: `line tone-${line.tone}` }, label ? h("span", { class: "tone" }, `${label}: `) : null, line.text);
}

export function serverTable(rows) {
  if (!rows.length) return h("p", { class: "placeholder" }, "The host has no servers configured.");
  const head = ["Server", "Status", "Era", "Stream", "Tools", "Last change", "Last error"];
  return h(
    "div",
    { class: "table-wrap", tabindex: "0" },
    h(
      "table",
      { class: "servers" },
      h("thead", {}, h("tr", {}, head.map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h(
            "tr",
            { class: `status-${r.status.split(",")[0]}`, "data-server": r.name },
            h("th", { scope: "row" }, `${r.name} `, h("span", { class: "subtle" }, r.via ? `(${r.title}, behind ${r.via})` : `(${r.title})`)),
            h("td", { class: "status" }, h("span", { "aria-hidden": "true" }, `${STATUS_MARK[r.status] || ""} `), r.status),
            h("td", {}, r.era),
            h("td", {}, r.listen),
            h("td", {}, r.tools.length ? r.tools.join(", ") : "none"),
            h("td", {}, r.last_change || "—"),
            h("td", {}, r.last_error || "—"),
          ),
        ),
      ),
    ),
  );
}

export function promptList(np) {
  const items = np.tools.map((t) =>
    h(
      "li",
      { class: t.change === "new" ? "tool new" : "tool" },
      h("code", {}, t.name),
      h("span", { class: "subtle" }, ` from ${t.origin ? `${t.origin} via ${t.server}` : t.server}`),
      t.change === "new" ? [" ", h("span", { class: "badge" }, "new since the last turn")] : null,
    ),
  );
  const gone = np.removed.map((t) =>
    h("li", { class: "tool gone" }, h("span", { class: "badge" }, "gone"), " ", h("del", {}, t.name), h("span", { class: "subtle" }, ` from ${t.server}`)),
  );
  return [
    items.length ? h("ul", { class: "prompt" }, items) : h("p", { class: "placeholder" }, "No tools: the model would answer from the conversation alone."),
    gone.length ? h("ul", { class: "prompt removed", "aria-label": "Gone since the last turn" }, gone) : null,
    h(
      "p",
      { class: "meta" },
      `Turns taken: ${np.turns} · Prompt cache invalidations: ${np.cache_invalidations} · Batching: ${np.batching ? "on" : "off"}`,
      np.pending_changes ? ` · Changes since the last turn: ${np.pending_changes}` : "",
    ),
  ];
}

export function counterLine(c) {
  return h(
    "p",
    { class: "meta counters" },
    `Conversation: ${c.conversation} messages · tools/list calls: ${c.refetches} · Wasted re-fetches: ${c.wasted_refetches} · Ignored notifications: ${c.ignored_notifications}`,
  );
}

export function logList(log) {
  return h(
    "ol",
    { class: "log" },
    log.map((step) =>
      h(
        "li",
        { class: "step", "data-step": step.step },
        h("p", { class: "step-label" }, step.step ? `Step ${step.step}: ${step.label}` : "Start"),
        h("ul", { class: "lines" }, step.lines.map(logLine)),
      ),
    ),
  );
}

function headerText(m) {
  const bits = [`${m.sender} → ${m.receiver}`];
  if (m.http) bits.push(m.http);
  else if (m.transport === "stdio") bits.push("stdio");
  return bits.join(" · ");
}

// Typed items that never crossed the wire say what they are: built by the host, or seen by it.
function offWire(m) {
  if (m.kind === "host_built") return "built by the host, not on the wire";
  if (m.kind === "stream_end") return "seen by the host, not on the wire";
  return "not on the wire";
}

export function wireList(wire) {
  if (!wire.length) return h("p", { class: "placeholder" }, "No messages crossed the wire in this step.");
  return h(
    "ol",
    { class: "wire" },
    wire.map((m) =>
      h(
        "li",
        { class: m.on_wire ? "msg" : "msg local" },
        h("p", { class: "msg-head" }, headerText(m), m.on_wire ? null : [" ", h("span", { class: "badge" }, offWire(m))]),
        Object.keys(m.headers).length
          ? h("p", { class: "msg-headers" }, Object.entries(m.headers).map(([k, v]) => h("code", {}, `${k}: ${v}`)))
          : null,
        m.payload ? h("pre", {}, h("code", {}, JSON.stringify(m.payload, null, 2))) : h("p", { class: "subtle" }, "No JSON-RPC body."),
        m.note ? h("p", { class: "msg-note" }, m.note) : null,
      ),
    ),
  );
}

export function comparison(cmp) {
  if (!cmp) return h("p", { class: "placeholder" }, "Press a button: this shows what that step does in each era.");
  const side = (s, mine) =>
    h(
      "section",
      { class: `era-side era-${s.era}` },
      h("h5", {}, `${s.label[0].toUpperCase()}${s.label.slice(1)}${mine ? " (this playground)" : " (the same step)"}`),
      h("ul", { class: "lines" }, s.lines.map(logLine)),
      h("p", { class: "meta" }, `${s.wire.length} wire message${s.wire.length === 1 ? "" : "s"}`),
    );
  const [legacy, modern] = cmp.this.era === "legacy" ? [cmp.this, cmp.other] : [cmp.other, cmp.this];
  return h("div", { class: "eras" }, side(legacy, legacy === cmp.this), side(modern, modern === cmp.this));
}
