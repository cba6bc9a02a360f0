"""A small cache of what was worked out from an object, kept per object by identity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """``build(obj)``, worked out once per object and looked up by its identity: for objects that are
    not hashable (a list, a model holding lists) or that may be copied with other contents. Each entry
    holds its object, so an id is not reused while the entry is here; past ``limit`` entries the cache
    starts over (the objects come from content, loaded once; only tests make them by the hundred)."""

    def __init__(self, build: Callable[[Any], V], limit: int = 1024) -> None:
        self.build = build
        self.limit = limit
        self._entries: dict[int, tuple[Any, V]] = {}

    def __call__(self, obj: Any) -> V:
        entry = self._entries.get(id(obj))
        if entry is None or entry[0] is not obj:
            if len(self._entries) >= self.limit:
                self._entries.clear()
            entry = self._entries[id(obj)] = (obj, self.build(obj))
        return entry[1]
