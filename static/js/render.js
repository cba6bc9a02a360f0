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

// "1 message", "2 messages": every count on the page goes through here.
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// The servers as the host sees them. Each cell carries its column's name so a narrow panel can show
// every row as a card.
// ERA_ONCE: the era is a property of the host, so it reads best said once, in the caption, with an Era
// column only when the rows really differ.
const ERA_ONCE = true;

export function serverTable(rows) {
  if (!rows.length) return h("p", { class: "placeholder" }, "The host has no servers configured.");
  const eras = [...new Set(rows.map((r) => r.era))];
  const eraOnce = ERA_ONCE && eras.length === 1;
  const columns = [
    ["Status", (r) => [h("span", { "aria-hidden": "true" }, `${STATUS_MARK[r.status] || ""} `), r.status], "status"],
    eraOnce ? null : ["Era", (r) => r.era],
    ["Stream", (r) => r.listen],
    ["Tools", (r) => (r.tools.length ? r.tools.join(", ") : "none")],
    ["Last change", (r) => r.last_change || "—"],
    ["Last error", (r) => r.last_error || "—"],
  ].filter(Boolean);
  return h(
    "div",
    { class: "table-wrap", tabindex: "0", role: "group", "aria-label": "Servers table" },
    h(
      "table",
      { class: "servers" },
      eraOnce ? h("caption", {}, `Every server speaks ${eras[0]} with the host.`) : null,
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Server"), columns.map(([t]) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h(
            "tr",
            { class: `status-${r.status.split(",")[0]}`, "data-server": r.name },
            h("th", { scope: "row" }, `${r.name} `, h("span", { class: "subtle" }, r.via ? `(${r.title}, behind ${r.via})` : `(${r.title})`)),
            columns.map(([t, cell, cls]) => h("td", { class: cls, "data-label": t }, cell(r))),
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
      `Turns taken: ${np.turns} · Prompt cache invalidations: ${np.cache_invalidations}`,
      // Batching is only worth a word when it is on: no control here turns it on or off.
      np.batching ? ` · Batching is on: ${plural(np.pending_changes, "change")} ${np.pending_changes === 1 ? "waits" : "wait"} for the next turn` : "",
      !np.batching && np.pending_changes ? ` · Changes since the last turn: ${np.pending_changes}` : "",
    ),
  ];
}

// Counters: the conversation and the re-lists always; the two "something went wrong" counters only
// once they have counted something, so a panel where they cannot move does not show a row of zeros.
export function counterLine(c) {
  const bits = [`Conversation: ${plural(c.conversation, "message")}`, `tools/list calls: ${c.refetches}`];
  if (c.wasted_refetches) bits.push(`Wasted re-fetches: ${c.wasted_refetches}`);
  if (c.ignored_notifications) bits.push(`Ignored notifications: ${c.ignored_notifications}`);
  return h("p", { class: "meta counters" }, bits.join(" · "));
}

// One step of the log. The playground appends these one at a time (see playground.js).
export function logEntry(step) {
  return h(
    "li",
    { class: "step", "data-step": step.step },
    h("p", { class: "step-label" }, step.step ? `Step ${step.step}: ${step.label}` : "Start"),
    h("ul", { class: "lines" }, step.lines.map(logLine)),
  );
}

export function logList(log) {
  return h("ol", { class: "log" }, log.map(logEntry));
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
      h("p", { class: "meta" }, plural(s.wire.length, "wire message")),
    );
  const [legacy, modern] = cmp.this.era === "legacy" ? [cmp.this, cmp.other] : [cmp.other, cmp.this];
  return h("div", { class: "eras" }, side(legacy, legacy === cmp.this), side(modern, modern === cmp.this));
}

// The handles panel: the basket ids the model holds, and where the server keeps baskets. The view
// names the handles; when it also lists the stores (durable, or each replica's memory) they are drawn
// side by side, the replica the next call lands on marked in words.
export function handleState(view) {
  const held = view.handles || [];
  const stores = view.stores || [];
  return [
    h(
      "p",
      {},
      held.length > 1 ? "Baskets the model holds: " : "Basket the model holds: ",
      // flatMap: h() flattens one level of children, and each handle brings a separator and a <code>.
      held.length ? held.flatMap((id, i) => [i ? ", " : "", h("code", {}, id)]) : h("span", { class: "placeholder" }, "none yet (press create_basket)"),
    ),
    stores.length
      ? h(
          "div",
          { class: "stores" },
          stores.map((s) =>
            h(
              "section",
              { class: s.current ? "store current" : "store", "aria-label": s.label },
              h("h5", {}, s.label, s.current ? " (the next call lands here)" : ""),
              Object.keys(s.baskets).length
                ? h("ul", { class: "lines" }, Object.entries(s.baskets).map(([id, items]) => h("li", {}, h("code", {}, id), `: ${items.length ? items.join(", ") : "empty"}`)))
                : h("p", { class: "placeholder" }, "No baskets."),
            ),
          ),
        )
      : null,
  ];
}
