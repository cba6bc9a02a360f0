"""A playground's wire messages as plain records, one per message, in order: what ``lesson trace`` prints.

Stream ends (a dropped stream, stdio EOF, a refused connection) carry no message and are left out;
what the host builds itself is kept, with ``on_wire: false``. :func:`rows` is the readable form (``--format
text`` or ``markdown``), which also shows what the host saw without a message crossing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .frames import HostBuilt, HttpRequest, HttpResponse, SseEvent, StdioLine, StreamEnd, WireFrame
from .run import Playground, begin, runs
from .starts import opening
from .step import Said


def http_part(frame: WireFrame) -> dict[str, Any] | None:
    """The HTTP side of a frame, header names lower-cased; None on stdio and for what never crossed."""
    headers = {k.lower(): v for k, v in frame.headers.items()}
    if isinstance(frame, HttpRequest):
        return {"method": frame.method, "path": frame.path, "headers": headers}
    if isinstance(frame, HttpResponse):
        return {"status": frame.status, "headers": headers, "sse": frame.sse}
    if isinstance(frame, SseEvent):  # a later event on a response stream that is already open
        return {"status": 200, "headers": headers, "sse": True}
    return None


def record(step: int, frame: WireFrame) -> dict[str, Any]:
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
    for run in runs(begin(playground.start), playground.events):
        assert run.last is not None
        steps.append(run.last.wire)
    for n, frames in enumerate(steps):
        for frame in frames:
            if isinstance(frame, (HttpRequest, HttpResponse, SseEvent, StdioLine, HostBuilt)):
                yield record(n, frame)


# --- Readable traces: ``lesson trace --format text`` and ``--format markdown`` -------------------------


@dataclass(frozen=True)
class Row:
    """One line of a readable trace: a message, or something the host saw that crossed no wire."""

    step: int
    what: str  # the step's title or narration; the event's own label without one
    sender: str
    receiver: str
    http: str  # HTTP method or status; "stdio" on stdio; "" for what crossed nothing
    message: str  # the JSON-RPC method, "result", "error", or a host-side note
    on_wire: bool


def _message(payload: dict[str, Any] | None) -> str:
    if not payload:
        return ""
    if payload.get("isError") is True:  # a tool result the host hands the model, not a JSON-RPC message
        return "tool error (isError)"
    if "method" in payload:
        return str(payload["method"])
    if "error" in payload:
        error = payload["error"]
        code = error.get("code") if isinstance(error, dict) else None
        return f"error {code}" if code is not None else "error"
    if isinstance(payload.get("result"), dict) and payload["result"].get("isError"):
        return "result (isError)"
    return "result" if "result" in payload else ""


_ENDS = {"closed": "stream closed", "dropped": "stream dropped", "eof": "stdio EOF", "refused": "connection refused"}


def _row(step: int, what: str, frame: WireFrame) -> Row:
    if isinstance(frame, HttpRequest):
        http = frame.method
    elif isinstance(frame, HttpResponse):
        http = str(frame.status)
    elif isinstance(frame, SseEvent):
        http = "SSE event"
    elif isinstance(frame, StdioLine):
        http = "stdio"
    else:
        http = ""
    if isinstance(frame, StreamEnd):
        message = f"{_ENDS[frame.how]} (host-side, not on the wire)"
    elif isinstance(frame, HostBuilt):
        message = f"{_message(frame.payload) or 'message'} built by the host (not on the wire)"
    else:
        message = _message(frame.payload)
    return Row(step, what, frame.sender, frame.receiver, http, message, frame.on_wire)


def rows(
    playground: Playground, titles: list[str] | None = None, say: Callable[[Said], str] = lambda said: said.code
) -> Iterator[Row]:
    """The readable trace: every message in order, and the stream ends and host-built messages the JSON
    trace leaves out. A step that sends nothing (a server dies) still has a line: what the host saw.
    ``titles`` names each event (a scenario step's title or narration); without it, the event's label.
    ``say`` puts a log line or an event's heading in words (``lesson.narration``); the simulation knows
    only its code."""
    _, wire = opening(playground.start)
    for frame in wire:
        yield _row(0, "opening", frame)
    for n, run in enumerate(runs(begin(playground.start), playground.events), 1):
        assert run.last is not None
        event = run.playground.events[-1]
        what = titles[n - 1] if titles and n - 1 < len(titles) and titles[n - 1] else say(event.describe())
        frames = run.last.wire
        for frame in frames:
            yield _row(n, what, frame)
        if not frames:
            seen = " ".join(say(line) for line in run.last.lines) or "nothing changes"
            prefix = "refused: " if run.last.rejected else ""
            yield Row(n, what, "host", "", "", f"{prefix}{seen} (host-side, no message)", False)


def _cells(row: Row) -> list[str]:
    return [str(row.step), row.what, row.sender, row.receiver or "-", row.http or "-", row.message or "-"]


def as_text(items: list[Row]) -> list[str]:
    """One aligned line per row: step, what happens, sender -> receiver, HTTP method or status, message."""
    cells = [_cells(r) for r in items]
    if not cells:
        return []
    widths = [max(len(c[i]) for c in cells) for i in range(6)]
    out = []
    for c in cells:
        route = f"{c[2]:<{widths[2]}} -> {c[3]:<{widths[3]}}"
        out.append(f"{c[0]:>{widths[0]}}  {c[1]:<{widths[1]}}  {route}  {c[4]:<{widths[4]}}  {c[5]}".rstrip())
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def as_markdown(items: list[Row]) -> list[str]:
    """A Markdown table for a handout: what happens is written once, on the first row of its step."""
    out = ["| step | what happens | from | to | HTTP | message |", "|---:|---|---|---|---|---|"]
    shown: int | None = None
    for r in items:
        c = [_md(x) for x in _cells(r)]
        if r.step == shown:
            c[1] = ""
        shown = r.step
        if not r.on_wire:
            c[5] = f"*{c[5]}*"
        out.append("| " + " | ".join(c) + " |")
    return out
