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
from markupsafe import escape

from ..content import Content, ContentError, default_root, load_content
from ..panels import StepperPanel, load_panels, stepper_views
from ..paths import data_root
from ..service import MemoryStore, Service

ROOT = data_root()  # the checkout, or the data bundled in an installed wheel


@dataclass
class Lesson:
    """What the app holds for its lifetime: validated content, panels and the service."""

    content: Content
    panels: dict[str, Any]
    service: Service
    steppers: dict[str, dict[str, list[dict]]]
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


def _load(root: Path) -> tuple[Content, dict[str, Any], dict[str, dict[str, list[dict]]]]:
    content = load_content(root)
    panels = load_panels(root)
    steppers = {
        pid: {era: [s.model_dump(mode="json") for s in stepper_views(p, era)] for era in ("modern", "legacy")}
        for pid, p in panels.items()
        if isinstance(p, StepperPanel)
    }
    return content, panels, steppers


_reload_lock = threading.Lock()


def _reload_content() -> Response | None:
    """With CONTENT_RELOAD (``lesson serve --reload``) or in debug mode, load the content again when a file
    changed. Broken content keeps the last good content in use, and the page says what to fix."""
    app = current_app
    if not (app.config["CONTENT_RELOAD"] or app.debug) or request.blueprint != "pages" or request.method != "GET":
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
    return None


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. Settings come from defaults, then ``LESSON_*`` environment variables, then
    ``config``. Broken content stops start-up with a ContentError naming the file and line."""
    app = Flask(
        "lesson",
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
        static_url_path="/static",
    )
    app.config.from_mapping(
        SECRET_KEY=None,
        CONTENT_ROOT=str(default_root()),
        MAX_FRAME_BYTES=8192,
        MAX_PLAYGROUNDS=10_000,
        MAX_CONTENT_LENGTH=64 * 1024,
        FRAME_ANCESTORS="*",
        SESSION_COOKIE_SAMESITE="Lax",
        SOCK_SERVER_OPTIONS={"ping_interval": 25, "max_message_size": 1 << 20},
        CONTENT_RELOAD=False,
    )
    app.config.from_prefixed_env("LESSON")
    if config:
        app.config.update(config)
    if not app.config["SECRET_KEY"]:
        # Quiz progress lives in a signed cookie; a fresh key per process is fine for a local run.
        app.config["SECRET_KEY"] = os.environ.get("LESSON_SECRET_KEY") or secrets.token_hex(32)

    root = Path(app.config["CONTENT_ROOT"])
    stamp = fingerprint(root) if app.config["CONTENT_RELOAD"] or app.debug else ()
    content, panels, steppers = _load(root)
    service = Service(panels, MemoryStore(app.config["MAX_PLAYGROUNDS"]), app.config["MAX_FRAME_BYTES"])
    app.extensions["lesson"] = Lesson(
        content=content, panels=panels, service=service, steppers=steppers, root=root, fingerprint=stamp
    )
    if app.config["CONTENT_RELOAD"]:
        app.jinja_env.auto_reload = True
    app.before_request(_reload_content)

    from . import pages, socket

    app.register_blueprint(pages.bp)
    socket.init_app(app)
    return app
