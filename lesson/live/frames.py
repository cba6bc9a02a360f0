"""What the proxies and the host recorded, as the frames the page's wire view draws: the same fields as the
simulation's typed frames (``lesson/sim/frames.py``), so one renderer shows both side by side."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lesson.sim.frames import status_line

# The headers that carry protocol meaning, spelled as the simulation spells them; the rest is plumbing.
HEADERS = {
    "accept": "Accept",
    "content-type": "Content-Type",
    "mcp-protocol-version": "MCP-Protocol-Version",
    "mcp-session-id": "Mcp-Session-Id",
    "mcp-method": "Mcp-Method",
    "mcp-name": "Mcp-Name",
    "last-event-id": "Last-Event-ID",
    "x-accel-buffering": "X-Accel-Buffering",
}


def _headers(raw: dict[str, str]) -> dict[str, str]:
    return {HEADERS[k]: v for k, v in raw.items() if k in HEADERS}


def _frame(kind: str, era: str, sender: str, receiver: str, **fields: Any) -> dict[str, Any]:
    base = {"kind": kind, "on_wire": True, "era": era, "sender": sender, "receiver": receiver, "transport": "http"}
    return {**base, "http": None, "headers": {}, "payload": None, "checks": [], "note": None, **fields}


def _payload(msg: Any) -> dict[str, Any] | None:
    return msg if isinstance(msg, dict) else None


def to_frames(records: list[dict[str, Any]], era: str, say: Callable[..., str]) -> list[dict[str, Any]]:
    """One frame per record that crossed or that the host saw; records of other kinds are skipped. ``say``
    gives a note's sentence from its catalogue code, in the page's locale."""
    out: list[dict[str, Any]] = []
    for r in records:
        kind, server = r.get("kind"), r.get("server", "?")
        if kind == "request":
            out.append(
                _frame(
                    "http_request",
                    era,
                    "host",
                    server,
                    method=r["method"],
                    path=r["path"],
                    http=f"{r['method']} {r['path']}",
                    headers=_headers(r["headers"]),
                    payload=_payload(r["msg"]),
                )  # fmt: skip
            )
        elif kind == "response":
            status = r["status"]
            summary = status_line(status) + (", SSE stream" if r["sse"] else "")
            out.append(
                _frame(
                    "http_response",
                    era,
                    server,
                    "host",
                    status=status,
                    sse=r["sse"],
                    event_id=None,
                    http=summary,
                    headers=_headers(r["headers"]),
                    payload=None if r["sse"] else _payload(r.get("msg")),
                )  # fmt: skip
            )
        elif kind == "event":
            summary = f"SSE event, id {r['id']}" if r.get("id") else "SSE event"
            out.append(
                _frame("sse_event", era, server, "host", event_id=r.get("id"), http=summary, payload=_payload(r["msg"]))
            )
        elif kind == "proxy_error":
            if "did not come back" in r["error"]:  # the proxy held a request until its bound ran out
                note = say("live.note.waited_in_vain", server=server)
            else:
                note = say("live.note.connection_broke", server=server)
            out.append(
                _frame("stream_end", era, server, "host", on_wire=False, how="dropped", http="stream closed", note=note)
            )
        elif kind == "local_error":
            text = f"{server} could not answer: the call failed and no result came back."
            body = {"content": [{"type": "text", "text": text}], "isError": True}
            note = say("narration.note.built_nothing_sent")
            out.append(_frame("host_built", era, "host", "model", on_wire=False, payload=body, note=note))
    return out


def calls_made(last: Any) -> list[tuple[str, str, dict[str, str]]]:
    """The tool calls the simulated model made at one step (``Run.last``): (server, tool, arguments), in the
    order it made them, those the host answered itself included. Only the protocol is real in live mode and
    in the differential suite, so their SDK hosts make the same calls."""
    sent: dict[tuple[str, str], dict[str, str]] = {}
    for f in last.wire:
        msg = f.payload or {}
        if f.on_wire and f.sender == "host" and msg.get("method") == "tools/call":
            sent.setdefault((f.receiver, msg["params"]["name"]), msg["params"]["arguments"])
    finished = [(c.server, c.tool) for c in last.turn.calls] if last.turn is not None else []
    # then any call sent and left running (a turn whose call has not come back)
    return [(s, t, sent.get((s, t), {})) for s, t in finished] + [
        (s, t, args) for (s, t), args in sent.items() if (s, t) not in finished
    ]
