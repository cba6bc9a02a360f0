"""Start over: forget this lesson's quick-check answers kept in the session cookie (the no-JavaScript
form keeps them there). The page clears what it holds itself (playground logs, its own answers)."""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify, session

from .pages import kept
from .state import lesson_state

bp = Blueprint("progress", __name__)


@bp.post("/api/progress/<slug>/clear")
def clear(slug: str) -> Response:
    if lesson_state().content.lesson(slug) is None:
        abort(404, "there is no such lesson")
    for key in ("quiz", "quiz_seen"):  # the answers that score, and the last one checked on each question
        progress = kept(key)
        if progress.pop(slug, None) is not None:
            session[key] = progress
    return jsonify(cleared=slug)
