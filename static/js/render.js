// Renders the simulation's view as it is: the page decides nothing about the protocol.
import { h } from "./dom.js";
import { t } from "./i18n.js";

// Tone names are UI words; a tone without one (info) shows no label.
const TONE = { change: "tone.change", error: "tone.error", failed: "tone.failed", model: "tone.model", warn: "tone.warn", rejected: "tone.rejected" };

const STATUS_MARK = {
  connected: "●",
  down: "✕",
  incompatible: "≠",
  signed_out: "⊘",
};

// Text from the simulation's view (names, narration, the server table's cells) is content data, not UI
// text: it is marked so the pseudo-locale check can tell it apart. (The server renders the narration and
// the cells in the page's language; a status is an id, named here from the catalogue.)
const content = (text) => h("span", { "data-content": "" }, text);
// Long identifiers ("subscriptions/listen") may break after a slash or an underscore, so the server
// table fits its box rather than scrolling sideways. Shorter ones stay whole ("delete_workspace," and
// "create_ticket" fit a phone's card): a break there reads as two words ("create_" / "ticket").
export const breakAfter = (word, at = /(?<=[/_])/) => String(word).split(at).flatMap((bit, i) => (i ? [h("wbr"), bit] : [bit]));
// split() with a group puts each long word at an odd index.
const breakable = (text) => h("span", { "data-content": "" }, String(text).split(/(\S{18,})/).flatMap((part, i) => (i % 2 ? breakAfter(part) : [part])));

export function lineItem(line) {
  const label = TONE[line.tone];
  return h("li", { class: `line tone-${line.tone}` }, label ? h("span", { class: "tone" }, t(label)) : null, h("span", { "data-content": "" }, line.text));
}

// "1 message", "2 messages": every count on the page goes through here; the catalogue holds a ".one"
// and a ".many" form of each counted word.
export function plural(n, what) {
  return t(`count.${what}.${n === 1 ? "one" : "many"}`, { n });
}

// "Moment 2 of 5: A dies": a moment of a lesson's stepper or of a playground's walk-through, by its
// number, with its title when it has one.
export const momentName = (n, total, title) => t(title ? "moment" : "moment_untitled", { n, total, title });

// What a step did to a server table (d: changes.js's diffServers), marked with `mark(element, word)`:
// a new row's header "new" (its class lets a phone's card show the row whole, in any language), a
// changed row's "changed", and each changed cell. The playground and the stepper mark alike.
export function markServers(box, d, mark) {
  const row = (name) => box.querySelector(`tr[data-server="${CSS.escape(name)}"]`);
  // On a phone the marked table folds what did not change (lesson.css); its button shows every field.
  const wrap = box.querySelector(".table-wrap");
  const table = wrap?.querySelector("table.servers");
  if (table && (d.added.length || Object.keys(d.changed).length) && !wrap.querySelector(":scope > .unfold")) {
    const unfold = h("button", { type: "button", class: "unfold", "aria-pressed": "false" }, t("servers.unfold"));
    unfold.addEventListener("click", () => unfold.setAttribute("aria-pressed", String(table.classList.toggle("unfolded"))));
    wrap.append(unfold);
  }
  for (const name of d.added) {
    const th = row(name)?.querySelector("th");
    th?.classList.add("mark-new");
    mark(th, "new");
  }
  for (const [name, fields] of Object.entries(d.changed)) {
    const r = row(name);
    if (!r) continue;
    mark(r.querySelector("th"), "changed");
    for (const f of fields) r.querySelector(`td[data-field="${f}"]`)?.classList.add("cell-changed");
  }
}

// The servers as the host sees them. Each cell carries its column's name so a narrow panel can show
// every row as a card.
// ERA_ONCE: the era is a property of the host, so it reads best said once, in the caption, with an Era
// column only when the rows really differ.
const ERA_ONCE = true;

// A table box is a Tab stop only while it is wider than the screen lets it be (a keyboard user then
// scrolls it with the arrow keys); a table that fits costs no extra stop. Boxes taken off the page
// are let go.
const scrollStops =
  typeof ResizeObserver === "function"
    ? new ResizeObserver((entries) => {
        for (const { target } of entries) {
          if (!target.isConnected) scrollStops.unobserve(target);
          else {
            const scrolls = target.scrollWidth > target.clientWidth + 1;
            if (scrolls) target.tabIndex = 0;
            else target.removeAttribute("tabindex");
            target.classList.toggle("scrolls", scrolls);
          }
        }
      })
    : null;

function tableBox(...children) {
  const box = h("div", { class: "table-wrap", role: "group", "aria-label": t("servers.table") }, ...children);
  if (scrollStops) scrollStops.observe(box);
  else box.tabIndex = 0;
  return box;
}

