"""A playground: a named start plus a list of events. Replaying them gives the same state
every time.

A run keeps a twin that starts in the other era and receives the same events, so every step can
say what it would have done there. A run also keeps checkpoints (every ``STRIDE`` events), so undo
and ``at_step`` replay a few events from the nearest checkpoint, never the whole playground.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic import Field

from .events import EVENT, Event, EventBase, SwitchEra
from .host import LogLine, Outcome, apply
from .model import State, Strict, other_era
from .starts import Start, start, summary
from .step import Said, era_label
from .view import StepLog, View, build_view

MAX_EVENTS = 500  # a playground longer than this is refused: it is a lesson, not a log store
STRIDE = 8  # a checkpoint every this many events: undo costs at most STRIDE - 1 applies


class Playground(Strict):
    start: Start
    events: list[Event] = Field(default_factory=list)


class Run(Strict):
    playground: Playground
    state: State
    twin: State
    log: list[StepLog]
    last: Outcome | None = None
    other: Outcome | None = None
    # The latest checkpoint strictly before this run (itself a run, with its own). How a run keeps its
    # history is not part of what it is: equality and JSON leave it out.
    checkpoint: Run | None = Field(default=None, exclude=True, repr=False)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Run):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _COMPARED)

    __hash__ = None  # type: ignore[assignment]


_COMPARED = [f for f in Run.model_fields if f != "checkpoint"]


NO_TWIN = "narration.no_twin"  # an era switch has no counterpart in the other era (its twin: static/js/render.js)


def _for_twin(event: Event) -> Event:
    if isinstance(event, SwitchEra):
        return event.model_copy(update={"era": other_era(event.era)})
    return event


def begin(spec: Start) -> Run:
    """A fresh run. Runs are never changed in place, so every playground that starts from the same
    spec shares one: its states and its first checkpoint cost no memory per playground."""
    return _begin(spec.model_dump_json())


@functools.lru_cache(maxsize=128)
def _begin(spec_json: str) -> Run:
    spec = Start.model_validate_json(spec_json)
    state = start(spec)
    twin = start(spec.model_copy(update={"era": other_era(spec.era)}))
    # The start's summary is a message of its own (``narration.starts.<name>``), filled in here.
    intro = (
        LogLine(code="narration.start_dual_era", params={"summary": summary(spec)})
        if state.host.dual_era
        else LogLine(code="narration.start", params={"summary": summary(spec), "era": era_label(spec.era)})
    )
    return Run(
        playground=Playground(start=spec),
        state=state,
        twin=twin,
        log=[StepLog(step=0, label=Said(code="narration.event.start"), lines=[intro])],
    )


def advance(run: Run, event: Event) -> Run:
    """Apply one press to the run (and its twin); the input run is not changed."""
    if len(run.playground.events) >= MAX_EVENTS:
        raise ValueError(f"a playground holds at most {MAX_EVENTS} events; reset to go on")
    if not isinstance(event, EventBase):  # an event instance was validated when it was made
        event = EVENT.validate_python(event)
    state, outcome = apply(run.state, event)
    twin, other = apply(run.twin, _for_twin(event))
    if isinstance(event, SwitchEra) and not other.rejected:
        # The twin switches the other way to stay in the other era; that is no counterpart of this
        # step, and shown beside it reads as if the other era had done something.
        other = Outcome(lines=[LogLine(code=NO_TWIN)], wire=[])
    checkpoint = run if len(run.playground.events) % STRIDE == 0 else run.checkpoint
    # Everything below is already valid; re-validating the whole history would cost O(events) per step,
    # so the playground is copied with its one new event (``model_copy`` does not validate).
    return Run(
        playground=run.playground.model_copy(update={"events": [*run.playground.events, event]}),
        state=state,
        twin=twin,
        log=[*run.log, StepLog(step=state.step, label=event.describe(), lines=outcome.lines)],
        last=outcome,
        other=other,
        checkpoint=checkpoint,
    )


def runs(run: Run, events: Iterable[Event], trim: Callable[[Run], Run] | None = None) -> Iterator[Run]:
    """The run after each event in turn, from ``run``: the one loop that replays events, whether they come
    from content (a stepper's steps, a restart lab's situation, a scenario, a trace) or from a page's log
    (``lesson.playground.replay``). ``trim``, when given, is applied to each run before the next event
    is: the page's replay drops what a cached playground does not keep."""
    for event in events:
        run = advance(trim(run) if trim else run, event)
        yield run


def advance_all(run: Run, events: Iterable[Event]) -> Run:
    """The run the events lead to from ``run`` (``run`` itself for none)."""
    last = run
    for last in runs(run, events):  # noqa: B007 (the last one is the answer)
        pass
    return last


def run_from_start(playground: Playground) -> Run:
    """The run a playground's events lead to from its start: a playground is its start and its events
    (the page's logs take ``lesson.playground.replay``, which checks them against their panel first)."""
    return advance_all(begin(playground.start), playground.events)


def at_step(run: Run, n: int) -> Run:
    """The run as it was after its first ``n`` events (0: the start), replayed from the nearest checkpoint."""
    events = run.playground.events
    if not 0 <= n <= len(events):
        raise ValueError(f"step {n} is outside 0..{len(events)}")
    base: Run | None = run
    while base is not None and len(base.playground.events) > n:
        base = base.checkpoint
    if base is None:  # a run built without checkpoints (e.g. by model_validate)
        base = begin(run.playground.start)
    return advance_all(base, events[len(base.playground.events) : n])


def undo(run: Run) -> Run:
    return at_step(run, len(run.playground.events) - 1)


def view(run: Run) -> View:
    return build_view(run.state, run.log, run.last, run.other)
