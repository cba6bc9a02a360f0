"""Forward xAPI statements to a learning record store (LRS) through the durable outbox.

Off unless ``LRS_ENDPOINT`` is set (``LESSON_LRS_ENDPOINT`` in the environment). A statement is
written to the outbox (``lesson/portal/outbox.py``) before the request that brought it is answered; the
outbox's sender POSTs them in batches, in order, to ``{endpoint}/statements`` with basic auth,
retries with backoff while the store is down or answers 5xx/429, and sets aside with its reason a
statement the store refuses (4xx). Every statement carries an ``id`` (one is given to a statement
that came without), so a statement sent again after a crash is recorded once.

Use::

    lrs = lrs.from_settings(app.config, outbox.for_app(app))   # None when not configured
    if lrs:
        lrs.submit_many(statements)    # stored durably; how many (0 when the outbox refused them)
"""

from __future__ import annotations

import base64
import http.client
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from . import outbox as ob
from .xapi import XAPI_VERSION, Statement

KIND = "xapi"
DESTINATION = "lrs"  # one store per deployment: statements queued go to the store configured when sent


@dataclass(frozen=True)
class LrsConfig:
    """Where and how to send. ``endpoint`` is the store's xAPI base (``.../xapi``), without ``/statements``."""

    endpoint: str
    username: str = ""
    password: str = field(default="", repr=False)
    batch_size: int = 50
    timeout: float = 5.0

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
        if int(self.batch_size) < 1:
            raise ValueError("LRS batch_size must be at least 1")
        if not self.timeout > 0:
            raise ValueError("LRS timeout must be positive")

    @property
    def statements_url(self) -> str:
        return self.endpoint.rstrip("/") + "/statements"


def post_statements(config: LrsConfig, batch: list[dict[str, Any]]) -> ob.SendOutcome:
    """POST one batch and read the answer as an outcome. 409 (an id the store has already) is a
    delivery only for a single statement: a store may refuse a whole batch for one known id."""
    headers = {"Content-Type": "application/json", "X-Experience-API-Version": XAPI_VERSION}
    if config.username:
        token = base64.b64encode(f"{config.username}:{config.password}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    req = urllib.request.Request(config.statements_url, json.dumps(batch).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=config.timeout) as resp:
            resp.read()
            return ob.DELIVERED
    except urllib.error.HTTPError as err:
        body = err.read().decode("utf-8", "replace")
        if err.code == 409 and len(batch) == 1:
            return ob.DELIVERED
        return ob.outcome_for_status(err.code, body, ob.retry_after(err.headers.get("Retry-After")))
    except (OSError, http.client.HTTPException) as err:  # refused, reset, timed out
        return ob.retry(f"{type(err).__name__}: {err}")


def sender(config: LrsConfig) -> ob.Sender:
    """The outbox's sender for ``xapi`` items: the batch at once; on a refusal, one by one, so the
    statement the store objects to is set aside and the others go through, in order."""

    def send(items: list[ob.Item]) -> ob.SendOutcome | list[ob.SendOutcome]:
        outcome = post_statements(config, [i.payload for i in items])
        if outcome.status != "give_up" or len(items) == 1:
            return outcome
        outcomes: list[ob.SendOutcome] = []
        for item in items:
            one = post_statements(config, [item.payload])
            outcomes.append(one)
            if one.status == "retry":  # the rest wait behind it, in order
                outcomes += [one] * (len(items) - len(outcomes))
                break
        return outcomes

    return send


class Lrs:
    """Statements in, the outbox's ``xapi`` items out."""

    def __init__(self, config: LrsConfig, box: ob.Outbox) -> None:
        self.config = config
        self.outbox = box
        box.register(KIND, sender(config), batch=config.batch_size)

    def start(self) -> None:
        self.outbox.start()

    def submit_many(self, statements: Iterable[Statement | Mapping[str, Any]]) -> int:
        """Store the statements durably, all or none; how many were stored."""
        out = []
        for s in statements:
            data = s.to_json() if isinstance(s, Statement) else dict(s)
            # The id lets the store record a statement sent twice (after a crash) only once.
            data.setdefault("id", str(uuid.uuid4()))
            out.append(data)
        return self.outbox.put_many(KIND, DESTINATION, out)


def from_settings(settings: Mapping[str, Any], box: ob.Outbox | None = None) -> Lrs | None:
    """The LRS forwarder on ``box`` from ``LRS_*`` settings, or None when ``LRS_ENDPOINT`` is unset.
    Without ``box`` only the settings are checked (and None is returned)."""
    endpoint = settings.get("LRS_ENDPOINT")
    if not endpoint:
        return None
    config = LrsConfig(
        endpoint=str(endpoint),
        username=str(settings.get("LRS_USERNAME") or ""),
        password=str(settings.get("LRS_PASSWORD") or ""),
    )
    return Lrs(config, box) if box is not None else None
