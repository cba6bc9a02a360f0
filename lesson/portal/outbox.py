"""A durable outbox: what the server must report to another system (xAPI statements to a learning
record store, scores to an LMS) is written to a store before the request that produced it is
answered, and a background sender delivers it, at least once, in order per destination.

The store is SQLite in the app's instance folder by default (WAL mode: several worker processes on
one machine share it; ``outbox_sqlite.py``), or Redis with ``OUTBOX_URL=redis://...`` when several
machines serve the lesson (``outbox_redis.py``); both implement ``outbox_store.py``'s ``OutboxStore``.
This module holds the sender; the items and the outcomes a sender answers with are in ``outbox_items.py``.

Only one process at a time sends: it holds a lease in the store, renewed before every send; when it
dies the lease runs out and another process takes over. An item leaves the outbox only once its
destination accepted it (at least once: a resend after a crash is possible, so every payload
must let its destination recognise a repeat, as an xAPI statement's ``id`` does).

API (what a kind's owner uses)::

    from lesson.portal import outbox

    box = outbox.for_app(app)          # the app's Outbox, app.extensions["outbox"]; made on first call
    box.register("lti-score", send_scores, batch=1)   # once, when the app is built

    box.put("lti-score", destination, payload)         # True once stored; False when refused
    box.put_many("xapi", destination, [p1, p2])        # all or none: how many were stored

    def send_scores(items: list[outbox.Item]) -> outbox.SendOutcome | list[outbox.SendOutcome]:
        item = items[0]                # up to ``batch`` items of one kind, one destination, in order
        status = post(item.destination, item.payload)
        return outbox.outcome_for_status(status, reason_text)

- An item is a ``kind`` (which sender delivers it), a ``destination`` (a string: items with the same
  destination are sent one batch at a time, in the order they were put) and a JSON ``payload``
  (a dict; at most ``OUTBOX_MAX_BYTES`` once encoded).
- A sender returns :data:`DELIVERED`, :func:`retry` (the destination is down, answered 5xx or 429:
  the whole destination waits, with exponential backoff or the ``after`` it asks for) or
  :func:`give_up` with a reason (a 4xx that retrying cannot fix: the item is moved aside, listed by
  ``lesson outbox list --dead``, counted in ``/healthz``). One outcome applies to the whole batch, a
  list gives one per item. An exception raised by a sender counts as a retry.
- ``put`` never blocks on a full outbox: past ``OUTBOX_MAX_ITEMS`` items or ``OUTBOX_MAX_BYTES``
  bytes, or with the store unreachable, it refuses, logs a warning and counts the refusal.
- :meth:`Outbox.start` starts this process's sender thread (the app does so on its first request);
  :meth:`Outbox.stats` gives the depth, the oldest item's age and the counts ``/healthz`` reports.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import random
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .outbox_items import (
    DELIVERED,
    RETRYABLE_STATUS,
    Item,
    Sender,
    SendOutcome,
    give_up,
    outcome_for_status,
    retry,
    retry_after,
)
from .outbox_store import OutboxStore, store_stats

log = logging.getLogger(__name__)

# What a sender receives and answers lives in outbox_items.py; a kind's owner reaches it through this module.
__all__ = [
    "DELIVERED",
    "RETRYABLE_STATUS",
    "Item",
    "Outbox",
    "SendOutcome",
    "Sender",
    "OutboxStore",
    "check_url",
    "for_app",
    "from_settings",
    "give_up",
    "init_app",
    "open_store",
    "outcome_for_status",
    "retry",
    "retry_after",
    "store_stats",
]

# Its own generator: a sender thread leaves the process-wide one (which tests and libraries seed) alone.
_JITTER = random.Random()


@dataclass
class _Kind:
    send: Sender
    batch: int


def encode(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


# --- the outbox ---------------------------------------------------------------------------------


class Outbox:
    """Puts into a store, and one sender thread per process that sends while it holds the lease."""

    def __init__(
        self,
        store: OutboxStore,
        *,
        lease: float = 30.0,
        retry_initial: float = 1.0,
        retry_max: float = 300.0,
        poll: float = 1.0,
    ) -> None:
        self.store = store
        self.lease, self.retry_initial, self.retry_max, self.poll = lease, retry_initial, retry_max, poll
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.kinds: dict[str, _Kind] = {}
        self.unavailable = 0  # puts refused because the store could not be reached (this process)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._warned: set[str] = set()
        self._holding = False
        self._renewed = 0.0
        self._atexit = False

    def register(self, kind: str, send: Sender, batch: int = 1) -> None:
        """Deliver items of ``kind`` with ``send``, up to ``batch`` at a time."""
        if batch < 1:
            raise ValueError("batch must be at least 1")
        self.kinds[kind] = _Kind(send, batch)

    def put(self, kind: str, destination: str, payload: Mapping[str, Any]) -> bool:
        return self.put_many(kind, destination, [payload]) == 1

    def put_many(self, kind: str, destination: str, payloads: Iterable[Mapping[str, Any]]) -> int:
        """Store every payload durably, or none: returns how many were stored (0 when refused)."""
        encoded = [encode(p) for p in payloads]
        if not encoded:
            return 0
        try:
            ids = self.store.put(kind, destination, encoded, time.time())
        except Exception as err:  # the store is down or locked: refuse, never wait on it
            self.unavailable += len(encoded)
            self._warn("unavailable", "outbox store unreachable (%s): refusing %d item(s)", err, len(encoded))
            return 0
        if ids is None:
            self._warn("full", "outbox full (%s): refusing new items until it drains", self.store.url)
            return 0
        self._warned.discard("full")
        self._wake.set()
        return len(ids)

    def _warn(self, key: str, message: str, *args: Any) -> None:
        # Once per episode: a full outbox at a class's pace would otherwise fill the log.
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)

    def stats(self) -> dict[str, Any]:
        """Depth, bytes, the oldest item's age in seconds, and the counters; ``error`` if unreachable."""
        try:
            out = self.store.stats(time.time())
        except Exception as err:
            out = {"error": f"outbox store unreachable: {err}"}
        out["unavailable"] = self.unavailable
        out["sending_here"] = self._holding
        return out

    # --- the sender ---

    def start(self) -> None:
        """Start this process's sender thread (once; again after a fork)."""
        if self._thread is not None and self._thread.is_alive():
            return
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="outbox-sender", daemon=True)
                self._thread.start()
                if not self._atexit:
                    # A process that exits cleanly (a deploy's SIGTERM) hands the lease over at once.
                    atexit.register(self.stop, 1.0)
                    self._atexit = True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the sender and hand the lease back; whatever is unsent stays in the store."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():  # still in a send: keep the lease until it runs out
                return
        if self._holding:
            try:
                self.store.release(self.owner)
            except Exception as err:
                log.warning("could not release the outbox lease: %s", err)
            self._holding = False

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                pause = self.run_once()
                self._warned.discard("loop")
            except Exception as err:  # the store is unreachable: keep trying, quietly after once
                self._warn("loop", "outbox sender: %s", err)
                self._holding = False
                pause = self.poll
            if pause > 0:
                self._wake.wait(pause)
                self._wake.clear()

    def run_once(self) -> float:
        """Send what is due, if this process holds (or takes) the lease. Returns how long to wait
        before the next pass (0: more is due now)."""
        if not self._renew():
            return min(self.poll, self.lease / 3)
        now = time.time()
        sent = False
        for destination in self.store.due(now, 100):
            if self._stop.is_set():
                break
            sent = self._send_head(destination) or sent
        if sent:
            return 0.0
        nxt = self.store.next_due()
        wait = self.poll if nxt is None else max(0.0, min(self.poll, nxt - time.time()))
        # The lease must be renewed well within its life, even when idle.
        return min(wait, self.lease / 3)

    def _renew(self) -> bool:
        """Hold the lease for at least two thirds of its life from here: a send started now ends (its
        timeout is shorter) before another process could take the lease over."""
        now = time.monotonic()
        if self._holding and now - self._renewed < self.lease / 3:
            return True
        self._holding = self.store.acquire(self.owner, self.lease)
        if self._holding:
            self._renewed = now
        return self._holding

    def _send_head(self, destination: str) -> bool:
        """Send the first batch of one destination and record the outcome. True when it was sent."""
        head = self.store.head(destination, max((k.batch for k in self.kinds.values()), default=1))
        if not head:
            return False
        kind = self.kinds.get(head[0].kind)
        if kind is None:
            self._warn(f"kind:{head[0].kind}", "outbox: no sender for %r items in this process", head[0].kind)
            self.store.backoff(destination, time.time() + self.retry_max, "no sender in this process", [])
            return False
        batch = _same_kind(head)[: kind.batch]
        if not self._renew():
            return False
        try:
            result = kind.send(batch)
        except Exception as err:
            log.warning("outbox sender for %r raised: %r", batch[0].kind, err)
            result = retry(f"sender raised {type(err).__name__}: {err}")
        outcomes = [result] * len(batch) if isinstance(result, SendOutcome) else list(result)
        if len(outcomes) != len(batch):
            outcomes = [retry("sender gave a wrong number of outcomes")] * len(batch)
        now = time.time()
        done = [i.id for i, o in zip(batch, outcomes, strict=True) if o.status == "delivered"]
        self.store.remove(done, delivered=True)
        for item, outcome in zip(batch, outcomes, strict=True):
            if outcome.status == "give_up":
                log.error("outbox: gave up on %s item %d for %s: %s", item.kind, item.id, destination, outcome.reason)
                self.store.set_aside(item, outcome.reason or "given up", now)
        retries = [(i, o) for i, o in zip(batch, outcomes, strict=True) if o.status == "retry"]
        if retries:
            reason = retries[0][1].reason
            delay = self._delay(destination, retries[0][1].after)
            log.warning("outbox: %s unreachable (%s); trying again in %.1fs", destination, reason, delay)
            self.store.backoff(destination, now + delay, reason, [i.id for i, _ in retries])
            return False
        return True

    def _delay(self, destination: str, after: float | None) -> float:
        if after is not None:
            return min(max(after, 0.0), self.retry_max)
        failures = self.store.failures(destination)
        base = min(self.retry_initial * 2 ** min(failures, 30), self.retry_max)
        return base * _JITTER.uniform(0.8, 1.0)  # jitter: many processes do not retry in step


