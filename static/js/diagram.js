// The wire of one step as a sequence diagram: a lane per party, an arrow per frame, time running
// down. A CSS grid: lanes are columns, frames are rows, so the diagram needs no layout code and
// scrolls inside itself when the lanes do not fit. Every arrow is a button that shows the frame's
// full JSON; the ordered list beside it (render.js's wireList) is the same frames as text.
import { h } from "./dom.js";
import { need, t } from "./i18n.js";
import { breakAfter, headerList, jsonLines } from "./render.js";

await need("diagram"); // this module's own messages (i18n.js)

function payloadName(p) {
  if (!p) return "";
  if (p.method) return p.method;
  if (p.error) return `error ${p.error.code ?? ""}`.trim();
  if ("result" in p) return p.result && p.result.isError ? "result (isError: true)" : "result";
  if (p.isError) return "tool error (isError: true)";
  return "";
}

// The words on an arrow: the JSON-RPC method, or the HTTP status, and how it travels. These are
// protocol words (methods, statuses, transports), shown as content data, not UI text.
export function frameLabel(m) {
  const what = payloadName(m.payload);
  switch (m.kind) {
    case "http_request":
      return `${m.method}${what ? ` ${what}` : m.method === "GET" ? " (open a stream)" : ""}`;
    case "http_response":
      return `HTTP ${m.status}${m.sse ? " · SSE stream opens" : ""}${what ? ` · ${what}` : ""}`;
    case "sse_event":
      return `SSE event${what ? ` · ${what}` : ""}`;
    case "stdio_line":
      return `stdio line${what ? ` · ${what}` : ""}`;
    case "stream_end":
      return `stream ${m.how || "ends"}`;
    case "host_built":
      return `${what || "a message"} for ${m.receiver}`;
    default:
      return what || m.kind || "frame";
  }
}

const KINDS = ["http_request", "http_response", "sse_event", "stdio_line", "stream_end", "host_built"];
const kindWords = (kind) => (KINDS.includes(kind) ? t(`diagram.kind.${kind}`) : undefined);