// An era as the server table names it; none when the host and the server have no era in common.
const eraName = (era) => (era ? t(`era.${era}`) : t("servers.no_era"));

export function serverTable(rows) {
  if (!rows.length) return h("p", { class: "placeholder" }, t("servers.none"));
  const eras = [...new Set(rows.map((r) => r.era))];
  // One era for every row goes in the caption; "no era in common" is said in the row it is about.
  const eraOnce = ERA_ONCE && eras.length === 1 && eras[0] != null;
  const columns = [
    [t("column.status"), (r) => [h("span", { "aria-hidden": "true" }, `${STATUS_MARK[r.status] || ""} `), t(`status.${r.status}`)], "status", "status"],
    eraOnce ? null : [t("column.era"), (r) => eraName(r.era), null, "era"],
    [t("column.stream"), (r) => breakable(r.listen.text), null, "stream"],
    [t("column.tools"), (r) => (r.tools.length ? breakable(r.tools.join(", ")) : t("servers.no_tools")), null, "tools"],
    [t("column.last_change"), (r) => breakable(r.last_change?.text || "—"), null, "last_change"],
    [t("column.last_error"), (r) => breakable(r.last_error?.text || "—"), null, "last_error"],
  ].filter(Boolean);
  return tableBox(
    h(
      "table",
      { class: "servers" },
      eraOnce ? h("caption", {}, t("servers.era_once", { era: eraName(eras[0]) })) : null,
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("column.server")), columns.map(([name]) => h("th", { scope: "col" }, name)))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h(
            "tr",
            { class: `status-${r.status}`, "data-server": r.name },
            h("th", { scope: "row" }, content(r.name), " ", h("span", { class: "subtle" }, t("servers.title", { title: r.title }))),
            columns.map(([name, cell, cls, field]) => h("td", { class: cls, "data-label": name, "data-field": field }, cell(r))),
          ),
        ),
      ),
    ),
  );
}

// Where a tool in the prompt comes from: its server, and behind a gateway the backend that provides it.
const fromServer = (tool) =>
  h("span", { class: "subtle" }, tool.origin ? t("prompt.from_via", { origin: tool.origin, server: tool.server }) : t("prompt.from", { server: tool.server }));

export function promptList(np) {
  const items = np.tools.map((tool) =>
    h(
      "li",
      { class: tool.change === "new" ? "tool new" : "tool" },
      h("code", {}, tool.name),
      fromServer(tool),
      tool.change === "new" ? [" ", h("span", { class: "badge" }, t("prompt.new"))] : null,
    ),
  );
  const gone = np.removed.map((tool) =>
    h("li", { class: "tool gone" }, h("span", { class: "badge" }, t("prompt.gone")), " ", h("del", {}, tool.name), fromServer(tool)),
  );
  return [
    items.length ? h("ul", { class: "prompt" }, items) : h("p", { class: "placeholder" }, t("prompt.none")),
    gone.length ? h("ul", { class: "prompt removed", "aria-label": t("prompt.gone_label") }, gone) : null,
    // Right under the list it qualifies: a silent server's tools here are what the host last fetched.
    np.relisted_first.length ? h("p", { class: "meta relisted" }, t("prompt.relisted_first", { servers: np.relisted_first.join(", ") })) : null,
    h(
      "p",
      { class: "meta turns" },
      t("prompt.turns", { turns: np.turns, invalidations: np.cache_invalidations }),
      // Batching is only worth a word when it is on: no control here turns it on or off.
      np.batching ? t(np.pending_changes === 1 ? "prompt.batching.one" : "prompt.batching.many", { changes: plural(np.pending_changes, "change") }) : "",
      // Before the first turn there is no last turn to count from: the model has seen nothing yet.
      np.turns && !np.batching && np.pending_changes ? t("prompt.pending", { n: np.pending_changes }) : "",
    ),
  ];
}

// Counters: the conversation and the re-lists always; the "something went wrong" counters only
// once they have counted something, so a panel where they cannot move does not show a row of zeros.
// Each counter is an element of its own (named by its key in the view), so a press marks the ones it moved.
export function counterLine(c) {
  const bits = [
    ["conversation", t("counter.conversation", { messages: plural(c.conversation, "message") })],
    ["refetches", t("counter.refetches", { n: c.refetches })],
  ];
  if (c.wasted_refetches) bits.push(["wasted_refetches", t("counter.wasted", { n: c.wasted_refetches })]);
  if (c.ignored_notifications) bits.push(["ignored_notifications", t("counter.ignored", { n: c.ignored_notifications })]);
  if (c.lost_answers) bits.push(["lost_answers", t("counter.lost_answers", { n: c.lost_answers })]);
  // A no-break space before each dot: a wrapped line ends with the dot, never starts with it.
  const parts = bits.map(([key, text], i) => [i ? "\u00a0· " : null, h("span", { "data-counter": key }, text)]);
  return h("p", { class: "meta counters" }, ...parts);
}

