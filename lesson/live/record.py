"""What crossed, in the order it crossed: one list of records the live playground's proxies and host append
to, on the playground's own event loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

WAIT = 15.0  # seconds any one wait of a live press may take (a frame, a notice; a port twice this)


class Recorder:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def add(self, **record: Any) -> None:
        self.records.append(record)

    async def wait(
        self, match: Callable[[dict[str, Any]], bool], what: str, after: int = 0, timeout: float = WAIT
    ) -> dict[str, Any]:
        """The first record from ``after`` on that ``match`` accepts; TimeoutError naming ``what`` after ``timeout``."""
        try:
            with anyio.fail_after(timeout):
                while True:
                    found = next((r for r in self.records[after:] if match(r)), None)
                    if found is not None:
                        return found
                    await anyio.sleep(0.02)
        except TimeoutError:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}") from None
