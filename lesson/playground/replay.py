"""The one path from a page's log to a run.

A log is a panel's start (its variant and era) and the presses made on it, each a button or an era
switch. The socket's open and rebuild, the HTTP frame endpoint, a cached playground's history and the
quiz's task grading all replay a log here, so a log means the same thing, and is refused for the same
reasons, wherever it is sent.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from lesson.content.panels import PlaygroundPanel
from lesson.sim import Run, begin, runs
from lesson.sim.events import Event, SwitchEra
from lesson.sim.view import StepLog

from .protocol import Log
from .runcache import compact


class LogMismatch(ValueError):
    """A log its panel cannot replay. ``code`` says why (``no_variant``, ``no_era_choice``,
    ``fixed_era``, ``no_button``) and ``params`` hold what a message about it needs; the message itself
    is English, for logs and API clients."""

    def __init__(self, code: str, message: str, where: str = "", **params: str) -> None:
        super().__init__(message)
        self.code = code
        self.where = where  # the field of the frame that holds what does not fit (log.events.3)
        self.params = params


def event_of(panel: PlaygroundPanel, kind: str, arg: str, where: str = "") -> Event:
    """The event behind one entry of a log: ``("p", button)`` presses a button, ``("e", era)`` switches era;
    ``where`` names the frame's field that holds it, for a refusal."""
    if kind == "e":
        if not panel.era_choice:
            why = f"the {panel.id!r} playground has no era choice, so it cannot switch era"
            raise LogMismatch("no_era_choice", why, where, panel=panel.id)
        return SwitchEra(era=arg)
    button = panel.button(arg)
    if button is None:
        known = ", ".join(b.id for b in panel.buttons)
        raise LogMismatch(
            "no_button",
            f"the {panel.id!r} playground has no button {arg!r}; its buttons are: {known}",
            where,
            panel=panel.id,
            button=arg,
        )
    return button.event


def variant_of(panel: PlaygroundPanel, variant_id: str | None, where: str = "") -> str | None:
    """The variant a log or a frame names, checked against the panel; for none, the panel's first
    variant (None for a panel without variants)."""
    variant = panel.variant(variant_id)
    if variant_id is not None and variant is None:
        known = f"; its variants are: {', '.join(v.id for v in panel.variants)}" if panel.variants else ""
        raise LogMismatch(
            "no_variant",
            f"the {panel.id!r} playground has no variant {variant_id!r}{known}",
            where,
            panel=panel.id,
            variant=variant_id,
        )
    return variant.id if variant else None


def checked(panel: PlaygroundPanel, log: Log) -> tuple[Run, list[Event]]:
    """The run the log starts from (its variant of the panel's start, in its era) and its events: a log
    that does not fit the panel is refused whole here, before any of it is replayed or paid for."""
    if not panel.era_choice and log.era != panel.start.era:
        raise LogMismatch(
            "fixed_era",
            f"the {panel.id!r} playground has no era choice: it plays only the {panel.start.era} era",
            "log.era",
            panel=panel.id,
            era=panel.start.era,
        )
    variant = panel.variant(variant_of(panel, log.variant, "log.variant"))
    events = [event_of(panel, kind, arg, f"log.events.{i}") for i, (kind, arg) in enumerate(log.events)]
    return begin(panel.start_for(variant, era=log.era)), events


def steps(run: Run, events: list[Event]) -> Iterator[tuple[Run, list[StepLog]]]:
    """The run after each event in turn, with the log of steps so far (one list, which grows as the
    replay goes on: copy it to keep it)."""
    history = list(run.log)
    # Each run on the way is advanced from compact, so the checkpoints it keeps hold no outcomes and no
    # log history: a replayed playground costs what a pressed one does.
    for after in runs(run, events, trim=compact):
        history.append(after.log[-1])
        yield after, history
        # A long replay is hundreds of milliseconds of CPU: after each event it hands the interpreter's
        # lock to any other thread that wants it, so another learner's press does not wait out the
        # lock's switch interval at each of its system calls.
        time.sleep(0)


def run_after(start: Run, events: list[Event]) -> Run:
    """The run the events lead to from ``start``, with the whole log of steps."""
    run, history = start, list(start.log)
    for run, history in steps(start, events):  # noqa: B007 (the last one is the answer)
        pass
    return run.model_copy(update={"log": list(history)})


__all__ = ["LogMismatch", "checked", "event_of", "run_after", "steps", "variant_of"]
