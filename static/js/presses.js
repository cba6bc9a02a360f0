// A playground's presses as the short items a task line (quiz.js) and a share link (share.js) carry:
// a press is its button id, an era switch "@" and the era (lesson/playground/tasks.py reads the same).
// An id as lesson/content/base.py has it (ID_PATTERN, at most ID_MAX = 40 characters).
const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

export const isId = (text) => typeof text === "string" && ID.test(text);

export const pressItems = (events) => events.map(([kind, arg]) => (kind === "e" ? `@${arg}` : arg));

// The log's events for those items; null when one is neither a button id nor an era switch.
export function eventsOf(items) {
  const events = [];
  for (const item of items) {
    if (item === "@legacy" || item === "@modern") events.push(["e", item.slice(1)]);
    else if (isId(item)) events.push(["p", item]);
    else return null;
  }
  return events;
}
