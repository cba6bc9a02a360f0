"""The WebSocket route and its plain-HTTP twin: decode, hand to the service, encode."""

from __future__ import annotations

import json

from flask import Blueprint, Flask, Response, request
from flask_sock import ConnectionClosed, Sock

bp = Blueprint("frames", __name__)
sock = Sock()

STATUS = {"too_large": 413, "unknown_handle": 404, "unknown_panel": 404}


def _service():
    from . import lesson_state

    return lesson_state().service


@sock.route("/ws", bp=bp)
def ws(conn) -> None:
    service = _service()
    while True:
        try:
            text = conn.receive()
        except ConnectionClosed:
            return
        if text is not None:
            conn.send(json.dumps(service.handle_text(text)))


@bp.post("/api/frame")
def frame() -> Response:
    """The same frames over HTTP, for networks whose proxies block WebSockets."""
    answer = _service().handle_text(request.get_data(cache=False))
    status = 200 if answer["type"] != "error" else STATUS.get(answer["code"], 400)
    return Response(json.dumps(answer), status=status, mimetype="application/json")


def init_app(app: Flask) -> None:
    sock.init_app(app)
    app.register_blueprint(bp)