// One step of the log. The playground appends these one at a time (see playground.js).
// ``numbered``: each step under its number ("Step 6: A dies"); a stepper, which counts moments, names
// the event alone.
export function logEntry(step, numbered = true) {
  const label = !step.step ? t("log.start") : numbered ? t("log.step", { n: step.step, label: step.label.text }) : step.label.text;
  return h(
    "li",
    { class: "step", "data-step": step.step },
    h("p", { class: "step-label" }, label),
    h("ul", { class: "lines" }, step.lines.map(lineItem)),
  );
}

export function logList(log, numbered = true) {
  return h("ol", { class: "log" }, log.map((step) => logEntry(step, numbered)));
}

function headerText(m) {
  const bits = [`${m.sender} → ${m.receiver}`];
  if (m.http) bits.push(m.http);
  else if (m.transport === "stdio") bits.push("stdio");
  return bits.join(" · ");
}

// Typed items that never crossed the wire say what they are: built by the host, or seen by it.
function offWire(m) {
  if (m.kind === "host_built") return t("wire.host_built");
  if (m.kind === "stream_end") return t("wire.stream_end");
  return t("wire.off");
}

// Indented JSON, a box per line: a line too long for the screen wraps under its own indent plus two,
// not at the left edge (the .ln and .iN rules in lesson.css; lesson/content/markup.py does the same for the
// lesson's messages). The newlines stay as text between the boxes, so a copy is the JSON as it was.
// The deepest indent lesson.css gives a hanging indent (.i0 to .i16), as lesson/content/markup.py has it.
const MAX_INDENT = 16;
// After a "/", "_" or "." between two other characters (never between the slashes of "https://").
const JSON_BREAK = /(?<=[^/_.][/_.])(?=[^/_.])/;
export function jsonLines(text) {
  const out = [];
  text.split("\n").forEach((line, i) => {
    if (i) out.push("\n");
    const indent = line.length - line.trimStart().length;
    // The indent in a span of its own that never wraps: a long key then breaks where the line is
    // full, not after its indent (which would leave a line of bare spaces).
    const lead = indent ? h("span", { class: "ind" }, line.slice(0, indent)) : null;
    // A long name breaks after its separators (io.modelcontextprotocol/|subscriptionId), not mid-word.
    const words = line.slice(indent).split(/(\S{14,})/).flatMap((part, n) => (n % 2 ? breakAfter(part, JSON_BREAK) : [part]));
    out.push(h("span", { class: indent <= MAX_INDENT ? `ln i${indent}` : "ln" }, lead, ...words));
  });
  return out;
}

// A frame's HTTP headers, one code box each. The name and the value are boxes of their own, so a
// narrow screen breaks a line between them rather than at a hyphen inside one ("2026-07-" / "28").
export function headerList(headers) {
  const entries = Object.entries(headers || {});
  if (!entries.length) return null;
  // A list value ("application/json, text/event-stream") is a box per item, broken after its commas.
  // One word with no spaces (a session id) is a "token": too long for its line, it breaks into even halves.
  const box = (text) => h("span", /\s/.test(text) ? {} : { class: "token" }, text);
  const value = (v) => String(v).split(", ").flatMap((item, i, all) => [box(i < all.length - 1 ? `${item},` : item), i < all.length - 1 ? " " : null]);
  return h("p", { class: "msg-headers" }, entries.map(([k, v]) => h("code", {}, h("span", {}, `${k}:`), " ", value(v))));
}

// A view's JSON carries the last step's frames once, in its comparison (none before the first step).
export const stepWire = (view) => view.comparison?.this.wire ?? [];

export function wireList(wire) {
  if (!wire.length) return h("p", { class: "placeholder" }, t("wire.none"));
  return h(
    "ol",
    { class: "wire" },
    wire.map((m) =>
      h(
        "li",
        { class: m.on_wire ? "msg" : "msg local" },
        h("p", { class: "msg-head" }, content(headerText(m)), m.on_wire ? null : [" ", h("span", { class: "badge" }, offWire(m))]),
        headerList(m.headers),
        m.payload ? h("pre", {}, h("code", {}, jsonLines(JSON.stringify(m.payload, null, 2)))) : h("p", { class: "subtle" }, t("wire.no_body")),
        m.note ? h("p", { class: "msg-note", "data-content": "" }, m.note.text) : null,
      ),
    ),
  );
}

