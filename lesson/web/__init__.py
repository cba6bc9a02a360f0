"""The web layer: the app factory, page routes, the socket and the HTTP frame endpoint.

Thin on purpose: frames go to ``lesson.service``, content comes from ``lesson.content`` and
``lesson.panels``; nothing here knows the protocol.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request
from flask_compress import Compress
from markupsafe import Markup, escape
from werkzeug.middleware.proxy_fix import ProxyFix

from .. import outbox
from ..content import Content, ContentError, default_root, load_content
from ..lrs import from_settings as lrs_from_settings
from ..markup import breakable
from ..panels import StepperPanel, load_panels, stepper_views
from ..paths import data_root
from ..scripts import page_scenarios
from ..service import RunCache, Service
from ..settings import embed_origins, validate_settings
from .assets import Assets

ROOT = data_root()  # the checkout, or the data bundled in an installed wheel

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
    "REPLAY_RATE": 100.0,  # logged events replayed a second per client address, per process
    "REPLAY_BURST": 500,  # events replayed at once for one address: one full log (a playground holds 500)
    "REPLAY_WAIT": 5.0,  # seconds a socket's log waits for its address's replay budget before it is refused
    "API_RATE": 100.0,  # /api/* requests a second per client address, per process (a class may share one)
    "API_BURST": 300,
    "BENCH_ECHO": False,  # /bench/echo: a bare echo on the same stack, for bench/load_bench.py
    "COMPRESS_ALGORITHM": ["br", "gzip"],
    "COMPRESS_BR_LEVEL": 5,
    "CONTENT_RELOAD": False,  # load content edits again on the next page load (lesson serve --reload)
    "LOCALE": "en",  # the UI strings' language (lesson/messages/<locale>.json); "pseudo" for tests
    "LTI_CONFIG": "",  # the LTI 1.3 platforms' registrations (JSON); empty: no /lti routes (docs/lti.md)
    "LTI_STATE": "",  # the LTI store shared by the workers (SQLite); default: beside LTI_CONFIG
    # The durable outbox for statements and grades (docs/outbox.md); empty URL: SQLite in the instance folder.
    "OUTBOX_URL": "",
    "OUTBOX_MAX_ITEMS": 100_000,
    "OUTBOX_MAX_BYTES": 64 << 20,
    "OUTBOX_LEASE": 30.0,  # seconds a dead sender keeps the others waiting
    "OUTBOX_RETRY_INITIAL": 1.0,
    "OUTBOX_RETRY_MAX": 300.0,
    "OUTBOX_POLL": 1.0,  # seconds between looks for items other processes put
    # Live mode (docs/live.md): the outage playground on real SDK server processes; off unless asked for.
    "LIVE": False,
    "LIVE_ALLOW_REMOTE": False,  # let clients other than this machine start processes
    "LIVE_MAX_PLAYGROUNDS": 2,
    "LIVE_MAX_PROCESSES": 8,  # server processes alive at once, all live playgrounds together
    "LIVE_PROCESSES_PER_PLAYGROUND": 3,
    "LIVE_LIFETIME": 900.0,  # seconds a server process may live
    "LIVE_PRESS_TIMEOUT": 45.0,  # seconds a press (or a live playground's start) may take
}


@dataclass
class Lesson:
    """What the app holds for its lifetime: validated content, panels, the service and assets."""

    content: Content
    panels: dict[str, Any]
    service: Service
    steppers: dict[str, str]  # panel id -> its moments as JSON, served on demand
    assets: Assets
    root: Path | None = None
    fingerprint: tuple = ()


def lesson_state() -> Lesson:
    return current_app.extensions["lesson"]


def fingerprint(root: Path) -> tuple:
    """What the content looks like on disk: every file's name, size and modification time."""
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".yaml", ".yml"):
            st = path.stat()
            out.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(out)


