"""Per-address budgets: how fast one client address may send ``/api/*`` requests, and how many logged
events the server replays for it a second (a 500-event log costs about 0.2 s of CPU; a press
well under a millisecond). Token buckets, one per address seen recently, pruned as they refill.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from lesson.playground.service import FrameError
from lesson.playground.tasks import TaskLogError, read_line


class Buckets:
    """Token buckets per address: ``rate`` tokens a second, at most ``burst`` held."""

    def __init__(self, rate: float, burst: float, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self._held: dict[str, tuple[float, float]] = {}  # address -> (tokens, when counted)
        self._lock = threading.Lock()
        self._pruned = clock()

    def take(self, addr: str, cost: float, wait: float = 0.0) -> float | None:
        """Take ``cost`` tokens: 0.0 when they are there, else the seconds to wait for them if that is at
        most ``wait`` (they are taken now, so whoever comes next waits behind), else None (nothing taken)."""
        now = self.clock()
        with self._lock:
            tokens, then = self._held.get(addr, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            short = cost - tokens
            delay = short / self.rate if short > 0 else 0.0
            if delay > wait:
                self._held[addr] = (tokens, now)
                return None
            self._held[addr] = (tokens - cost, now)
            if now - self._pruned > 60:
                self._prune(now)
        return delay

    def _prune(self, now: float) -> None:
        """Forget the addresses whose bucket is full again (they cost as much as an unseen one)."""
        self._pruned = now
        full = [a for a, (t, then) in self._held.items() if t + (now - then) * self.rate >= self.burst]
        for addr in full:
            del self._held[addr]


class Replays(Buckets):
    """The events replayed for each address: a log sent with ``open`` or after ``need_log``. A socket
    waits (up to ``wait`` seconds) for its address's budget; an HTTP frame is refused at once."""

    def spender(self, addr: str, wait: float):
        def spend(events: int) -> None:
            if events <= 0:
                return
            delay = self.take(addr, events, wait)
            if delay is None:
                raise FrameError(
                    "slow_down",
                    f"this address has had {self.burst:g} logged events replayed recently; the server replays "
                    f"at most {self.rate:g} a second for one address: send the log again in a moment",
                )
            if delay > 0:
                time.sleep(delay)  # only this client's frame waits: its own thread, no lock held

        return spend


def task_log_events(data: Any, tasks: dict[str, str], question: str | None = None) -> int:
    """The presses in the task logs a quiz request carries (``{"log": ...}`` for ``question``, or
    ``{"answers": {question: ...}}``), each ``panel:era:variant:press,press,...``: what grading will
    replay. A log for no task question, or naming another panel than its task's (``tasks``: each task
    question's panel), is refused before any replay, so it costs nothing."""
    if not isinstance(data, dict):
        return 0
    logs = [(question, data.get("log"))]
    answers = data.get("answers")
    if isinstance(answers, dict):
        logs += list(answers.items())
    count = 0
    for qid, text in logs:
        if not isinstance(qid, str) or qid not in tasks:
            continue
        try:
            parsed = read_line(text)
        except TaskLogError:
            continue  # refused before it is replayed (not a log, too long, a press that cannot be read)
        if parsed.panel == tasks[qid]:
            count += len(parsed.log.events)
    return count
