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
  // the new status of each row whose status changed
  const status = {};
  for (const [name, row] of now) {
    const prev = old.get(name);
    if (!prev) continue;
    const fields = SERVER_FIELDS.filter(([key]) => !same(prev[key], row[key])).map(([, field]) => field);
    if (fields.length) changed[name] = fields;
    if (fields.includes("status")) status[name] = row.status;
  }
  return { added, removed, changed, status };
}

// A tool in the prompt, as a key: its name and the server the host lists it under.
export const toolKey = (t) => `${t.name}@${t.server}`;

// Tools that joined or left the model's next prompt with this press.
function diffPrompt(before, after) {
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
  ["lost_answers", (n) => t("changes.lost_answers", { n })],
];

function diffCounters(before, after) {
  if (!before || !after) return [];
  return COUNTERS.filter(([key]) => before[key] !== after[key]).map(([key, say]) => ({
    key,
    from: before[key],
    to: after[key],
    text: t("changes.was", { now: say(after[key]), was: before[key] }),
  }));
}

// Baskets by store (the handles panel): baskets new or gone from a store, baskets whose items
// changed, handles the model holds now that it did not, and the store the next call lands on when
// that moved. A store that is no longer shown loses its baskets with it.
function diffStores(before, after) {
  const old = new Map((before.stores || []).map((s) => [s.label.text, s]));
  const out = { added: [], removed: [], changed: [], current: null, held: [] };
  for (const s of after.stores || []) {
    const prev = old.get(s.label.text);
    old.delete(s.label.text);
    const had = (prev && prev.baskets) || {};
    for (const [id, items] of Object.entries(s.baskets)) {
      if (!(id in had)) out.added.push({ store: s.label.text, id });
      else if (!same(had[id], items)) out.changed.push({ store: s.label.text, id });
    }
    for (const id of Object.keys(had)) if (!(id in s.baskets)) out.removed.push({ store: s.label.text, id });
    if (s.current && !(prev && prev.current)) out.current = s.label.text;
  }
  for (const s of old.values()) for (const id of Object.keys(s.baskets)) out.removed.push({ store: s.label.text, id });
  const held = new Set(before.handles || []);
  out.held = (after.handles || []).filter((id) => !held.has(id));
  return out;
}

const NO_STORES = { added: [], removed: [], changed: [], current: null, held: [] };

// The turns taken and the prompt cache invalidations, said like the counters; false when neither moved.
function diffTurns(before, after) {
  const bits = [];
  if (before.turns !== after.turns) bits.push(t("changes.was", { now: t("changes.turns", { n: after.turns }), was: before.turns }));
  if (before.cache_invalidations !== after.cache_invalidations) {
    bits.push(t("changes.was", { now: t("changes.invalidations", { n: after.cache_invalidations }), was: before.cache_invalidations }));
  }
  return bits.length ? bits : false;
}

// Everything one press changed. `before` is null for the first view of a playground: nothing is
// marked then, since nothing was pressed.
export function diffViews(before, after) {
  if (!before) return { first: true, servers: { added: [], removed: [], changed: {}, status: {} }, prompt: { joined: [], left: [] }, stores: NO_STORES, counters: [], turns: false, comparison: false };
  return {
    first: false,
    servers: diffServers(before.servers, after.servers),
    prompt: diffPrompt(before.next_prompt, after.next_prompt),
    stores: diffStores(before, after),
    counters: diffCounters(before.counters, after.counters),
    turns: diffTurns(before.next_prompt, after.next_prompt),
    comparison: !same(before.comparison, after.comparison) && Boolean(after.comparison),
  };
}

// "Nothing in the table or the next prompt changed.": naming the regions this panel shows, no others.
function nothingChanged(shows) {
  const regions = ["servers", "prompt", "handles"].filter((r) => shows[r]).map((r) => t(`changes.region.${r}`));
  if (!regions.length) return t("changes.none_on_view");
  let list;
  try {
    list = new Intl.ListFormat(document.documentElement.lang || undefined, { type: "disjunction" }).format(regions);
  } catch {
    // a locale's name that is no language tag
    list = regions.join(t("changes.or"));
  }
  return t("changes.none", { regions: list });
}

// One sentence a screen reader can take in: what changed, region by region, naming only the regions
// the panel shows (`shows`: servers, prompt, handles), after the tool error the step ended in or the
// reason a press was refused, if any (`failure`, `refused`: the text of its log line); when nothing
// changed, the step's note (`note`) says why.
export function summarize(d, { failure = null, refused = null, note = null, shows = { servers: true, prompt: true, handles: true } } = {}) {
  if (d.first) return "";
  const bits = [];
  if (shows.servers) {
    for (const n of d.servers.added) bits.push(t("changes.added", { server: n }));
    for (const n of d.servers.removed) bits.push(t("changes.removed", { server: n }));
    for (const [n, fields] of Object.entries(d.servers.changed)) {
      const named = fields.map((f) => (f === "status" ? t("changes.status_now", { status: t(`status.${d.servers.status[n]}`) }) : t(`field.${f}`)));
      bits.push(t("changes.changed", { server: n, fields: named.join(", ") }));
    }
  }
  if (shows.prompt) {
    if (d.prompt.joined.length) bits.push(t("changes.joined", { tools: d.prompt.joined.map((x) => x.name).join(", ") }));
    if (d.prompt.left.length) bits.push(t("changes.left", { tools: d.prompt.left.map((x) => x.name).join(", ") }));
    if (d.turns) bits.push(...d.turns);
    for (const c of d.counters) bits.push(c.text);
  }
  if (shows.handles) {
    for (const b of d.stores.added) bits.push(t("changes.basket_added", { basket: b.id, store: b.store }));
    for (const b of d.stores.changed) bits.push(t("changes.basket_changed", { basket: b.id, store: b.store }));
    for (const b of d.stores.removed) bits.push(t("changes.basket_removed", { basket: b.id, store: b.store }));
    if (d.stores.held.length) bits.push(t("changes.held", { handles: d.stores.held.join(", ") }));
    if (d.stores.current) bits.push(t("changes.current", { store: d.stores.current }));
  }
  const failed = failure ? `${t("changes.failed", { text: failure })} ` : refused ? `${t("changes.rejected", { text: refused })} ` : "";
  if (!bits.length) return failed + nothingChanged(shows) + (note && !refused ? ` ${t("tone.warn")}${note}` : "");
  return failed + t("changes.summary", { changes: bits.join("; ") });
}

// "after press 3 of 7": how the page names a step to a learner (step 0 is the start).
export function stepName(k, total) {
  if (k === 0) return total ? t("step.start.of", { total }) : t("step.start");
  return total && total !== k ? t("step.after.of", { k, total }) : t("step.after", { k });
}