def _load(root: Path) -> tuple[Content, dict[str, Any], dict[str, str]]:
    content = load_content(root)
    panels = load_panels(root)
    steppers = {
        pid: Assets.json_text(
            {era: [s.model_dump(mode="json") for s in stepper_views(p, era)] for era in ("modern", "legacy")}
        )
        for pid, p in panels.items()
        if isinstance(p, StepperPanel)
    }
    steppers["scenarios"] = Assets.json_text(page_scenarios(root))  # replayed in the page (scenario.js)
    return content, panels, steppers


_reload_lock = threading.Lock()


def _reload_content() -> Response | None:
    """With CONTENT_RELOAD (``lesson serve --reload``) or in debug mode, load the content again when a file
    changed. Broken content keeps the last good content in use, and the page says what to fix."""
    app = current_app
    if not (app.config["CONTENT_RELOAD"] or app.debug) or request.blueprint != "pages" or request.method != "GET":
        return None
    if request.endpoint == "pages.healthz":  # the process serves the last good content: it is healthy
        return None
    state = lesson_state()
    if state.root is None:
        return None
    with _reload_lock:
        now = fingerprint(state.root)
        if now == state.fingerprint:
            return None
        try:
            content, panels, steppers = _load(state.root)
        except ContentError as err:
            lines = "\n".join(str(p) for p in err.problems)
            body = f"<!doctype html><title>Content error</title><h1>Content error</h1><pre>{escape(lines)}</pre>"
            return Response(body + "<p>Fix the file and reload the page.</p>", status=500, mimetype="text/html")
        state.content, state.panels, state.steppers, state.fingerprint = content, panels, steppers, now
        state.service.panels = panels
        state.assets.set_data(steppers)
    return None


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
    validate_settings(app.config)  # a malformed setting stops start-up, naming the variable
    if not app.config["SECRET_KEY"]:
        # Quiz progress also lives in the page; the cookie only serves the no-JavaScript form.
        app.config["SECRET_KEY"] = os.environ.get("LESSON_SECRET_KEY") or secrets.token_hex(32)

    root = Path(app.config["CONTENT_ROOT"])
    stamp = fingerprint(root) if app.config["CONTENT_RELOAD"] or app.debug else ()
    content, panels, steppers = _load(root)
    service = Service(panels, RunCache(app.config["CACHE_BYTES"]), app.config["MAX_FRAME_BYTES"])
    assets = Assets(ROOT / "static", extra=steppers)
    app.extensions["lesson"] = Lesson(
        content=content, panels=panels, service=service, steppers=steppers, assets=assets, root=root, fingerprint=stamp
    )
    # Asset and data URLs carry the prefix the app is mounted under (SCRIPT_NAME, X-Forwarded-Prefix).
    app.jinja_env.globals["asset"] = lambda rel: request.script_root + assets.url(rel)
    app.jinja_env.globals["stepper_url"] = lambda name: request.script_root + assets.data_url(name)
    app.jinja_env.globals["embed_origins"] = " ".join(embed_origins(app.config))
    app.jinja_env.filters["breakable"] = lambda text: Markup(breakable(text))
    # Statements go to a learning record store only when one is configured, through the durable
    # outbox, whose sender starts with the first request a process serves (docs/outbox.md).
    app.extensions["lrs"] = (
        lrs_from_settings(app.config, outbox.for_app(app)) if app.config.get("LRS_ENDPOINT") else None
    )
    outbox.init_app(app)
    if app.config["CONTENT_RELOAD"]:
        app.jinja_env.auto_reload = True
    app.before_request(_reload_content)

    from . import guard, live, pages, progress, socket, strings

    guard.init_app(app)  # first: a request it refuses does no other work
    strings.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(progress.bp)
    assets.init_app(app)
    socket.init_app(app)
    live.init_app(app)  # /live: refused unless live mode is on
    app.jinja_env.globals["live"] = bool(app.config["LIVE"])
    from ..lti import init_app as lti_init_app

    lti_init_app(app)  # only with LTI_CONFIG
    if app.config["BENCH_ECHO"]:
        from . import echo

        app.register_blueprint(echo.bp)
    Compress(app)
    if int(app.config["PROXY_FIX"]):
        n = int(app.config["PROXY_FIX"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n, x_prefix=n)  # type: ignore[method-assign]
    return app
