"""A refused socket's log line names the setting that fixes it: behind a proxy that forwards the learner's
host (X-Forwarded-* headers) while LESSON_PROXY_FIX is unset, that is LESSON_PROXY_FIX, not the embed
origins; a page from another site is what LESSON_EMBED_ORIGINS is for."""

from __future__ import annotations

import json
import logging

import pytest
import websocket

from lesson.web import create_app

UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}
BEHIND_PROXY = {
    "X-Forwarded-Host": "lessons.example.org",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-For": "203.0.113.9",
}


def refused(caplog: pytest.LogCaptureFixture, headers: dict[str, str], **config) -> tuple[int, list[str]]:
    client = create_app({"TESTING": True, "SECRET_KEY": "t", **config}).test_client()
    with caplog.at_level(logging.WARNING, logger="lesson.web.socket"):
        status = client.get("/ws", headers={**UPGRADE, **headers}).status_code
    return status, [r.getMessage() for r in caplog.records if r.name == "lesson.web.socket"]


def test_behind_a_proxy_the_hint_is_proxy_fix(caplog) -> None:
    status, lines = refused(caplog, {"Origin": "https://lessons.example.org", **BEHIND_PROXY})
    assert status == 403
    (line,) = lines
    assert "LESSON_PROXY_FIX" in line and "LESSON_EMBED_ORIGINS" not in line
    assert "https://lessons.example.org" in line


def test_with_proxy_fix_set_the_same_page_opens_its_socket(serve_app, caplog) -> None:
    base = serve_app(PROXY_FIX=1)
    with caplog.at_level(logging.WARNING, logger="lesson.web.socket"):
        ws = websocket.create_connection(
            base.replace("http://", "ws://") + "/ws",
            timeout=10,
            origin="https://lessons.example.org",
            header=[f"{k}: {v}" for k, v in BEHIND_PROXY.items()],
        )
        ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage"}))
        assert json.loads(ws.recv())["type"] == "view"
        ws.close()
    assert not [r for r in caplog.records if r.name == "lesson.web.socket" and "403" in r.getMessage()]


def test_another_sites_page_is_told_about_embed_origins(caplog) -> None:
    status, lines = refused(caplog, {"Origin": "https://portal.example"})
    assert status == 403
    (line,) = lines
    assert "LESSON_EMBED_ORIGINS" in line and "LESSON_PROXY_FIX" not in line
