"""What the app holds for its lifetime, and the one way a request reaches it. A module of its own, which
imports no route module, so each of them can import it at its top."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import current_app

from lesson.content.models import Content
from lesson.playground.service import Service

from .assets import Assets


@dataclass
class AppState:
    """What the app holds for its lifetime: validated content, panels, the service and assets."""

    content: Content
    panels: dict[str, Any]
    service: Service
    steppers: dict[str, str]  # panel id (English), "<panel id>.<locale>" -> its moments as JSON, served on demand
    assets: Assets
    root: Path | None = None
    fingerprint: tuple = ()


def lesson_state() -> AppState:
    return current_app.extensions["lesson"]
