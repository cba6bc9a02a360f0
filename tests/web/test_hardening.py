"""What a client cannot make the server do: inflate compressed frames, replay logs faster than its
address's budget, flood /api/*, forge the proxy's headers; and /api/* answers JSON even for an
address or method it does not have. Loopback only, bounded."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest
import websocket

OPEN = {"v": 2, "type": "open", "panel": "outage"}
LONG_LOG = {"era": "modern", "events": [["p", "turn"]] * 500, "seq": 500}  # the longest log a playground keeps
TASK = "/api/quiz/an-outage/host-error"
TASK_LOG = "outage:modern::" + ",".join(["turn"] * 500)


def ws_url(base: str) -> str:
    return base.replace("http", "ws") + "/ws"


@pytest.mark.parametrize("path", ["/ws", "/live"])
def test_the_sockets_take_no_permessage_deflate(serve_app, path):
    """A frame compressed 1,000 to 1 would be inflated before its size is checked: neither socket
    takes the client's offer of compression, so every frame arrives at its real size."""
    base = serve_app()
    ws = websocket.create_connection(
        base.replace("http", "ws") + path,
        timeout=10,
        header=["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"],
    )
    assert "sec-websocket-extensions" not in ws.getheaders()
    ws.send(json.dumps(OPEN))
    assert json.loads(ws.recv())["type"] == ("view" if path == "/ws" else "error")  # live mode is off here


def test_a_socket_s_log_replays_are_charged_to_its_address(serve_app):
    """Replaying a log is the costly frame: past its address's budget, a log is refused with a code the
    page can act on, while presses (no replay) carry on."""
    base = serve_app(REPLAY_BURST=500, REPLAY_RATE=1, REPLAY_WAIT=0)
    log = {"era": "modern", "events": [["p", "turn"]] * 400, "seq": 400}
    ws = websocket.create_connection(ws_url(base), timeout=10)
    ws.send(json.dumps({**OPEN, "log": log}))
    first = json.loads(ws.recv())
    assert first["type"] == "view" and first["steps"] == 400
    ws.send(json.dumps({**OPEN, "log": log}))
    second = json.loads(ws.recv())
    assert second["type"] == "error" and second["code"] == "slow_down"
    ws.send(json.dumps({"v": 2, "type": "press", "handle": first["handle"], "seq": 401, "button": "turn"}))
    assert json.loads(ws.recv())["steps"] == 401
    other = websocket.create_connection(ws_url(base), timeout=10)  # the same address: the same budget
    other.send(json.dumps({**OPEN, "log": LONG_LOG}))
    assert json.loads(other.recv())["code"] == "slow_down"


def test_a_socket_waits_for_its_replay_budget_rather_than_fail(serve_app):
    """Within LESSON_REPLAY_WAIT a log waits for the budget to refill and is then replayed."""
    base = serve_app(REPLAY_BURST=500, REPLAY_RATE=2000, REPLAY_WAIT=5)
    ws = websocket.create_connection(ws_url(base), timeout=10)
    for _ in range(3):
        ws.send(json.dumps({**OPEN, "log": LONG_LOG}))
        assert json.loads(ws.recv())["steps"] == 500


def test_http_frames_and_task_logs_share_the_replay_budget(app):
    app.config.update(REPLAY_BURST=600)
    app.extensions["lesson.replays"].burst = 600
    app.extensions["lesson.replays"].rate = 1
    client = app.test_client()
    first = client.post("/api/frame", json={**OPEN, "log": LONG_LOG})
    assert first.status_code == 200 and first.json["steps"] == 500
    again = client.post("/api/frame", json={**OPEN, "log": LONG_LOG})
    assert again.status_code == 429 and again.json["code"] == "slow_down" and again.headers["Retry-After"]
    graded = client.post(TASK, json={"log": TASK_LOG})
    assert graded.status_code == 429 and graded.json["code"] == "slow_down"
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "192.0.2.7"  # another address has its own budget
    assert elsewhere.post(TASK, json={"log": TASK_LOG}).status_code == 200


def test_api_requests_are_rate_limited_per_address(app):
    app.extensions["lesson.api_rate"].burst = 5
    app.extensions["lesson.api_rate"].rate = 0.001
    client = app.test_client()
    codes = [client.post("/api/frame", json=OPEN).status_code for _ in range(7)]
    assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
    refused = client.post("/api/frame", json=OPEN)
    assert refused.is_json and "requests a second" in refused.json["error"] and refused.headers["Retry-After"]
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert elsewhere.post("/api/frame", json=OPEN).status_code == 200
    assert client.get("/healthz").status_code == 200  # pages are not /api


@pytest.mark.parametrize(
    "method, path, status", [("get", "/api/nothing-here", 404), ("get", "/api/frame", 405), ("put", TASK, 405)]
)
def test_api_errors_answer_json(client, method, path, status):
    resp = getattr(client, method)(path)
    assert resp.status_code == status and resp.is_json and resp.json["error"]
    if status == 405:
        assert "POST" in resp.headers["Allow"] and "POST" in resp.json["error"]