// The lanes of a wire: the host first, the model last, every other party in order of appearance.
export function lanes(wire) {
  const seen = [];
  for (const m of wire) for (const p of [m.sender, m.receiver]) if (p && !seen.includes(p)) seen.push(p);
  const rank = (p) => (p === "host" ? 0 : p === "model" ? 2 : 1);
  return seen.map((p, i) => [p, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([p]) => p);
}

function detail(m, n, total) {
  return [
    h("p", { class: "msg-head" }, t("diagram.frame_head", { n, total, sender: m.sender, receiver: m.receiver, kind: kindWords(m.kind) || m.kind })),
    m.http ? h("p", {}, h("code", {}, m.http)) : null,
    headerList(m.headers),
    m.payload ? h("pre", {}, h("code", {}, jsonLines(JSON.stringify(m.payload, null, 2)))) : h("p", { class: "subtle" }, t("wire.no_body")),
    m.note ? h("p", { class: "msg-note", "data-content": "" }, m.note.text) : null,
  ];
}

let uid = 0;

// The longest word on an arrow, in characters, measured against the lanes its label has: the label of
// an arrow between neighbours has one and a half lanes (a quarter lane beyond each end), one across a
// lane two and a half, a box in one lane one. The lanes are made at least that wide (--words in the
// stylesheet), so "notifications/" is never cut in two; when that is wider than the screen, the diagram
// scrolls sideways inside its box instead.
function longestWord(wire, col) {
  let most = 0;
  for (const m of wire) {
    const apart = Math.abs(col(m.sender) - col(m.receiver));
    const lanes = apart ? apart + 0.5 : 1;
    const word = Math.max(...frameLabel(m).split(/\s+|(?<=\/)/).map((w) => w.length));
    most = Math.max(most, word / lanes);
  }
  return Math.ceil(most);
}

// The page's CSP refuses style attributes, not styles set through the CSSOM: place grid items here.
function place(el, props) {
  for (const [k, v] of Object.entries(props)) el.style.setProperty(k, String(v));
  return el;
}

// One era's diagram. `title` names it ("Modern (2026-07-28), this playground").
export function sequenceDiagram(wire, title) {
  const id = `seq-${++uid}`;
  const parties = lanes(wire);
  const col = (p) => parties.indexOf(p) + 1;
  const info = h("div", { class: "seq-detail", id: `${id}-detail` }, h("p", { class: "subtle" }, t(wire.some((m) => m.on_wire) ? "diagram.choose" : "diagram.choose_local")));
  // The detail moves to its arrow, and a live region that moves is often not announced: a fixed one
  // says which frame opened.
  const said = h("p", { class: "visually-hidden", "aria-live": "polite" });
  if (!wire.length) return h("figure", { class: "seq" }, h("figcaption", {}, title), h("p", { class: "placeholder" }, t("wire.none")));
  const rows = wire.map((m, i) => {
    const n = i + 1;
    const row = i + 2;
    const a = col(m.sender);
    const b = col(m.receiver);
    const local = !m.on_wire;
    const from = Math.min(a, b);
    const to = Math.max(a, b);
    const label = frameLabel(m);
    const classes = ["seq-arrow", `kind-${m.kind}`, a <= b ? "to-right" : "to-left", local ? "local" : "", a === b ? "self" : ""].filter(Boolean).join(" ");
    // The name starts with what the arrow shows (WCAG 2.5.3: speech users say what they see), then
    // adds who sends it to whom, and the kind when the label does not already say it.
    const localText = local ? (m.kind === "host_built" ? t("wire.host_built") : t("wire.stream_end")) : null;
    const shown = localText ? `${label} ${localText}` : label;
    const kind = kindWords(m.kind) || "";
    const name = t("diagram.frame_name", { n, total: wire.length, sender: m.sender, receiver: m.receiver, label: shown, kind: kind && !shown.includes(kind) ? `, ${kind}` : "" });
    // A box the host built spans from the host to whoever it is for (the model), as an arrow would.
    const where = { "grid-row": row, "grid-column": `${from} / ${to + 1}`, "--span": to - from + 1 };
    const button = h(
      "button",
      {
        type: "button",
        class: classes,
        "aria-label": name,
        "aria-controls": `${id}-detail`,
        "aria-expanded": "false",
        "data-frame": String(i),
      },
      h("span", { class: "seq-n", "aria-hidden": "true" }, `${n}`),
      // A narrow lane breaks a method name after its slashes ("elicitation/" then "create"), not mid-word.
      // The words sit on their own background, so a lane's line that passes under them does not cross a letter.
      h("span", { class: "seq-label", "data-content": "" }, h("span", { class: "seq-words" }, breakAfter(label, /(?<=\/)/))),
      localText ? h("span", { class: "seq-local" }, localText) : null,
      h("span", { class: "seq-line", "aria-hidden": "true" }),
    );
    return place(button, where);
  });
  const laneLines = parties.map((p, i) => place(h("div", { class: "seq-lane", "aria-hidden": "true" }), { "grid-column": i + 1, "grid-row": `2 / ${wire.length + 2}` }));
  const grid = place(
    h(
      "div",
      { class: "seq-grid" },
      parties.map((p, i) => place(h("div", { class: "seq-lane-head", "data-content": "" }, p), { "grid-column": i + 1, "grid-row": 1 })),
      laneLines,
      rows,
    ),
    { "grid-template-columns": `repeat(${parties.length}, minmax(var(--lane-min), 1fr))`, "--words": longestWord(wire, col) },
  );
  // The same frames as an ordered list, for reading in order: no JSON here (the arrows open it).
  const listId = `${id}-list`;
  const toggle = h("button", { type: "button", class: "seq-toggle", "aria-expanded": "false", "aria-controls": listId }, t("diagram.as_list"));
  const list = h(
    "ol",
    { class: "seq-text", id: listId, hidden: "" },
    wire.map((m) => h("li", {}, t("diagram.list_item", { sender: m.sender, receiver: m.receiver, label: frameLabel(m), kind: kindWords(m.kind) || m.kind }))),
  );
  toggle.addEventListener("click", () => {
    list.hidden = !list.hidden;
    toggle.setAttribute("aria-expanded", String(!list.hidden));
  });
  const textList = h("div", { class: "seq-textwrap" }, toggle, list);
  const figure = h(
    "figure",
    { class: "seq", "data-frames": String(wire.length) },
    h("figcaption", {}, title, h("span", { class: "subtle" }, t(wire.length === 1 ? "diagram.frames.one" : "diagram.frames.many", { n: wire.length }))),
    said,
    h("div", { class: "seq-scroll" }, grid),
    info,
    textList,
  );
  // A chosen frame opens right under its arrow, the rows below moving down one, so it is read where it
  // was chosen rather than under a long diagram; choosing it again closes it.
  const hint = info.firstChild;
  function choose(at) {
    rows.forEach((b, j) => {
      b.setAttribute("aria-expanded", String(j === at));
      place(b, { "grid-row": j + 2 + (at !== null && j > at ? 1 : 0) });
    });
    for (const line of laneLines) place(line, { "grid-row": `2 / ${wire.length + 2 + (at === null ? 0 : 1)}` });
    if (at === null) {
      info.replaceChildren(hint);
      info.style.removeProperty("grid-row");
      textList.before(info);
    } else {
      info.replaceChildren(...detail(wire[at], at + 1, wire.length).filter(Boolean));
      place(info, { "grid-row": at + 3 });
      rows[at].after(info);
    }
    said.textContent = at === null ? "" : info.firstChild.textContent;
  }
  figure.addEventListener("click", (event) => {
    const button = event.target.closest(".seq-arrow");
    if (!button) return;
    choose(button.getAttribute("aria-expanded") === "true" ? null : Number(button.dataset.frame));
  });
  figure.addEventListener("keydown", (event) => {
    const button = event.target.closest(".seq-arrow");
    if (!button || !["ArrowDown", "ArrowUp", "Home", "End"].includes(event.key)) return;
    const all = [...figure.querySelectorAll(".seq-arrow")];
    const at = all.indexOf(button);
    const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[event.key];
    if (all[next]) {
      event.preventDefault();
      all[next].focus();
    }
  });
  return figure;
}

const LEGEND = ["http_request", "http_response", "sse_event", "stdio_line", "host_built"];

// Both eras for the same press, side by side: the comparison carries each era's wire.
export function eraDiagrams(view) {
  const cmp = view.comparison;
  const legend = h("ul", { class: "seq-legend", "aria-label": t("diagram.legend") }, LEGEND.map((kind) => h("li", { class: `kind-${kind}` }, t(`diagram.legend.${kind}`))));
  // A host of both eras has one step to draw: two diagrams under era names would be the same host twice.
  if (!cmp || view.dual_era) return h("div", { class: "seq-pair one" }, legend, sequenceDiagram(cmp ? cmp.this.wire : [], t("diagram.this_step")));
  const [legacy, modern] = cmp.this.era === "legacy" ? [cmp.this, cmp.other] : [cmp.other, cmp.this];
  return h(
    "div",
    { class: "seq-pair" },
    legend,
    sequenceDiagram(legacy.wire, t(legacy === cmp.this ? "comparison.mine" : "comparison.other", { era: t(`era.${legacy.era}`) })),
    sequenceDiagram(modern.wire, t(modern === cmp.this ? "comparison.mine" : "comparison.other", { era: t(`era.${modern.era}`) })),
  );
}

