"""What the outbox hands a sender and what the sender answers: the items, one per payload to deliver, and
the outcomes (delivered, retry later, give up). ``outbox.py`` re-exports them for a kind's owner."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

# Retried besides every 5xx: a request timeout, too early, too many requests.
RETRYABLE_STATUS = frozenset({408, 425, 429})


@dataclass(frozen=True)
class Item:
    """One thing to send. ``id`` grows with each put (the order within a destination)."""

    id: int
    kind: str
    destination: str
    payload: dict[str, Any]
    created: float  # seconds since the epoch
    attempts: int = 0
    size: int = 0  # bytes of the encoded payload
    reason: str = ""  # why it was given up (items moved aside), or the last failure


@dataclass(frozen=True)
class SendOutcome:
    status: Literal["delivered", "retry", "give_up"]
    reason: str = ""
    after: float | None = None  # seconds to wait before the next try (a Retry-After)


DELIVERED = SendOutcome("delivered")


def retry(reason: str, after: float | None = None) -> SendOutcome:
    """The destination could not take it now (down, 5xx, 429): try again later, in the same order."""
    return SendOutcome("retry", reason, after)


def give_up(reason: str) -> SendOutcome:
    """Retrying cannot help (bad credentials, a payload the destination rejects): move it aside."""
    return SendOutcome("give_up", reason)


def retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header given in seconds; None for a date or nothing."""
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


def outcome_for_status(status: int, detail: str = "", after: float | None = None) -> SendOutcome:
    """The usual reading of an HTTP answer: 2xx delivered; 408, 425, 429 and 5xx retried; any other
    status given up, with ``detail`` (the body, say) in the reason."""
    if 200 <= status < 300:
        return DELIVERED
    reason = f"HTTP {status}" + (f": {detail[:300]}" if detail else "")
    if status in RETRYABLE_STATUS or status >= 500:
        return retry(reason, after)
    return give_up(reason)


Sender = Callable[[list[Item]], "SendOutcome | Sequence[SendOutcome]"]
