"""What an outbox store does: the interface the SQLite store (``outbox_sqlite.py``) and the Redis store
(``outbox_redis.py``) implement, and the figures both report. ``outbox.py`` opens one and re-exports
these."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .outbox_items import Item


class OutboxStore:
    """What an outbox keeps and where. Every method is one atomic step, safe across processes."""

    url: str

    def put(self, kind: str, destination: str, payloads: list[str], now: float) -> list[int] | None:
        """Store all, or none when the bounds would be passed (None)."""
        raise NotImplementedError

    def acquire(self, owner: str, ttl: float) -> bool:
        """Take or renew the sender's lease; False while another owner holds it."""
        raise NotImplementedError

    def release(self, owner: str) -> None:
        raise NotImplementedError

    def due(self, now: float, limit: int) -> list[str]:
        """Destinations with items waiting whose backoff has passed, the longest waiting first."""
        raise NotImplementedError

    def next_due(self) -> float | None:
        raise NotImplementedError

    def head(self, destination: str, limit: int) -> list[Item]:
        raise NotImplementedError

    def remove(self, ids: list[int], delivered: bool) -> int:
        """Remove items (sent, or dropped by an operator); how many were there."""
        raise NotImplementedError

    def set_aside(self, item: Item, reason: str, now: float) -> None:
        raise NotImplementedError

    def backoff(self, destination: str, until: float, reason: str, ids: list[int]) -> None:
        raise NotImplementedError

    def failures(self, destination: str) -> int:
        """Failed tries in a row for this destination (the backoff's exponent)."""
        raise NotImplementedError

    def clear_backoff(self, destination: str) -> None:
        raise NotImplementedError

    def stats(self, now: float) -> dict[str, Any]:
        raise NotImplementedError

    def pending(self, limit: int) -> list[Item]:
        raise NotImplementedError

    def dead(self, limit: int) -> list[Item]:
        raise NotImplementedError

    def requeue(self, ids: list[int]) -> int:
        """Put items that were given up back at their place in their destination's order."""
        raise NotImplementedError

    def drop_dead(self, ids: list[int]) -> int:
        raise NotImplementedError

    def retry_now(self, ids: list[int] | None) -> int:
        """End the backoff of the destinations of these items (of all, for None)."""
        raise NotImplementedError

    def close(self) -> None:
        pass


def store_stats(counts: Mapping[str, int], oldest: float | None, now: float, waiting: int, dead: int) -> dict[str, Any]:
    return {
        "depth": int(counts.get("items", 0)),
        "bytes": int(counts.get("bytes", 0)),
        "oldest_age": round(max(0.0, now - oldest), 3) if oldest is not None else None,
        "destinations_waiting": int(waiting),  # destinations in backoff after a failure
        "delivered": int(counts.get("delivered", 0)),
        "refused": int(counts.get("refused", 0)),  # puts refused because the outbox was full
        "given_up": int(counts.get("given_up", 0)),  # ever moved aside
        "set_aside": int(dead),  # moved aside and still kept (lesson outbox list --dead)
    }


__all__ = ["OutboxStore", "store_stats"]
