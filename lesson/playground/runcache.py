"""The run cache: playgrounds' runs by handle, bounded by an estimate of their bytes.

It is a cache, not a store: the page holds each playground's log (see docs/classroom.md), so
losing an entry costs the page one ``need_log`` round trip and nothing else.
"""

from __future__ import annotations

import functools
import threading
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cachetools import LRUCache

from lesson.sim import Run, advance, at_step
from lesson.sim.model import Era, Strict, Value

# Measured with tracemalloc on the outage panel (see bench/load_bench.py for RSS): a fresh run is
# shared by every playground with the same start; one of five presses holds about 16 KB, then
# each step adds about 1-3 KB (a checkpoint every 8 events). The estimate errs high.
BASE_BYTES = 80_000
STEP_BYTES = 2_500

M = TypeVar("M", bound=Strict)


def _changeable(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Strict) and not issubclass(annotation, Value)


@functools.cache
def _parts(cls: type[Strict]) -> tuple[tuple[str, str], ...]:
    """Every field of ``cls`` with how a kept state may share it with an older one: a changeable
    model ("model"), a dict of them ("models"), or anything else, shared when equal ("data")."""
    parts = []
    for name, f in cls.model_fields.items():
        origin, args = typing.get_origin(f.annotation), typing.get_args(f.annotation)
        if _changeable(f.annotation):
            parts.append((name, "model"))
        elif origin is dict and _changeable(args[1]):
            parts.append((name, "models"))
        else:
            parts.append((name, "data"))
    return tuple(parts)


def share(new: M, old: M) -> M:
    """``new``, with each part that equals the same part of ``old`` taken from ``old``: a step copies
    the whole state, and a cached state need only hold what its steps changed. Kept states are never
    changed (a step copies first), so sharing their parts is safe. One walk: each part is compared
    once, on the way down."""
    if new is old:
        return old
    fields: dict[str, Any] = {}
    same = True
    for name, kind in _parts(type(new)):
        mine, theirs = getattr(new, name), getattr(old, name)
        if mine is not theirs:
            if kind == "model":
                mine = share(mine, theirs)
            elif kind == "models":
                mine = _share_models(mine, theirs)
            elif mine == theirs:
                mine = theirs
        fields[name] = mine
        same = same and mine is theirs
    if same:
        return old
    # Built with no field recorded as set from input: pydantic keeps that set per instance, and the
    # sets a step's copies grew were a quarter of a cached playground's memory.
    return type(new).model_construct(_fields_set=set(), **fields)


def _share_models(mine: dict[str, M], theirs: dict[str, M]) -> dict[str, M]:
    shared = {key: share(value, theirs[key]) if key in theirs else value for key, value in mine.items()}
    if list(shared) == list(theirs) and all(value is theirs[key] for key, value in shared.items()):
        return theirs
    return shared


def compact(run: Run, like: Run | None = None) -> Run:
    """``run`` without its log history and its last step's outcomes (see ``Entry.keep``), its states
    sharing what they still have in common with ``like``'s (the run it was advanced from: only what
    one step changed is built again), else with its checkpoint's."""
    if run.checkpoint is None:  # a fresh run (shared by every playground with its start), or one built whole
        if run.last is None and run.other is None and len(run.log) <= 1:
            return run
        return run.model_copy(update={"log": run.log[-1:], "last": None, "other": None})
    base = like if like is not None else run.checkpoint
    state, twin = share(run.state, base.state), share(run.twin, base.twin)
    return run.model_copy(update={"state": state, "twin": twin, "log": [], "last": None, "other": None})


