"""The live socket, ``/live``: carries an instructor's frames on the outage playground to ``lesson/live``
and its answers back (``lesson/live/session.py`` reads them; docs/live.md). One socket is one live
playground: it starts when the socket opens, and its processes are killed when the socket closes or the
server stops. Off by default (``LESSON_LIVE``); with it off, or for a client that is not this machine
(unless ``LESSON_LIVE_ALLOW_REMOTE``), the socket is refused and nothing starts.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, current_app, request
from simple_websocket import ConnectionClosed, Server

from ..live import loopback
from . import beneath
from .socket import IDLE, sock
from .state import lesson_state

bp = Blueprint("live", __name__)
log = logging.getLogger(__name__)

REFUSED = 4403  # live mode is off, or this client may not start processes


def refusal(config: Any, addr: str) -> str | None:
    """Why this client may not run a live playground, naming the setting; None when it may."""
    if not config.get("LIVE"):
        return "live mode is off (start the server with lesson serve --live, or set LESSON_LIVE)"
    if not loopback(addr) and not config.get("LIVE_ALLOW_REMOTE"):
        return "live mode serves this machine only (set LESSON_LIVE_ALLOW_REMOTE to let others start processes)"
    return None


@bp.before_request
def _before_handshake() -> None:
    """As on ``/ws``: no permessage-deflate, so a frame's size is checked as it arrives, not after it
    is inflated (``lesson.web.socket``)."""
    beneath.decline_compression(request.environ)


@sock.route("/live", bp=bp)
def live(ws: Server) -> None:
    from ..live.session import LiveSession, error

    why = refusal(current_app.config, request.remote_addr or "?")
    if why is not None:
        ws.send(error("live_off", why))
        ws.close(REFUSED, why[:120])
        return
    session = LiveSession(current_app.extensions["lesson.live"], lesson_state().panels, current_app.config["LOCALE"])
    idle = float(current_app.config["WS_IDLE_TIMEOUT"])
    try:
        while session.closing is None:
            text = ws.receive(timeout=idle)
            if text is None:
                ws.close(IDLE, "no frame for a while")
                return
            for out in session.handle(text):
                ws.send(out)
        ws.close(*session.closing)
    except ConnectionClosed:
        pass
    finally:
        session.close()


def init_app(app: Any) -> None:
    """Only with live mode on: the route and the registry (nothing imports the SDK otherwise)."""
    app.register_blueprint(bp)
    if not app.config.get("LIVE"):
        return
    import atexit

    from ..live import sdk_missing
    from ..settings import SettingsError

    if why := sdk_missing():  # before anything imports it: a clear start-up error, not an ImportError
        raise SettingsError(f"LESSON_LIVE is on, but {why}")
    from ..live.runner import Limits, Registry

    cfg = app.config
    registry = Registry(
        Limits(
            playgrounds=int(cfg["LIVE_MAX_PLAYGROUNDS"]),
            processes=int(cfg["LIVE_MAX_PROCESSES"]),
            per_playground=int(cfg["LIVE_PROCESSES_PER_PLAYGROUND"]),
            lifetime=float(cfg["LIVE_LIFETIME"]),
            press=float(cfg["LIVE_PRESS_TIMEOUT"]),
        )
    )
    app.extensions["lesson.live"] = registry
    atexit.register(registry.close_all)  # the server stops: no live process outlives it
