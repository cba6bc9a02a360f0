"""Quiz tasks: "do this in the playground", checked by replaying what the learner pressed.

The page sends the log it holds for the playground (its start and its presses), written as one line::

    outage:modern::add-c,call-a,a-dies,turn       panel : era : variant (may be empty) : presses

A press is a button id; ``@legacy`` or ``@modern`` switches the era. The same line is what the page keeps
as its answer, so the server can grade it again at any time (after a reload, from a progress file): the
verdict is always the simulation's, never the page's. A line that does not fit (malformed, too long, for
another playground, pressing a button the panel does not have) is refused with a code, the values the
page's message for that code needs (the page shows it from the message catalogue, in the learner's
language) and an English message for logs and API clients.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from lesson.content.base import ID_MAX
from lesson.content.goals import holds
from lesson.content.models import Task
from lesson.content.panels import BUTTON_ID_MAX, PlaygroundPanel
from lesson.sim import View, begin, build_view
from lesson.sim.run import MAX_EVENTS, view

from .protocol import Log
from .replay import LogMismatch, checked, steps

MAX_LINE = MAX_EVENTS * (BUTTON_ID_MAX + 1) + 1_500  # every press with its comma, and room for the rest
_ID = rf"[a-z0-9][a-z0-9-]{{0,{ID_MAX - 1}}}"  # an id (content.base.ID_PATTERN), at most ID_MAX long
_LINE = re.compile(rf"({_ID}):(legacy|modern):((?:{_ID})?):(.*)")  # used with fullmatch
_PRESS = re.compile(rf"{_ID}|@legacy|@modern")


# Why a log is refused: the page shows the catalogue's "js.quiz.refused.<code>" with the error's params.
CODES = (
    "not_text",
    "too_long",
    "not_a_log",
    "too_many",
    "bad_press",
    "no_era_choice",
    "no_button",
    "no_variant",
    "fixed_era",
    "other_panel",
    "no_panel",
)


class TaskLogError(ValueError):
    """A log the server will not grade: ``code`` (one of CODES) and ``params`` for the page's message,
    and an English message that says why, in words a learner can act on."""

    def __init__(self, code: str, message: str, **params: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class TaskLog:
    panel: str
    log: Log


def log_line(panel: str, era: str, variant: str | None, items: list[str]) -> str:
    """The one-line form of a playground log (what the page sends and keeps, presses.js's ``logLine``):
    each item a button id, or ``@<era>`` for an era switch."""
    return f"{panel}:{era}:{variant or ''}:{','.join(items)}"


def read_line(text: Any) -> TaskLog:
    """Read a one-line log; raises TaskLogError when it is not one."""
    if not isinstance(text, str):
        raise TaskLogError(
            "not_text", "send the playground's log as one line of text, like 'outage:modern::a-dies,turn'"
        )
    if len(text) > MAX_LINE:
        raise TaskLogError(
            "too_long",
            f"that log is {len(text)} characters long; the limit is {MAX_LINE}",
            length=len(text),
            limit=MAX_LINE,
        )
    # fullmatch, not match: "$" would let a trailing newline through, to be stored with the answer.
    match = _LINE.fullmatch(text)
    if match is None:
        raise TaskLogError("not_a_log", "that is not a playground log (it reads panel:era:variant:presses)")
    panel, era, variant, rest = match.groups()
    items = rest.split(",") if rest else []
    if len(items) > MAX_EVENTS:
        raise TaskLogError(
            "too_many",
            f"that log has {len(items)} presses; a playground holds at most {MAX_EVENTS}",
            count=len(items),
            limit=MAX_EVENTS,
        )
    events: list[Any] = []
    for item in items:
        if not _PRESS.fullmatch(item):
            raise TaskLogError("bad_press", f"the log has a press that cannot be read: {item[:40]!r}", press=item[:40])
        events.append(("e", item[1:]) if item.startswith("@") else ("p", item))
    return TaskLog(panel, Log(panel=panel, variant=variant or None, era=era, events=events, seq=len(events)))


def done(task: Task, panel: PlaygroundPanel, log: Log) -> bool:
    """Replay the log on the panel and say whether it does the task: ``when`` holds on the view after
    some press (and ``earlier`` held after a press before that one). A task done stays done while the
    learner goes on pressing. Raises TaskLogError for a log the panel cannot replay (an unknown button
    or variant, an era the panel does not offer), wherever in the log it is."""
    earlier_met = task.earlier is None
    try:
        for run, history in steps(*checked(panel, log)):
            shown = build_view(run.state, history, run.last, run.other)
            if earlier_met and holds(task.when, shown):
                return True
            if not earlier_met:
                earlier_met = holds(task.earlier, shown)
    except LogMismatch as err:
        raise TaskLogError(err.code, str(err), **err.params) from None
    return False


def views(panel: PlaygroundPanel, log: Log) -> list[View]:
    """The view after each of the log's presses (what ``lesson check`` shows of a solution that falls
    short of its task)."""
    return [build_view(run.state, list(history), run.last, run.other) for run, history in steps(*checked(panel, log))]


def done_at_start(task: Task, panel: PlaygroundPanel) -> bool:
    """Whether the panel's start, before any press, already shows what the task asks for: a content
    error (``lesson check`` reports it), since the learner would have nothing to do."""
    run = begin(panel.start_for(None, era=panel.start.era))
    return task.earlier is None and holds(task.when, view(run))


class Grader:
    """Grades task answers against the panels, remembering recent verdicts: the page sends its held
    answers with every check, and a replay is the same every time for the same line."""

    def __init__(self, size: int = 512) -> None:
        self._seen: LRUCache[tuple[str, str, str], tuple[PlaygroundPanel, bool]] = LRUCache(size)
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe

    def grade(self, key: str, task: Task, panels: dict[str, Any], text: Any) -> bool:
        """Whether ``text`` (a one-line log) does ``task``; raises TaskLogError for a log that cannot be
        graded. ``key`` names the task (lesson and question) for the memory of verdicts."""
        parsed = read_line(text)
        if parsed.panel != task.panel:
            raise TaskLogError(
                "other_panel",
                f"that log is from the {parsed.panel!r} playground; this task is done in {task.panel!r}",
                panel=parsed.panel,
                task_panel=task.panel,
            )
        panel = panels.get(task.panel)
        if not isinstance(panel, PlaygroundPanel):
            raise TaskLogError("no_panel", f"there is no playground {task.panel!r} on this server", panel=task.panel)
        memo = (key, task.model_dump_json(), text)
        with self._lock:
            seen = self._seen.get(memo)
            # The panel is kept with the verdict: content loaded again brings new panel objects.
            if seen is not None and seen[0] is panel:
                return seen[1]
        verdict = done(task, panel, parsed.log)
        with self._lock:
            self._seen[memo] = (panel, verdict)
        return verdict


__all__ = ["CODES", "MAX_LINE", "Grader", "TaskLog", "TaskLogError", "done", "done_at_start", "log_line", "read_line"]
