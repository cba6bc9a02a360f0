"""The live socket, ``/live``: forwards an instructor's presses on the outage playground to ``lesson/live``
(docs/live.md). One socket is one live playground: it starts when the socket opens, and its processes are
killed when the socket closes or the server stops. Off by default (``LESSON_LIVE``); with it off, or for a
client that is not this machine (unless ``LESSON_LIVE_ALLOW_REMOTE``), the socket is refused and nothing
starts.

Frames, page to server: ``{"type": "open", "panel": "outage", "era": "modern", "lang": "en"}`` (again: start
over, in that era; ``lang``, the page's locale, picks the language of the lines, else the server's
``LESSON_LOCALE``), ``{"type": "press", "button": "a-dies"}``. Server to page: ``{"type": "starting"}``, then
the live view (``{"type": "live", ...}``, see ``lesson/live/runner.py``), or ``{"type": "error", "code", "message"}``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import Blueprint, current_app, request
from simple_websocket import ConnectionClosed, Server

from ..i18n import refuse_locale
from ..live import LIVE_PANELS, loopback
from ..sim.model import ERAS
from .socket import sock

bp = Blueprint("live", __name__)
log = logging.getLogger(__name__)

REFUSED = 4403  # live mode is off, or this client may not start processes
BUSY = 1013  # try again later: the bounds are reached


def refusal(config: Any, addr: str) -> str | None:
    """Why this client may not run a live playground, naming the setting; None when it may."""
    if not config.get("LIVE"):
        return "live mode is off (start the server with lesson serve --live, or set LESSON_LIVE)"
    if not loopback(addr) and not config.get("LIVE_ALLOW_REMOTE"):
        return "live mode serves this machine only (set LESSON_LIVE_ALLOW_REMOTE to let others start processes)"
    return None


def _send(ws: Server, **frame: Any) -> None:
    ws.send(json.dumps(frame))


def _error(ws: Server, code: str, message: str) -> None:
    _send(ws, type="error", code=code, message=message)


@sock.route("/live", bp=bp)
def live(ws: Server) -> None:
    why = refusal(current_app.config, request.remote_addr or "?")
    if why is not None:
        _error(ws, "live_off", why)
        ws.close(REFUSED, why[:120])
        return
    from ..live.runner import LiveRefused

    registry = current_app.extensions["lesson.live"]
    panels = current_app.extensions["lesson"].panels
    idle = float(current_app.config["WS_IDLE_TIMEOUT"])
    pg = None
    try:
        while True:
            text = ws.receive(timeout=idle)
            if text is None:
                ws.close(4408, "no frame for a while")
                return
            try:
                frame = json.loads(text)
                kind = frame["type"]
            except (ValueError, KeyError, TypeError):
                _error(ws, "bad_frame", "send a JSON object with a 'type'")
                continue
            try:
                if kind == "open":
                    panel_id, era = frame.get("panel"), frame.get("era", "modern")
                    if panel_id not in LIVE_PANELS or panel_id not in panels or era not in ERAS:
                        _error(ws, "not_live", f"only {', '.join(LIVE_PANELS)} can run live, in era legacy or modern")
                        continue
                    lang = frame.get("lang") or current_app.config["LOCALE"]
                    if why := refuse_locale(lang):
                        _error(ws, "unknown_locale", why)
                        continue
                    if pg is not None:
                        pg.close()
                        pg = None
                    _send(ws, type="starting", era=era)
                    pg = registry.open(panels[panel_id], era, lang)
                    ws.send(json.dumps(pg.opening))
                elif kind == "press":
                    if pg is None:
                        _error(ws, "not_open", "open a live playground first")
                        continue
                    ws.send(json.dumps(pg.press(str(frame.get("button")))))
                else:
                    _error(ws, "bad_frame", f"unknown frame type {kind!r}")
            except LiveRefused as err:
                _error(ws, err.code, err.message)
                if err.code in ("live_busy", "live_processes", "live_stopped"):
                    ws.close(BUSY, err.message[:120])
                    return
            except Exception as err:  # a live playground that failed to start or broke: say so, keep serving
                log.exception("live playground failed")
                _error(ws, "live_failed", f"the real servers failed: {err}")
                if pg is not None:
                    pg.close()
                    pg = None
    except ConnectionClosed:
        pass
    finally:
        if pg is not None:
            pg.close()


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