@dataclass(eq=False)
class Entry:
    """A cached playground: the page's log and the run built from it, behind its own lock."""

    panel: str
    variant: str | None
    era: Era
    events: list[tuple[str, str]]
    seq: int
    run: Run
    last: tuple[Any, ...] | None = None  # the last change applied, to spot a retried frame
    lock: threading.Lock = field(default_factory=threading.Lock)
    log_len: int = 0  # entries in the run's whole log; the cached run keeps only the newest
    fresh: Run | None = None  # the run just advanced, outcomes and all, until its answer is built

    loose: bool = False  # ``run`` is not compact yet: see ``settle``
    like: Run | None = None  # a kept run that ``run`` may share parts with when it is made compact

    def __post_init__(self) -> None:
        self.keep(self.run)
        self.settle()

    def keep(self, run: Run, log_len: int | None = None) -> None:
        """Keep ``run``; ``settle`` then makes it compact: without its log history (the page holds that,
        and an open rebuilds it) and without the last step's outcomes in both eras (its frames are most
        of a run's bytes; only a retry or an open needs them again, and ``full`` rebuilds them from a
        checkpoint). ``log_len`` is the whole log's length when ``run`` was advanced from a trimmed run."""
        self.log_len = len(run.log) if log_len is None else log_len
        self.fresh = run  # for the answer about to be sent; ``full`` lets go of it
        self.like = self.run  # the run kept until now: ``run`` shares its unchanged parts with it
        self.run = run
        self.loose = True

    def save(self) -> tuple[Any, ...]:
        """What a change may alter, to put back with ``restore`` if its answer cannot be built."""
        events = list(self.events)
        return (self.run, self.fresh, self.loose, self.log_len, events, self.seq, self.last, self.variant, self.era)

    def restore(self, saved: tuple[Any, ...]) -> None:
        self.run, self.fresh, self.loose, self.log_len, self.events, self.seq, self.last, self.variant, self.era = saved

    def settle(self) -> None:
        """Make the kept run compact (the lock held). The socket does this once the answer is sent, so
        the learner does not wait for it; a change settles first, so no checkpoint is ever loose."""
        if self.loose:
            self.run, self.like = compact(self.run, self.like), None
            self.loose = False

    def settle_locked(self) -> None:
        with self.lock:
            self.settle()

    def full(self) -> Run:
        """The cached run with its last step's outcomes and log entry, for an answer: the run just
        kept, or the compact one with its last event applied again from the nearest checkpoint
        (at most STRIDE events)."""
        run, self.fresh = (self.fresh or self.run), None
        events = run.playground.events
        if run.last is not None and run.log or not events:
            return run
        again = advance(at_step(run, len(events) - 1), events[-1])
        return run.model_copy(update={"log": again.log[-1:], "last": again.last, "other": again.other})

    @property
    def cost(self) -> int:
        return BASE_BYTES + STEP_BYTES * len(self.run.playground.events)


class RunCache:
    """Runs by handle, bounded by an estimate of their bytes; least recently used dropped first.

    It is a cache, not a store: losing an entry costs the page one ``need_log`` round trip."""

    def __init__(self, max_bytes: int = 64 << 20) -> None:
        self.max_bytes = max_bytes
        # Each entry weighs what it cost when put: its cost grows as its playground is pressed, and
        # the socket puts it again after each answer.
        self._items: LRUCache[str, tuple[Entry, int]] = LRUCache(max_bytes, getsizeof=lambda item: item[1])
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe

    @property
    def bytes(self) -> int:
        return int(self._items.currsize)

    def get(self, handle: str) -> Entry | None:
        with self._lock:
            item = self._items.get(handle)  # marks it most recently used
            return None if item is None else item[0]

    def put(self, handle: str, entry: Entry, *, over_another: bool = True) -> None:
        """Cache ``entry`` under ``handle``, most recently used. With ``over_another=False`` a different
        entry that took the handle meanwhile stays: an answer's accounting runs once the answer is sent,
        and a send that waited on a slow client must not put back a playground rebuilt since."""
        # Never above the bound, so the cache keeps the newest entry even when it alone is over it.
        cost = min(entry.cost, self.max_bytes)
        with self._lock:
            if not over_another and self._items.get(handle, (entry,))[0] is not entry:
                return
            self._items.pop(handle, None)
            self._items[handle] = (entry, cost)

    def __len__(self) -> int:
        return len(self._items)


__all__ = ["BASE_BYTES", "STEP_BYTES", "Entry", "RunCache", "compact"]