def _same_kind(batch: list[Item]) -> list[Item]:
    out = [batch[0]]
    for item in batch[1:]:
        if item.kind != out[0].kind:
            break
        out.append(item)
    return out


# --- building one from settings -----------------------------------------------------------------


def check_url(url: str) -> None:
    """Raise ValueError unless ``url`` is empty, ``sqlite:///path`` or ``redis://``/``rediss://``/``unix://``."""
    if not url:
        return
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if parts.netloc or not parts.path or parts.path == "/":
            raise ValueError(f"OUTBOX_URL={url!r}: write a file as sqlite:////abs/path.db or sqlite:///rel.db")
    elif parts.scheme in ("redis", "rediss", "unix"):
        if parts.scheme != "unix" and not parts.hostname:
            raise ValueError(f"OUTBOX_URL={url!r}: a Redis URL needs a host, like redis://127.0.0.1:6379/0")
    else:
        raise ValueError(f"OUTBOX_URL={url!r}: use sqlite:///path or redis://host:port/db (empty: the instance folder)")


def open_store(url: str, instance_path: str | Path, max_items: int, max_bytes: int) -> OutboxStore:
    check_url(url)
    if not url or url.startswith("sqlite:"):
        path = Path(instance_path) / "outbox.sqlite3" if not url else Path(unquote(urlsplit(url).path[1:]))
        from .outbox_sqlite import SqliteStore

        try:
            return SqliteStore(path, max_items, max_bytes)
        except (OSError, sqlite3.Error) as err:
            from lesson.settings import SettingsError

            raise SettingsError(
                f"the outbox cannot be kept at {path} ({err}): set LESSON_OUTBOX_URL=sqlite:////a/writable/file.db"
            ) from err
    from .outbox_redis import RedisStore

    return RedisStore(url, max_items, max_bytes)


