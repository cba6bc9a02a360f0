"""Requests no page sends: each gets a clear 4xx that says what is wrong, never a 500. Loopback only."""

from __future__ import annotations

import http.client
import json
import socket
from urllib.parse import urlsplit

import pytest

BAD_REFERER = {"Referer": "http://[::1/"}  # no URL at all: urlsplit raises on it


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/frame", {"json": {"v": 2, "type": "open", "panel": "outage"}}),
        ("/api/quiz/an-outage/dead-server", {"json": {"choice": "b"}}),
        ("/lessons/an-outage/quiz/dead-server", {"data": {"choice": "b"}}),
        ("/api/progress/an-outage/clear", {}),
    ],
)
def test_a_referer_that_is_no_url_is_refused_as_another_site(client, path, body):
    resp = client.post(path, headers=BAD_REFERER, **body)
    assert resp.status_code == 403


def test_a_socket_handshake_with_a_referer_that_is_no_url_is_refused(client):
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13"}
    resp = client.get("/ws", headers={**upgrade, "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", **BAD_REFERER})
    assert resp.status_code == 403


@pytest.mark.parametrize(
    "held",
    [
        {"quiz": [1, 2]},
        {"quiz": "x"},
        {"quiz": {"an-outage": "b"}},
        {"quiz": {"an-outage": {"dead-server": 3}}},
        {"quiz_seen": {"an-outage": [1]}},
    ],
)
def test_a_session_cookie_of_another_shape_holds_no_answers(app, held):
    """A cookie signed with this key but shaped otherwise (another app on the host, an older version):
    read as holding nothing, and replaced by the next answer."""
    client = app.test_client()
    client.set_cookie(app.config["SESSION_COOKIE_NAME"], app.session_interface.get_signing_serializer(app).dumps(held))
    assert client.get("/").status_code == 200
    assert client.get("/lessons/an-outage").status_code == 200
    assert client.post("/lessons/an-outage/quiz/dead-server", data={"choice": "b"}).status_code == 303
    assert client.post("/api/quiz/an-outage/dead-server", json={"choice": "b"}).json["score"]["answered"] == 1
    assert client.post("/api/progress/an-outage/clear").status_code == 200
    assert client.post("/api/quiz/an-outage", json={}).json["score"]["answered"] == 0


@pytest.mark.parametrize(
    "path, said",
    [
        ("/api/quiz/an-outage/nope", "no such question"),
        ("/api/quiz/nope/one", "no quick check"),
        ("/api/quiz/nope", "no quick check"),
        ("/api/progress/nope/clear", "no such lesson"),
    ],
)
def test_an_api_address_naming_nothing_that_exists_answers_json(client, path, said):
    resp = client.post(path, json={"choice": "a"})
    assert resp.status_code == 404 and resp.is_json and said in resp.json["error"]


def http_get(url: str, headers: dict[str, str]) -> tuple[int, str, str]:
    """A GET with exactly these headers (urllib would add a Connection header of its own)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", parts.path, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.headers.get_content_type(), resp.read().decode()
    finally:
        conn.close()


def test_a_plain_request_to_the_socket_s_address_says_which_headers_it_lacks(serve_app):
    """What a proxy that drops the upgrade headers sends: the answer names them, in words."""
    base = serve_app()
    status, kind, text = http_get(base + "/ws", {})
    assert (status, kind) == (400, "text/plain") and "Upgrade: websocket" in text and "Connection: Upgrade" in text
    status, kind, text = http_get(base + "/ws", {"Upgrade": "websocket"})
    assert (status, kind) == (400, "text/plain") and "Connection: Upgrade" in text and "Upgrade: websocket" not in text
    status, kind, text = http_get(base + "/", {"Upgrade": "websocket", "Connection": "Upgrade"})
    assert (status, kind) == (400, "text/plain") and "/ws" in text


def raw_post(base: str, path: str, head: list[str], body: bytes) -> tuple[int, bytes]:
    host, port = base.removeprefix("http://").split(":")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close", *head]
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    return int(status_line.split(b" ", 2)[1]), rest.partition(b"\r\n\r\n")[2]


def test_a_malformed_chunked_body_gets_a_json_400_from_the_one_process_server_too(serve_app):
    head = ["Content-Type: application/json", "Transfer-Encoding: chunked"]
    status, body = raw_post(serve_app(), "/api/frame", head, b"zz\r\n{}\r\n0\r\n\r\n")
    assert status == 400 and "could not be read" in json.loads(body)["error"]


def test_a_malformed_chunked_body_gets_a_400_from_the_production_server(spawn):
    base, proc = spawn(workers=1)
    head = ["Content-Type: application/json", "Transfer-Encoding: chunked"]
    status, body = raw_post(base, "/api/frame", head, b"zz\r\n{}\r\n0\r\n\r\n")
    assert status == 400 and b"could not be read" in body
    with open(proc.log_path) as f:
        assert "Traceback" not in f.read()
