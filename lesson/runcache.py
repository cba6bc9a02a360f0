"""The run cache: playgrounds' runs by handle, bounded by an estimate of their bytes.

It is a cache, not a store: the page holds each playground's log (see docs/classroom.md), so
losing an entry costs the page one ``need_log`` round trip and nothing else.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from .sim import Run
from .sim.model import Era, replace

# Measured with tracemalloc on the outage panel: a fresh run holds about 29 KB, one of five
# presses about 83 KB, then each step adds 1-3 KB. The estimate errs high.
BASE_BYTES = 80_000
STEP_BYTES = 2_500


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

    def __post_init__(self) -> None:
        self.keep(self.run)

    def keep(self, run: Run, log_len: int | None = None) -> None:
        """Cache ``run`` without its log history: the page holds that, and an open rebuilds it.
        ``log_len`` is the whole log's length when ``run`` was advanced from a trimmed run."""
        self.log_len = len(run.log) if log_len is None else log_len
        self.run = run if len(run.log) <= 1 else replace(run, log=run.log[-1:])

    @property
    def cost(self) -> int:
        return BASE_BYTES + STEP_BYTES * len(self.run.playground.events)


class RunCache:
    """Runs by handle, bounded by an estimate of their bytes; least recently used dropped first.

    It is a cache, not a store: losing an entry costs the page one ``need_log`` round trip."""

    def __init__(self, max_bytes: int = 64 << 20) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[str, tuple[Entry, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, handle: str) -> Entry | None:
        with self._lock:
            item = self._items.get(handle)
            if item is None:
                return None
            self._items.move_to_end(handle)
            return item[0]

    def put(self, handle: str, entry: Entry) -> None:
        cost = entry.cost
        with self._lock:
            old = self._items.pop(handle, None)
            if old is not None:
                self.bytes -= old[1]
            self._items[handle] = (entry, cost)
            self.bytes += cost
            while self.bytes > self.max_bytes and len(self._items) > 1:
                _, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped

    def __len__(self) -> int:
        return len(self._items)


__all__ = ["BASE_BYTES", "STEP_BYTES", "Entry", "RunCache"]