def test_a_method_an_address_does_not_take_is_said_in_words(client):
    resp = client.post("/healthz")
    assert resp.status_code == 405 and resp.mimetype == "text/plain" and "GET" in resp.headers["Allow"]
    assert "POST is not allowed" in resp.get_data(as_text=True) and "<" not in resp.get_data(as_text=True)


def test_the_quiz_cookie_is_secure_when_served_over_https(client):
    answered = client.post("https://lesson.example/lessons/restarts/quiz/idle-restart", data={"choice": "b"})
    assert answered.status_code == 303
    cookie = answered.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie
    plain = client.post("/lessons/restarts/quiz/idle-restart", data={"choice": "b"})
    assert "Secure" not in plain.headers["Set-Cookie"]


def raw_get(base: str, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    host, port = base.removeprefix("http://").split(":")
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_the_production_server_trusts_no_forwarded_headers_without_proxy_fix(spawn):
    """With LESSON_PROXY_FIX=0 (no proxy in front) a client's own SCRIPT_NAME and X-Forwarded-* are
    ignored, even from 127.0.0.1: the page is served as usual, its links under the real root."""
    base, proc = spawn(workers=1, env={"LESSON_PROXY_FIX": "0"})
    forged = {"SCRIPT_NAME": "/evil", "X-Forwarded-Proto": "https", "X-Forwarded-Prefix": "/evil"}
    status, body = raw_get(base, "/", forged)
    assert status == 200
    assert b'href="/evil' not in body and b'src="/evil' not in body
    with urllib.request.urlopen(base + "/healthz", timeout=10) as resp:
        assert resp.status == 200
    with open(proc.log_path) as f:
        assert "Traceback" not in f.read()


def test_a_route_marked_cross_site_takes_posts_from_other_sites():
    """A portal's launch is posted by another site: its view opts out of the origin check, and every
    other POST stays checked, whichever blueprint it is in."""
    from flask import Blueprint

    from lesson.web import create_app
    from lesson.web.guard import cross_site

    portal = Blueprint("portal", __name__)

    @portal.post("/portal/launch")
    @cross_site
    def launch() -> str:
        return "launched"

    @portal.post("/portal/other")
    def other() -> str:
        return "changed"

    app = create_app({"SECRET_KEY": "t"})
    app.register_blueprint(portal)
    client = app.test_client()
    foreign = {"Origin": "https://lms.example"}
    assert client.post("/portal/launch", headers=foreign).status_code == 200
    assert client.post("/portal/other", headers=foreign).status_code == 403
    assert client.post("/api/frame", json=OPEN, headers=foreign).status_code == 403


@pytest.mark.parametrize("key", ["REPLAY_RATE", "REPLAY_BURST", "API_RATE", "API_BURST", "REPLAY_WAIT"])
def test_a_malformed_budget_setting_stops_start_up(key):
    from lesson.settings import SettingsError
    from lesson.web import create_app

    with pytest.raises(SettingsError, match=f"LESSON_{key}"):
        create_app({"SECRET_KEY": "t", key: "lots"})


def test_a_page_sending_back_several_long_task_logs_is_graded_on_a_full_budget(client):
    """After a reload the page sends every answer it holds: their presses may pass one burst, and are
    charged as one burst at most, so they are graded, not refused for ever."""
    answers = {"host-error": TASK_LOG, "another": TASK_LOG}
    resp = client.post("/api/quiz/an-outage", json={"answers": answers})
    assert resp.status_code == 200 and "host-error" in resp.json["results"]
    # A log over the playground's limit is refused as such, whatever the budget holds.
    too_long = "outage:modern::" + ",".join(["turn"] * 501)
    refused = client.post(TASK, json={"log": too_long})
    assert refused.status_code == 400 and refused.json["code"] == "too_many"


def test_a_task_log_the_grader_refuses_unreplayed_costs_no_replay_budget(app):
    """A log naming another panel than its task's (or sent for a question that is no task) is refused
    before any replay: sent twice, it gets its own error twice, never a slow_down it did not earn."""
    app.extensions["lesson.replays"].burst = 600
    app.extensions["lesson.replays"].rate = 1
    client = app.test_client()
    other_panel = "handles:modern::" + ",".join(["create"] * 450)
    for _ in range(2):
        refused = client.post(TASK, json={"log": other_panel})
        assert refused.status_code == 400 and refused.json["code"] == "other_panel"
    choice = client.post("/api/quiz/an-outage", json={"answers": {"dead-server": TASK_LOG, "nope": TASK_LOG}})
    assert choice.status_code == 200
    assert client.post(TASK, json={"log": TASK_LOG}).status_code == 200  # the budget is whole: 500 presses
