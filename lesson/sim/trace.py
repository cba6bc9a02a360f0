"""A playground's wire messages as plain records, one per message, in order: what ``lesson trace`` prints.

Stream ends (a dropped stream, stdio EOF, a refused connection) carry no message and are left out;
what the host builds itself is kept, with ``on_wire: false``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .frames import Frame, HostBuilt, HttpRequest, HttpResponse, SseEvent, StdioLine
from .playground import Playground, advance, begin
from .scenarios import opening


def http_part(frame: Frame) -> dict[str, Any] | None:
    """The HTTP side of a frame, header names lower-cased; None on stdio and for what never crossed."""
    headers = {k.lower(): v for k, v in frame.headers.items()}
    if isinstance(frame, HttpRequest):
        return {"method": frame.method, "path": frame.path, "headers": headers}
    if isinstance(frame, HttpResponse):
        return {"status": frame.status, "headers": headers, "sse": frame.sse}
    if isinstance(frame, SseEvent):  # a later event on a response stream that is already open
        return {"status": 200, "headers": headers, "sse": True}
    return None


def record(step: int, frame: Frame) -> dict[str, Any]:
    return {
        "step": step,
        "era": frame.era,
        "from": frame.sender,
        "to": frame.receiver,
        "transport": frame.transport,
        "http": http_part(frame),
        "msg": frame.payload,
        "on_wire": frame.on_wire,
    }


def trace(playground: Playground) -> Iterator[dict[str, Any]]:
    """Every wire message of the playground, in order; ``step`` is the 1-based index of the event that caused
    it, and 0 for the opening (each configured client's greeting, listen stream and first list)."""
    steps = [opening(playground.start)[1]]
    run = begin(playground.start)
    for event in playground.events:
        run = advance(run, event)
        assert run.last is not None
        steps.append(run.last.wire)
    for n, frames in enumerate(steps):
        for frame in frames:
            if isinstance(frame, (HttpRequest, HttpResponse, SseEvent, StdioLine, HostBuilt)):
                yield record(n, frame)
