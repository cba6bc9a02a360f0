"""A bare WebSocket echo on the same stack, for the load bench's baseline (only with BENCH_ECHO).

It answers every frame with a real playground answer cut or repeated to the size asked for (so
permessage-deflate works as hard as on a press), and the bench can compare a press with the cost of
just moving a message of the same size through the same server."""

from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, request
from simple_websocket import ConnectionClosed, Server

from .socket import _Closed

bp = Blueprint("echo", __name__)
_SAMPLE: list[str] = []


def _sample() -> str:
    if not _SAMPLE:
        from . import lesson_state

        service = lesson_state().service
        handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
        text = ""
        for seq, button in enumerate(["deploy", "a-dies", "turn"], start=1):
            frame = {"v": 2, "type": "press", "handle": handle, "seq": seq, "button": button}
            text = service.handle_text(json.dumps(frame)).text
        _SAMPLE.append(text)
    return _SAMPLE[0]


@bp.route("/bench/echo", websocket=True)
def echo() -> Response:
    try:
        size = max(2, min(int(request.args.get("size", "64")), 1 << 20))
    except ValueError:
        size = 64
    sample = _sample()
    body = (sample * (size // len(sample) + 1))[:size]
    conn = Server(request.environ, ping_interval=current_app.config["WS_PING_INTERVAL"])
    try:
        while True:
            text = conn.receive()
            if text is None:
                break
            conn.send(body)
    except (ConnectionClosed, OSError):
        pass
    return _Closed(conn.mode)
