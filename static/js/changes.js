// What one press changed, found by comparing the view before it with the view after it. Pure
// functions over two views as the server sent them: no protocol knowledge, no DOM.
import { t } from "./i18n.js";
import { plural } from "./render.js";

// The view's key for each server column, and the column's field name (render.js marks each cell
// with it; the catalogue's "field.<name>" says it in a sentence).
const SERVER_FIELDS = [
  ["status", "status"],
  ["era", "era"],
  ["listen", "stream"],
  ["tools", "tools"],
  ["last_change", "last_change"],
  ["last_error", "last_error"],
];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Server rows by name: which rows are new, which are gone, and which columns changed in the rest.
export function diffServers(before, after) {
  const old = new Map((before || []).map((r) => [r.name, r]));
  const now = new Map((after || []).map((r) => [r.name, r]));
  const added = [...now.keys()].filter((n) => !old.has(n));
  const removed = [...old.keys()].filter((n) => !now.has(n));
  const changed = {};
  for (const [name, row] of now) {
    const prev = old.get(name);
    if (!prev) continue;
    const fields = SERVER_FIELDS.filter(([key]) => !same(prev[key], row[key])).map(([, field]) => field);
    if (fields.length) changed[name] = fields;
  }
  return { added, removed, changed };
}

const toolKey = (t) => `${t.name}@${t.server}`;

// Tools that joined or left the model's next prompt with this press.
export function diffPrompt(before, after) {
  const old = new Set(((before && before.tools) || []).map(toolKey));
  const now = new Set(((after && after.tools) || []).map(toolKey));
  return {
    joined: ((after && after.tools) || []).filter((t) => !old.has(toolKey(t))),
    left: ((before && before.tools) || []).filter((t) => !now.has(toolKey(t))),
  };
}

const COUNTERS = [
  ["conversation", (n) => t("changes.conversation", { messages: plural(n, "message") })],
  ["refetches", (n) => t("changes.refetches", { n })],
  ["wasted_refetches", (n) => t("changes.wasted", { n })],
  ["ignored_notifications", (n) => t("changes.ignored", { n })],
];

export function diffCounters(before, after) {
  if (!before || !after) return [];
  return COUNTERS.filter(([key]) => before[key] !== after[key]).map(([key, say]) => ({
    key,
    from: before[key],
    to: after[key],
    text: t("changes.was", { now: say(after[key]), was: before[key] }),
  }));
}

// Everything one press changed. `before` is null for the first view of a playground: nothing is
// marked then, since nothing was pressed.
export function diffViews(before, after) {
  if (!before) return { first: true, servers: { added: [], removed: [], changed: {} }, prompt: { joined: [], left: [] }, counters: [], turns: false, comparison: false };
  return {
    first: false,
    servers: diffServers(before.servers, after.servers),
    prompt: diffPrompt(before.next_prompt, after.next_prompt),
    counters: diffCounters(before.counters, after.counters),
    turns: before.next_prompt.turns !== after.next_prompt.turns || before.next_prompt.cache_invalidations !== after.next_prompt.cache_invalidations,
    comparison: !same(before.comparison, after.comparison) && Boolean(after.comparison),
  };
}

export function isEmpty(d) {
  return (
    !d.servers.added.length &&
    !d.servers.removed.length &&
    !Object.keys(d.servers.changed).length &&
    !d.prompt.joined.length &&
    !d.prompt.left.length &&
    !d.counters.length &&
    !d.turns
  );
}

// One sentence a screen reader can take in: what changed, in the order the page shows it.
export function summarize(d) {
  if (d.first) return "";
  const bits = [];
  for (const n of d.servers.added) bits.push(t("changes.added", { server: n }));
  for (const n of d.servers.removed) bits.push(t("changes.removed", { server: n }));
  for (const [n, fields] of Object.entries(d.servers.changed)) bits.push(t("changes.changed", { server: n, fields: fields.map((f) => t(`field.${f}`)).join(", ") }));
  if (d.prompt.joined.length) bits.push(t("changes.joined", { tools: d.prompt.joined.map((x) => x.name).join(", ") }));
  if (d.prompt.left.length) bits.push(t("changes.left", { tools: d.prompt.left.map((x) => x.name).join(", ") }));
  for (const c of d.counters) bits.push(c.text);
  if (!bits.length) return t("changes.none");
  return t("changes.summary", { changes: bits.join("; ") });
}

// "after press 3 of 7": how the page names a step to a learner (step 0 is the start).
export function stepName(k, total) {
  if (k === 0) return total ? t("step.start.of", { total }) : t("step.start");
  return total && total !== k ? t("step.after.of", { k, total }) : t("step.after", { k });
}
