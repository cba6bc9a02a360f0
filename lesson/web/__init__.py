"""The web layer: the app factory, page routes, the socket and the HTTP frame endpoint.

Thin on purpose: frames go to ``lesson.service``, content comes from ``lesson.content`` and
``lesson.panels``; nothing here knows the protocol.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from flask_compress import Compress
from werkzeug.middleware.proxy_fix import ProxyFix

from ..content import Content, default_root, load_content
from ..panels import StepperPanel, load_panels, stepper_views
from ..service import RunCache, Service
from .assets import Assets

ROOT = Path(__file__).resolve().parents[2]

DEFAULTS: dict[str, Any] = {
    "SECRET_KEY": None,
    "CONTENT_ROOT": None,
    "MAX_FRAME_BYTES": 16384,  # a frame, including a page's whole log (500 presses fit)
    "CACHE_BYTES": 192 << 20,  # the run cache per process, by estimated bytes (about 2,000 playgrounds)
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "EMBED_ORIGINS": "",  # space-separated origins that may embed the lesson and talk to it
    "FRAME_ANCESTORS": None,  # overrides the CSP frame-ancestors value built from EMBED_ORIGINS
    "PROXY_FIX": 0,  # how many proxies in front set X-Forwarded-*; 0 trusts none
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_HTTPONLY": True,
    "WS_PING_INTERVAL": 25,
    "WS_MAX_MESSAGE_BYTES": 64 * 1024,  # larger frames close the socket with 1009
    "WS_MAX_QUEUED": 16,  # frames received but not handled (the client is not reading)
    "WS_SEND_TIMEOUT": 10.0,  # seconds a send may block on a client that does not read
    "WS_RATE": 20.0,  # frames a second, sustained, per socket
    "WS_BURST": 40,
    "WS_HELLO_TIMEOUT": 20.0,  # seconds a new socket may stay silent
    "WS_IDLE_TIMEOUT": 900.0,  # seconds an open socket may stay silent
    "WS_MAX_PER_ADDRESS": 400,  # sockets per client address, per process (a classroom shares one NAT address)
    "BENCH_ECHO": False,  # /bench/echo: a bare echo on the same stack, for bench/load_bench.py
    "COMPRESS_ALGORITHM": ["br", "gzip"],
    "COMPRESS_BR_LEVEL": 5,
}


@dataclass
class Lesson:
    """What the app holds for its lifetime: validated content, panels, the service and assets."""

    content: Content
    panels: dict[str, Any]
    service: Service
    steppers: dict[str, str]  # panel id -> its moments as JSON, served on demand
    assets: Assets


def lesson_state() -> Lesson:
    return current_app.extensions["lesson"]


def _env_config(app: Flask) -> None:
    app.config.from_prefixed_env("LESSON")


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. Settings come from defaults, then ``LESSON_*`` environment variables, then
    ``config``. Broken content stops start-up with a ContentError naming the file and line."""
    app = Flask("lesson", template_folder=str(ROOT / "templates"), static_folder=None)
    app.config.from_mapping(DEFAULTS, CONTENT_ROOT=str(default_root()))
    _env_config(app)
    if config:
        app.config.update(config)
    if not app.config["SECRET_KEY"]:
        # Quiz progress also lives in the page; the cookie only serves the no-JavaScript form.
        app.config["SECRET_KEY"] = os.environ.get("LESSON_SECRET_KEY") or secrets.token_hex(32)

    root = Path(app.config["CONTENT_ROOT"])
    content = load_content(root)
    panels = load_panels(root)
    steppers = {
        pid: Assets.json_text(
            {era: [s.model_dump(mode="json") for s in stepper_views(p, era)] for era in ("modern", "legacy")}
        )
        for pid, p in panels.items()
        if isinstance(p, StepperPanel)
    }
    service = Service(panels, RunCache(app.config["CACHE_BYTES"]), app.config["MAX_FRAME_BYTES"])
    assets = Assets(ROOT / "static", extra=steppers)
    app.extensions["lesson"] = Lesson(content=content, panels=panels, service=service, steppers=steppers, assets=assets)
    app.jinja_env.globals["asset"] = assets.url
    app.jinja_env.globals["stepper_url"] = assets.data_url

    from . import pages, socket

    app.register_blueprint(pages.bp)
    assets.init_app(app)
    socket.init_app(app)
    if app.config["BENCH_ECHO"]:
        from . import echo

        app.register_blueprint(echo.bp)
    Compress(app)
    if int(app.config["PROXY_FIX"]):
        n = int(app.config["PROXY_FIX"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n)  # type: ignore[method-assign]
    return app
