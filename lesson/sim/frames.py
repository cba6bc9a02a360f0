"""What can appear in the wire view, typed by what it is.

On the wire: an HTTP request, an HTTP response (its body a JSON message or the first event of an SSE
stream), a later SSE event on an open stream, a line on stdio. Not on the wire: a stream end the host
observes (a dropped stream, stdio EOF, a refused connection) and a message the host builds itself (the
tool error it hands the model when a server cannot answer). ``on_wire`` is fixed by the type, so the view
cannot mistake one for the other.

Every frame that carries a JSON-RPC message names the ``$defs`` of its era's schema it must satisfy.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Annotated, Any, Literal

from pydantic import Field

from .model import Era, Said, Strict, Transport
from .wire import SchemaCheck, checks_for


def status_line(status: int) -> str:
    """A response's status as its first line says it ("HTTP 404 Not Found"); no phrase for a code HTTP
    does not name."""
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


class _WireFrame(Strict):
    era: Era
    sender: str
    receiver: str
    transport: Transport
    http: str | None = None  # a one-line summary for the view ("POST /mcp", "HTTP 404 Not Found"); None on stdio
    headers: dict[str, str] = Field(default_factory=dict)
    payload: dict[str, Any] | None = None  # the JSON-RPC message, if one is carried
    checks: list[SchemaCheck] = Field(default_factory=list)
    note: Said | None = None


class HttpRequest(_WireFrame):
    kind: Literal["http_request"] = "http_request"
    on_wire: Literal[True] = True
    method: Literal["POST", "GET", "DELETE"]
    path: str = "/mcp"


class HttpResponse(_WireFrame):
    kind: Literal["http_response"] = "http_response"
    on_wire: Literal[True] = True
    status: int
    sse: bool = False  # the body is an SSE stream; ``payload`` is its first event, if any
    event_id: str | None = None  # the id of that first event, only when the server stores events


class SseEvent(_WireFrame):
    """A later event on an SSE stream that is already open (a POST's response or a legacy GET)."""

    kind: Literal["sse_event"] = "sse_event"
    on_wire: Literal[True] = True
    event_id: str | None = None  # only when the server stores events


class StdioLine(_WireFrame):
    kind: Literal["stdio_line"] = "stdio_line"
    on_wire: Literal[True] = True


class StreamEnd(_WireFrame):
    """Seen by the host, not sent by anyone: a stream dropped or closed, stdio EOF, a refused connection."""

    kind: Literal["stream_end"] = "stream_end"
    on_wire: Literal[False] = False
    how: Literal["closed", "dropped", "eof", "refused"]


class HostBuilt(_WireFrame):
    """A message the host builds itself for the model: never on the wire, never from a server."""

    kind: Literal["host_built"] = "host_built"
    on_wire: Literal[False] = False


WireFrame = Annotated[
    HttpRequest | HttpResponse | SseEvent | StdioLine | StreamEnd | HostBuilt,
    Field(discriminator="kind"),
]


def http_request(
    era: Era,
    sender: str,
    receiver: str,
    method: Literal["POST", "GET", "DELETE"],
    headers: dict[str, str],
    payload: dict[str, Any] | None = None,
    note: Said | None = None,
    answers: str | None = None,
) -> HttpRequest:
    return HttpRequest(
        era=era,
        sender=sender,
        receiver=receiver,
        transport="http",
        method=method,
        http=f"{method} /mcp",
        headers=dict(headers),
        payload=payload,
        checks=checks_for(era, payload, answers),
        note=note,
    )


def http_response(
    era: Era,
    sender: str,
    receiver: str,
    status: int,
    *,
    headers: dict[str, str] | None = None,
    payload: dict[str, Any] | None = None,
    sse: bool = False,
    answers: str | None = None,
    note: Said | None = None,
    event_id: str | None = None,
) -> HttpResponse:
    summary = status_line(status) + (", SSE stream" if sse else "")
    if event_id:
        summary += f", event id {event_id}"
    return HttpResponse(
        era=era,
        sender=sender,
        receiver=receiver,
        transport="http",
        status=status,
        sse=sse,
        event_id=event_id,
        http=summary,
        headers=dict(headers or {}),
        payload=payload,
        checks=checks_for(era, payload, answers),
        note=note,
    )


def sse_event(
    era: Era,
    sender: str,
    receiver: str,
    payload: dict[str, Any],
    *,
    answers: str | None = None,
    event_id: str | None = None,
    note: Said | None = None,
) -> SseEvent:
    return SseEvent(
        era=era,
        sender=sender,
        receiver=receiver,
        transport="http",
        http=f"SSE event, id {event_id}" if event_id else "SSE event",
        payload=payload,
        event_id=event_id,
        checks=checks_for(era, payload, answers),
        note=note,
    )


def stdio_line(
    era: Era,
    sender: str,
    receiver: str,
    payload: dict[str, Any],
    *,
    answers: str | None = None,
    note: Said | None = None,
) -> StdioLine:
    return StdioLine(
        era=era,
        sender=sender,
        receiver=receiver,
        transport="stdio",
        payload=payload,
        checks=checks_for(era, payload, answers),
        note=note,
    )


_END_TEXT = {
    "closed": "stream closed",
    "dropped": "stream closed",
    "eof": "EOF on stdout",
    "refused": "connection refused",
}


def stream_end(
    era: Era,
    sender: str,
    receiver: str,
    transport: Transport,
    how: Literal["closed", "dropped", "eof", "refused"],
    note: Said,
) -> StreamEnd:
    summary = None if transport == "stdio" else _END_TEXT[how]  # stdio has no HTTP parts, not even a summary
    return StreamEnd(era=era, sender=sender, receiver=receiver, transport=transport, how=how, http=summary, note=note)


def host_built(era: Era, transport: Transport, body: dict[str, Any], note: Said) -> HostBuilt:
    return HostBuilt(
        era=era,
        sender="host",
        receiver="model",
        transport=transport,
        payload=body,
        checks=checks_for(era, body),
        note=note,
    )
