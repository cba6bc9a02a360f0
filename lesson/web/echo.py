"""A bare WebSocket echo on the same stack, for the load bench's baseline (only with BENCH_ECHO).

It answers every frame with a fixed text of the size asked for, so the bench can compare the
playground's press with the cost of just moving a message of the same size through the server."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request
from simple_websocket import ConnectionClosed, Server

from .socket import _Closed

bp = Blueprint("echo", __name__)


@bp.route("/bench/echo", websocket=True)
def echo() -> Response:
    size = max(2, min(int(request.args.get("size", "64")), 1 << 20))
    body = '"' + "x" * (size - 2) + '"'
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
