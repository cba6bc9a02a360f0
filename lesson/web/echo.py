"""A bare WebSocket echo on the same stack, for the load bench's baseline (only with BENCH_ECHO).

It answers every frame with a real playground answer cut or repeated to the size asked for, and the
bench can compare a press with the cost of just moving a message of the same size through the same
server: the size in the URL, or one a frame names (its text a number), so each echo can match the
press it is compared with. Like /ws, it takes no permessage-deflate."""

from __future__ import annotations

import contextlib
import json
import threading

from flask import Blueprint, request
from simple_websocket import Server

from .beneath import decline_compression
from .socket import sock
from .state import lesson_state

bp = Blueprint("echo", __name__)
_SAMPLE: list[str] = []
# A class's sockets open together: without the lock each would build the sample (a playground run and a
# 1 MiB string) while the first echoes are timed, and the baseline would measure that, not an echo.
_SAMPLE_LOCK = threading.Lock()


def _sample() -> str:
    """A real answer repeated to 1 MiB (made once): every echo answer is a slice of it."""
    with _SAMPLE_LOCK:
        if not _SAMPLE:
            service = lesson_state().service
            handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
            text = ""
            for seq, button in enumerate(["deploy", "a-dies", "turn"], start=1):
                frame = {"v": 2, "type": "press", "handle": handle, "seq": seq, "button": button}
                text = service.handle_text(json.dumps(frame)).text
            _SAMPLE.append((text * ((1 << 20) // len(text) + 1))[: 1 << 20])
    return _SAMPLE[0]


@bp.before_request
def _no_compression() -> None:
    decline_compression(request.environ)


@sock.route("/bench/echo", bp=bp)
def echo(ws: Server) -> None:
    try:
        size = max(2, min(int(request.args.get("size", "64")), 1 << 20))
    except ValueError:
        size = 64
    sample = _sample()
    body = sample[:size]
    with contextlib.suppress(OSError):  # the client went away
        while True:
            text = ws.receive()
            if text is None:
                break
            # A frame that is a number asks for an answer of that many characters (the size of the press
            # it stands beside); any other frame gets the size the URL asked for.
            ws.send(sample[: max(2, int(text))] if len(text) < 8 and text.isascii() and text.isdigit() else body)
