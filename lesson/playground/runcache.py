"""The run cache: playgrounds' runs by handle, bounded by an estimate of their bytes.

It is a cache, not a store: the page holds each playground's log (see docs/classroom.md), so
losing an entry costs the page one ``need_log`` round trip and nothing else.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache

from lesson.settings import Settings
from lesson.sim import Run, advance, at_step
from lesson.sim.model import Era

# Measured with tracemalloc on the outage panel (see bench/load_bench.py for RSS): a fresh run is
# shared by every playground with the same start; a playground of 5 presses holds about 15 KB (its
# own copy of both eras' states), one of 40 about 83 KB and one of 200 about 475 KB (each checkpoint,
# every 8 events, holds its own copy too). The estimate errs high.
BASE_BYTES = 80_000
STEP_BYTES = 3_000


def compact(run: Run) -> Run:
    """``run`` without its log history and its last step's outcomes (see ``Entry.keep``)."""
    if run.checkpoint is None:  # a fresh run (shared by every playground with its start), or one built whole
        if run.last is None and run.other is None and len(run.log) <= 1:
            return run
        return run.model_copy(update={"log": run.log[-1:], "last": None, "other": None})
    return run.model_copy(update={"log": [], "last": None, "other": None})


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

    def __post_init__(self) -> None:
        self.keep(self.run)

    def keep(self, run: Run, log_len: int | None = None) -> None:
        """Keep ``run`` compact: without its log history (the page holds that, and an open rebuilds it)
        and without the last step's outcomes in both eras (its frames are most of a run's bytes; only
        a retry or an open needs them again, and ``full`` rebuilds them from a checkpoint). The run
        as advanced waits in ``fresh`` for the answer about to be sent. ``log_len`` is the whole log's
        length when ``run`` was advanced from a trimmed run."""
        self.log_len = len(run.log) if log_len is None else log_len
        self.fresh = run
        self.run = compact(run)

    def save(self) -> tuple[Any, ...]:
        """What a change may alter, to put back with ``restore`` if its answer cannot be built."""
        events = list(self.events)
        return (self.run, self.fresh, self.log_len, events, self.seq, self.last, self.variant, self.era)

    def restore(self, saved: tuple[Any, ...]) -> None:
        self.run, self.fresh, self.log_len, self.events, self.seq, self.last, self.variant, self.era = saved

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

    def __init__(self, max_bytes: int = Settings.model_fields["CACHE_BYTES"].default) -> None:
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
