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

from ..content import Content, default_root, load_content
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


def lesson_state() -> Lesson:
    return current_app.extensions["lesson"]


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
    )
    app.config.from_prefixed_env("LESSON")
    if config:
        app.config.update(config)
    if not app.config["SECRET_KEY"]:
        # Quiz progress lives in a signed cookie; a fresh key per process is fine for a local run.
        app.config["SECRET_KEY"] = os.environ.get("LESSON_SECRET_KEY") or secrets.token_hex(32)

    root = Path(app.config["CONTENT_ROOT"])
    content = load_content(root)
    panels = load_panels(root)
    steppers = {
        pid: {era: [s.model_dump(mode="json") for s in stepper_views(p, era)] for era in ("modern", "legacy")}
        for pid, p in panels.items()
        if isinstance(p, StepperPanel)
    }
    service = Service(panels, MemoryStore(app.config["MAX_PLAYGROUNDS"]), app.config["MAX_FRAME_BYTES"])
    app.extensions["lesson"] = Lesson(content=content, panels=panels, service=service, steppers=steppers)

    from . import pages, socket

    app.register_blueprint(pages.bp)
    socket.init_app(app)
    return app