def from_settings(settings: Mapping[str, Any], instance_path: str | Path) -> Outbox:
    """An Outbox (its sender not started) from the ``OUTBOX_*`` settings."""
    store = open_store(
        str(settings.get("OUTBOX_URL") or ""),
        instance_path,
        int(settings.get("OUTBOX_MAX_ITEMS", 100_000)),
        int(settings.get("OUTBOX_MAX_BYTES", 64 << 20)),
    )
    return Outbox(
        store,
        lease=float(settings.get("OUTBOX_LEASE", 30.0)),
        retry_initial=float(settings.get("OUTBOX_RETRY_INITIAL", 1.0)),
        retry_max=float(settings.get("OUTBOX_RETRY_MAX", 300.0)),
        poll=float(settings.get("OUTBOX_POLL", 1.0)),
    )


def for_app(app: Any) -> Outbox:
    """The app's outbox (``app.extensions["outbox"]``), made from its settings on first call. Its
    store is opened only then, so an app with nothing to report makes no file."""
    box = app.extensions.get("outbox")
    if box is None:
        with _app_lock:
            box = app.extensions.get("outbox")
            if box is None:
                box = from_settings(app.config, app.instance_path)
                app.extensions["outbox"] = box
    return box


_app_lock = threading.Lock()


def init_app(app: Any) -> None:
    """Start the app's outbox sender, if it has one, with the first request this process serves:
    a gunicorn worker builds its app after the fork, and the master never serves."""

    def start() -> None:
        box = app.extensions.get("outbox")
        if box is not None and box.kinds and not box.running:
            box.start()

    app.before_request(start)
