// What one press changed, found by comparing the view before it with the view after it. Pure
// functions over two views as the server sent them: no protocol knowledge, no DOM.
import { plural } from "./render.js";

const SERVER_FIELDS = [
  ["status", "status"],
  ["era", "era"],
  ["listen", "stream"],
  ["tools", "tools"],
  ["last_change", "last change"],
  ["last_error", "last error"],
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
    const fields = SERVER_FIELDS.filter(([key]) => !same(prev[key], row[key])).map(([, label]) => label);
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
  ["conversation", (n) => `conversation ${plural(n, "message")}`],
  ["refetches", (n) => `tools/list calls ${n}`],
  ["wasted_refetches", (n) => `wasted re-fetches ${n}`],
  ["ignored_notifications", (n) => `ignored notifications ${n}`],
];

export function diffCounters(before, after) {
  if (!before || !after) return [];
  return COUNTERS.filter(([key]) => before[key] !== after[key]).map(([key, say]) => ({
    key,
    from: before[key],
    to: after[key],
    text: `${say(after[key])} (was ${before[key]})`,
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
  for (const n of d.servers.added) bits.push(`server ${n} is new`);
  for (const n of d.servers.removed) bits.push(`server ${n} is gone`);
  for (const [n, fields] of Object.entries(d.servers.changed)) bits.push(`server ${n}: ${fields.join(", ")} changed`);
  if (d.prompt.joined.length) bits.push(`joined the next prompt: ${d.prompt.joined.map((t) => t.name).join(", ")}`);
  if (d.prompt.left.length) bits.push(`left the next prompt: ${d.prompt.left.map((t) => t.name).join(", ")}`);
  for (const c of d.counters) bits.push(c.text);
  if (!bits.length) return "Nothing in the table or the next prompt changed.";
  const text = `Changed: ${bits.join("; ")}.`;
  return text[0].toUpperCase() + text.slice(1);
}

// "after press 3 of 7": how the page names a step to a learner (step 0 is the start).
export function stepName(k, total) {
  if (k === 0) return total ? `at the start (before press 1 of ${total})` : "at the start";
  return total && total !== k ? `after press ${k} of ${total}` : `after press ${k}`;
}
