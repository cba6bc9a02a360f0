"""LTI 1.3: a learning management system launches a lesson, an author picks lessons by deep linking,
and the quick check's score goes to the course's gradebook.

Off unless ``LESSON_LTI_CONFIG`` names the platforms' registrations (pylti1p3's JSON format, see
docs/lti.md): without it no ``/lti`` route exists and nothing else changes.

- ``tool``: the registrations, the store every worker shares, the state cookie, refusal reasons.
- ``views``: the routes (login, launch, deep linking, answers, JWKS, configuration JSON).
- ``grades``: first answers per attempt, and the one place a score is queued.
- ``sender``: delivering a score (token, then POST to the line item), for the outbox.
- ``keys``: ``lesson lti-keys``.
"""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    path = app.config.get("LTI_CONFIG")
    if not path:
        return
    from .tool import Tool
    from .views import bp

    tool = Tool(path, app.config.get("LTI_STATE") or None)
    app.extensions["lti"] = tool
    app.register_blueprint(bp)
    from .. import outbox
    from .grades import KIND
    from .sender import make_sender

    outbox.for_app(app).register(KIND, make_sender(tool), batch=1)
