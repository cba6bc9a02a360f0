// A playground's presses as the short items of its one-line log, which a task's answer (quiz.js) and a share
// link (share.js) carry:
// a press is its button id, an era switch "@" and the era (lesson/playground/tasks.py reads the same).
// An id as lesson/content/base.py has it (ID_PATTERN, at most ID_MAX = 40 characters).
const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

const isId = (text) => typeof text === "string" && ID.test(text);

const pressItems = (events) => events.map(([kind, arg]) => (kind === "e" ? `@${arg}` : arg));

// A playground's log as one line, `panel:era:variant:presses`, as a task's answer and a share link carry
// it (lesson/playground/tasks.py reads the same).
export const logLine = (panel, { era, variant, events }) => `${panel}:${era}:${variant || ""}:${pressItems(events).join(",")}`;

// {panel, variant, era, events} for a line of that form, at most 500 presses; otherwise null.
export function readLine(text) {
  const parts = String(text).split(":");
  if (parts.length !== 4) return null;
  const [panel, era, variant, rest] = parts;
  const items = rest ? rest.split(",") : [];
  if (!isId(panel) || (era !== "legacy" && era !== "modern") || (variant && !isId(variant)) || items.length > 500) return null;
  const events = eventsOf(items);
  return events && { panel, variant: variant || null, era, events };
}

// The log's events for those items; null when one is neither a button id nor an era switch.
function eventsOf(items) {
  const events = [];
  for (const item of items) {
    if (item === "@legacy" || item === "@modern") events.push(["e", item.slice(1)]);
    else if (isId(item)) events.push(["p", item]);
    else return null;
  }
  return events;
}
