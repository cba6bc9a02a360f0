"""Forward xAPI statements to a learning record store (LRS), off the request path.

Off unless ``LRS_ENDPOINT`` is set (``LESSON_LRS_ENDPOINT`` in the environment). Statements go into
a bounded queue and a background thread POSTs them in batches to ``{endpoint}/statements`` with
basic auth. While the store is down the batch is retried with exponential backoff, in order; when
the queue is full new statements are dropped and counted, so the lesson never waits for the store.

Use::

    forwarder = lrs.from_settings(app.config)   # None when not configured
    if forwarder:
        forwarder.start()
        forwarder.submit(statement)              # returns at once; False if dropped
"""

from __future__ import annotations

import base64
import http.client
import json
import logging
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .xapi import XAPI_VERSION, Statement

log = logging.getLogger(__name__)

RETRYABLE = {408, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class LrsConfig:
    """Where and how to send. ``endpoint`` is the store's xAPI base (``.../xapi``), without ``/statements``."""

    endpoint: str
    username: str = ""
    password: str = field(default="", repr=False)
    queue_size: int = 1000
    batch_size: int = 50
    timeout: float = 5.0
    retry_initial: float = 1.0
    retry_max: float = 60.0

    def __post_init__(self) -> None:
        parts = urlsplit(self.endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"LESSON_LRS_ENDPOINT must be an http(s) URL, not {self.endpoint!r}")
        if parts.username or parts.password:
            raise ValueError(
                "LESSON_LRS_ENDPOINT must not carry credentials: set LESSON_LRS_USERNAME and LESSON_LRS_PASSWORD"
            )
        if bool(self.username) != bool(self.password):
            raise ValueError("set both LRS_USERNAME and LRS_PASSWORD, or neither")
        for name in ("queue_size", "batch_size"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"LRS {name} must be at least 1")
        if not (self.timeout > 0 and 0 < self.retry_initial <= self.retry_max):
            raise ValueError("LRS timeout and retry delays must be positive, retry_initial <= retry_max")

    @property
    def statements_url(self) -> str:
        return self.endpoint.rstrip("/") + "/statements"


@dataclass
class LrsStats:
    sent: int = 0
    dropped_full: int = 0  # refused because the queue was full
    rejected: int = 0  # the store refused them (4xx): retrying would not help
    failed_attempts: int = 0  # POSTs that failed and were retried


class _Rejected(Exception):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"the store refused the statements: HTTP {status} {body[:200]}")
        self.status = status


Sender = Callable[[LrsConfig, list[dict[str, Any]]], None]


def post_statements(config: LrsConfig, batch: list[dict[str, Any]]) -> None:
    """POST one batch. Raises _Rejected for a refusal worth no retry, OSError for anything retryable."""
    headers = {"Content-Type": "application/json", "X-Experience-API-Version": XAPI_VERSION}
    if config.username:
        token = base64.b64encode(f"{config.username}:{config.password}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    req = urllib.request.Request(config.statements_url, json.dumps(batch).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=config.timeout) as resp:
            resp.read()
    except urllib.error.HTTPError as err:
        if err.code == 409:  # these statement ids are stored already: nothing left to do
            return
        if err.code in RETRYABLE:
            raise OSError(f"HTTP {err.code}") from err
        raise _Rejected(err.code, err.read().decode("utf-8", "replace")) from err


class LrsForwarder:
    """A bounded queue and one daemon thread that delivers its statements in order."""

    def __init__(self, config: LrsConfig, sender: Sender = post_statements) -> None:
        self.config = config
        self.stats = LrsStats()
        self._send = sender
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=config.queue_size)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._warned_full = False

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="lrs-forwarder", daemon=True)
            self._thread.start()

    def submit(self, statement: Statement | Mapping[str, Any]) -> bool:
        """Queue a statement; never blocks. False when it was dropped (queue full, or stopped)."""
        data = statement.to_json() if isinstance(statement, Statement) else dict(statement)
        if self._stop.is_set():
            return False
        try:
            self._queue.put_nowait(data)
        except queue.Full:
            self.stats.dropped_full += 1
            if not self._warned_full:
                self._warned_full = True
                log.warning(
                    "LRS queue full (%d): dropping statements until the store catches up", self.config.queue_size
                )
            return False
        return True

    @property
    def pending(self) -> int:
        return self._queue.unfinished_tasks

    def flush(self, timeout: float) -> bool:
        """Wait until every queued statement is delivered or given up; False on timeout."""
        done = self._queue.all_tasks_done
        deadline = time.monotonic() + timeout
        with done:
            while self._queue.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                done.wait(left)
        return True

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread (waits at most ``timeout``); statements still queued are not sent."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.pending:
            log.warning("LRS forwarder stopped with %d statements unsent", self.pending)

    # --- the worker ---

    def _take_batch(self) -> list[dict[str, Any]]:
        try:
            batch = [self._queue.get(timeout=0.2)]
        except queue.Empty:
            return []
        while len(batch) < self.config.batch_size:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _run(self) -> None:
        while not self._stop.is_set():
            batch = self._take_batch()
            if batch:
                self._deliver(batch)
                for _ in batch:
                    self._queue.task_done()

    def _deliver(self, batch: list[dict[str, Any]]) -> None:
        delay = self.config.retry_initial
        while not self._stop.is_set():
            try:
                self._send(self.config, batch)
            except _Rejected as err:
                if len(batch) > 1:  # find the one the store objects to; send the rest
                    for one in batch:
                        self._deliver([one])
                    return
                self.stats.rejected += 1
                log.error("%s; dropping statement %s", err, batch[0].get("id", "(no id)"))
                return
            except (OSError, http.client.HTTPException) as err:  # network trouble, timeouts, 5xx, 429
                self.stats.failed_attempts += 1
                log.warning("LRS unreachable (%s); retrying %d statements in %.1fs", err, len(batch), delay)
                self._stop.wait(delay)
                delay = min(delay * 2, self.config.retry_max)
                continue
            self.stats.sent += len(batch)
            return


def from_settings(settings: Mapping[str, Any]) -> LrsForwarder | None:
    """A forwarder (not started) from ``LRS_*`` settings, or None when ``LRS_ENDPOINT`` is unset."""
    endpoint = settings.get("LRS_ENDPOINT")
    if not endpoint:
        return None
    config = LrsConfig(
        endpoint=str(endpoint),
        username=str(settings.get("LRS_USERNAME") or ""),
        password=str(settings.get("LRS_PASSWORD") or ""),
        queue_size=int(settings.get("LRS_QUEUE_SIZE", 1000)),
    )
    return LrsForwarder(config)