// How many of a step's items crossed the wire (not a result the host built, not a stream's end).
export const crossed = (wire) => wire.filter((m) => m.on_wire).length;

// "3 wire messages"; items that never crossed the wire (a result the host built, a stream's end) are
// counted apart, so a step where nothing crossed does not read as if something did.
function wireCount(wire) {
  const on = crossed(wire);
  const off = wire.length - on;
  if (!off) return plural(on, "wire_message");
  return t(on ? "wire.count_with_local" : "wire.count_only_local", { messages: plural(on, "wire_message"), local: plural(off, "local_item") });
}

// The other era's only line when this step switched eras (lesson/sim/run.py, NO_TWIN).
const NO_TWIN = "narration.no_twin";

// What the step cost on the wire in each era, as a bar pair beside the table: shown only when the eras
// differ (a restart, a return), where that difference is the point. The full diagram is one link away.
// `even`: drawn when both eras sent as many too (the restart lab, where that can be the answer).
export function costStrip(cmp, diagramId, title = "cost.title", even = false) {
  // An era switch has no counterpart in the other era: its cost beside nothing would compare nothing.
  if (!cmp || cmp.other.lines.some((line) => line.code === NO_TWIN)) return null;
  const on = (s) => crossed(s.wire);
  const [legacy, modern] = cmp.this.era === "legacy" ? [cmp.this, cmp.other] : [cmp.other, cmp.this];
  if (on(legacy) === on(modern) && !even) return null;
  const most = Math.max(on(legacy), on(modern), 1);
  const row = (s) => {
    const bar = h("span", { class: "cost-bar", "aria-hidden": "true" });
    bar.style.setProperty("--share", String(on(s) / most));
    // A count that ended in an error says so: fewer messages may only mean the era failed sooner.
    const failed = s.lines.some((l) => l.tone === "error");
    return h("li", { class: `cost-row era-${s.era}` }, h("span", { class: "cost-era" }, t(`era.${s.era}`)), bar, h("strong", {}, plural(on(s), "wire_message"), failed ? t("cost.error") : ""));
  };
  return [
    h("p", { class: "cost-title" }, t(title)),
    h("ul", { class: "cost-rows" }, row(legacy), row(modern)),
    diagramId ? h("a", { href: `#${diagramId}` }, t("cost.diagram")) : null,
  ];
}

// With the log on view, this era's side names its wire count only (its lines are the log's newest
// step), and the other era's side says only what differs: each press is said once.
export function comparison(cmp, logShown = false, dual = false) {
  if (!cmp || dual) return h("p", { class: "placeholder" }, t(dual ? "comparison.dual" : "comparison.empty"));
  // The other era says only what differs from this one: a line this era has too is said once, here.
  const said = new Set(cmp.this.lines.map((line) => line.text));
  const side = (s, mine) => {
    const lines = mine ? (logShown ? [] : s.lines) : s.lines.filter((line) => !said.has(line.text));
    return h(
      "section",
      { class: `era-side era-${s.era}` },
      h("h5", {}, t(mine ? "comparison.mine" : "comparison.other", { era: t(`era.${s.era}`) })),
      lines.length ? h("ul", { class: "lines" }, lines.map(lineItem)) : null,
      lines.length < s.lines.length ? h("p", { class: "subtle" }, t(mine ? "comparison.in_log" : "comparison.same", { era: t(`era.${cmp.this.era}`) })) : null,
      h("p", { class: "meta" }, wireCount(s.wire)),
    );
  };
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
      held.length > 1 ? t("handles.held.many") : t("handles.held.one"),
      // flatMap: h() flattens one level of children, and each handle brings a separator and a <code>.
      held.length ? held.flatMap((id, i) => [i ? ", " : "", h("code", {}, id)]) : h("span", { class: "placeholder" }, t("handles.none_yet")),
    ),
    stores.length
      ? h(
          "div",
          { class: "stores" },
          stores.map((s) =>
            h(
              "section",
              { class: s.current ? "store current" : "store", "aria-label": s.label.text, "data-store": s.label.text },
              h("h5", {}, content(s.label.text), s.current ? t("handles.current") : ""),
              Object.keys(s.baskets).length
                ? h("ul", { class: "lines" }, Object.entries(s.baskets).map(([id, items]) => h("li", { "data-basket": id }, h("code", {}, id), ": ", items.length ? content(items.join(", ")) : t("handles.empty"))))
                : h("p", { class: "placeholder" }, t("handles.no_baskets")),
            ),
          ),
        )
      : null,
  ];
}
