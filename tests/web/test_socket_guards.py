"""The socket's guards against clients that misbehave: each closes only that client's socket, with
a code and a reason, and the server keeps answering everyone else."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
import websocket

from tests.threads import serve_in_thread

OPEN = json.dumps({"v": 2, "type": "open", "panel": "outage"})


def ws_url(base: str) -> str:
    return base.replace("http", "ws") + "/ws"


def close_of(ws: websocket.WebSocket) -> tuple[int, str]:
    """Read until the server's close frame; return its code and reason."""
    while True:
        opcode, data = ws.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return int.from_bytes(data[:2], "big"), data[2:].decode()


def still_serves(base: str) -> None:
    ws = websocket.create_connection(ws_url(base), timeout=10)
    ws.send(OPEN)
    assert json.loads(ws.recv())["type"] == "view"
    ws.close()


def test_a_socket_that_never_speaks_is_closed(serve_app):
    base = serve_app(WS_HELLO_TIMEOUT=0.3)
    ws = websocket.create_connection(ws_url(base), timeout=10)
    code, reason = close_of(ws)
    assert code == 4408 and "no frame" in reason
    still_serves(base)


def test_too_many_frames_a_second_close_that_socket_only(serve_app, caplog):
    base = serve_app(WS_RATE=2, WS_BURST=5)
    calm = websocket.create_connection(ws_url(base), timeout=10)
    calm.send(OPEN)
    handle = json.loads(calm.recv())["handle"]
    noisy = websocket.create_connection(ws_url(base), timeout=10)
    for _ in range(10):
        noisy.send(OPEN)
    codes = []
    while not codes:
        opcode, data = noisy.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            codes.append((int.from_bytes(data[:2], "big"), data[2:].decode()))
    assert codes[0][0] == 1008 and "frames a second" in codes[0][1]
    assert [line for line in refusal_lines(caplog) if "1008" in line and "LESSON_WS_RATE" in line]
    calm.send(json.dumps({"v": 2, "type": "press", "handle": handle, "seq": 1, "button": "a-dies"}))
    assert json.loads(calm.recv())["steps"] == 1


def test_too_many_sockets_from_one_address(serve_app):
    base = serve_app(WS_MAX_PER_ADDRESS=2)
    held = [websocket.create_connection(ws_url(base), timeout=10) for _ in range(2)]
    for ws in held:
        ws.send(OPEN)
        ws.recv()
    extra = websocket.create_connection(ws_url(base), timeout=10)
    code, reason = close_of(extra)
    assert code == 1013 and "too many open connections" in reason
    held[0].close()
    assert json.loads(served_again(base, within=20))["type"] == "view"


def refusal_lines(caplog: pytest.LogCaptureFixture, having: str = "", within: float = 5.0) -> list[str]:
    """The socket module's warnings; with ``having``, waits (bounded) until one contains it: a close the
    socket library sends itself (1009) is logged just after it, on the server's thread."""
    deadline = time.monotonic() + within
    while True:
        ours = [r for r in caplog.records if r.name == "lesson.web.socket" and r.levelno == logging.WARNING]
        lines = [r.getMessage() for r in ours]
        if not having or any(having in line for line in lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.02)


def test_refusals_are_logged_once_a_minute_per_kind_with_a_count(serve_app, caplog):
    """An operator sees why learners are refused (here a class behind one address hitting the cap),
    and the setting to change; a client refused in a loop adds one line a minute, not one a try."""
    base = serve_app(WS_MAX_PER_ADDRESS=1)
    held = websocket.create_connection(ws_url(base), timeout=10)
    held.send(OPEN)
    held.recv()
    for _ in range(3):
        extra = websocket.create_connection(ws_url(base), timeout=10)
        assert close_of(extra)[0] == 1013
        extra.close()
    lines = refusal_lines(caplog)
    assert len(lines) == 1, lines
    assert "127.0.0.1" in lines[0] and "1013" in lines[0] and "LESSON_WS_MAX_PER_ADDRESS" in lines[0]
    held.close()


def test_a_refused_origin_is_logged_with_the_setting_to_change(serve_app, caplog):
    base = serve_app()
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(ws_url(base), timeout=10, origin="https://portal.example")
    assert refused.value.status_code == 403
    lines = refusal_lines(caplog)
    assert len(lines) == 1 and "https://portal.example" in lines[0] and "LESSON_EMBED_ORIGINS" in lines[0]


def test_the_refusal_log_counts_what_it_held_back():
    from lesson.web.socket import Refusals

    now = [0.0]
    refusals = Refusals(every=60, clock=lambda: now[0])
    with _warnings() as lines:
        refusals.note("rate", "first")
        for t in (1, 2, 30):
            now[0] = t
            refusals.note("rate", "again")
        refusals.note("too_big", "another kind")  # each kind has its own minute
        now[0] = 61
        refusals.note("rate", "later")
        now[0] = 200
        refusals.note("rate", "much later")
    assert lines == ["first", "another kind", "later (3 more like it in the last 61 s)", "much later"]


class _warnings:
    """The socket module's warnings, as the lines it logs."""

    def __enter__(self) -> list[str]:
        self.lines: list[str] = []
        self.handler = logging.Handler()
        self.handler.emit = lambda record: self.lines.append(record.getMessage())  # type: ignore[method-assign]
        logging.getLogger("lesson.web.socket").addHandler(self.handler)
        return self.lines

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("lesson.web.socket").removeHandler(self.handler)


def served_socket(base: str, within: float) -> tuple[websocket.WebSocket, bytes]:
    """A new socket and the answer to its open, once one is served. A slot is free again once a socket
    closes, but the server notices the close on its own thread, so a new socket may still be refused
    for a moment (how long depends on the machine's load)."""
    deadline = time.monotonic() + within
    while True:
        ws = websocket.create_connection(ws_url(base), timeout=10)
        ws.send(OPEN)
        opcode, data = ws.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_TEXT:
            return ws, data
        ws.close()
        assert time.monotonic() < deadline, f"still refused {within:g} s after a socket closed: {data!r}"
        time.sleep(0.05)


def served_again(base: str, within: float) -> bytes:
    ws, data = served_socket(base, within)
    ws.close()
    return data


def oversized_frames_close_with_1009_and_free_their_slot(base: str) -> None:
    """For a server allowing one socket per address and frames of 4 KiB."""
    for _ in range(3):
        # The slot the last round's socket held may not be free yet: served_socket waits for it.
        ws, _ = served_socket(base, within=5)
        # Far more than the limit: the close frame must still arrive, not a reset for the unread rest.
        ws.send("x" * 200_000)
        code, reason = close_of(ws)
        assert code == 1009 and reason
        ws.close()
        served_again(base, within=5)  # its handler let go of the address's one socket at once


def test_a_frame_over_the_socket_limit_closes_with_a_reason(serve_app, caplog):
    base = serve_app(WS_MAX_MESSAGE_BYTES=4096, WS_MAX_PER_ADDRESS=1)
    oversized_frames_close_with_1009_and_free_their_slot(base)
    assert [line for line in refusal_lines(caplog, "1009") if "1009" in line and "4096" in line]
    mid, _ = served_socket(base, within=5)  # the slot the last check's socket held may not be free yet
    mid.send(json.dumps({"v": 2, "type": "open", "panel": "outage", "pad": "x" * 3000}))
    assert json.loads(mid.recv())["code"] == "bad_frame"  # under the socket limit: an error frame


def test_the_production_server_closes_an_oversized_frame_with_1009_too(spawn):
    base, proc = spawn(workers=1, env={"LESSON_WS_MAX_MESSAGE_BYTES": "4096", "LESSON_WS_MAX_PER_ADDRESS": "1"})
    oversized_frames_close_with_1009_and_free_their_slot(base)
    # Said once in the server's error log, stamped like gunicorn's own lines.
    said = [line for line in Path(proc.log_path).read_text().splitlines() if "LESSON_WS_MAX_MESSAGE_BYTES" in line]
    assert len(said) == 1 and re.match(r"^\[\d{4}-\d\d-\d\d ", said[0]), said


def a_client_that_stops_reading(base: str) -> tuple[websocket.WebSocket, str]:
    """A socket with a small receive buffer and its playground open, and a frame whose answer is the
    whole view: the test sends it over and over and reads nothing more."""
    ws = websocket.create_connection(ws_url(base), timeout=10)
    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ws.send(OPEN)
    handle = json.loads(ws.recv())["handle"]
    return ws, json.dumps({"v": 2, "type": "open", "panel": "outage", "handle": handle})


def test_a_client_that_does_not_read_is_dropped_and_others_are_unaffected(serve_app, caplog):
    base = serve_app(WS_MAX_QUEUED=4, WS_SEND_TIMEOUT=1.0, WS_RATE=100_000, WS_BURST=100_000)
    ws, press = a_client_that_stops_reading(base)
    closed = threading.Event()

    def flood() -> None:
        # Until the server drops the socket: a fixed count could all fit in the kernel's buffers on a
        # busy machine before the server reads any of it. Bounded all the same (50 MB, 30 s).
        deadline = time.monotonic() + 30
        try:
            for _ in range(500_000):
                ws.send(press)
                if time.monotonic() > deadline:
                    return
        except (OSError, websocket.WebSocketException):
            closed.set()

    t = threading.Thread(target=flood, daemon=True)
    t.start()
    t.join(timeout=60)
    assert closed.is_set()  # the server closed the socket instead of buffering without bound
    said = refusal_lines(caplog, "LESSON_WS_")
    assert [line for line in said if "LESSON_WS_MAX_QUEUED" in line or "LESSON_WS_SEND_TIMEOUT" in line], said
    still_serves(base)


def test_a_send_blocked_past_the_send_timeout_drops_the_client(serve_app, caplog):
    # The frame queue's bound is out of reach here: only the send timeout can end this socket.
    base = serve_app(WS_MAX_QUEUED=1_000_000, WS_SEND_TIMEOUT=0.5, WS_RATE=100_000, WS_BURST=100_000)
    ws, reopen = a_client_that_stops_reading(base)
    dropped = False
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            ws.send(reopen)
            time.sleep(0.001)
    except (OSError, websocket.WebSocketException):
        dropped = True
    assert dropped
    said = refusal_lines(caplog, "LESSON_WS_SEND_TIMEOUT")
    assert [line for line in said if "LESSON_WS_SEND_TIMEOUT" in line and "dropped" in line], said
    still_serves(base)


def test_no_stray_bytes_after_a_close_and_no_traceback(serve_app, caplog):
    base = serve_app()
    host, port = base.removeprefix("http://").split(":")
    ws = websocket.create_connection(ws_url(base), timeout=10)
    ws.send(OPEN)
    ws.recv()
    ws.send_close()
    tail = b""
    ws.sock.settimeout(1)
    try:
        while chunk := ws.sock.recv(65536):
            tail += chunk
    except (TimeoutError, OSError):
        pass
    assert b"HTTP/1" not in tail
    assert not [r for r in caplog.records if r.exc_info]


def test_a_close_the_server_starts_leaves_nothing_behind(serve_app, caplog):
    """The client's answer to a close from the server (here: too many frames a second) is taken as the
    end of the socket, not read as a new HTTP request: no error in the log, no bytes after the close."""
    base = serve_app(WS_RATE=2, WS_BURST=3)
    for _ in range(3):
        ws = websocket.create_connection(ws_url(base), timeout=10)
        for _ in range(6):
            ws.send(OPEN)
        code, _ = close_of(ws)
        assert code == 1008
        ws.send_close()
        tail = b""
        ws.sock.settimeout(0.5)  # a stray answer would come at once
        try:
            while chunk := ws.sock.recv(65536):
                tail += chunk
        except (TimeoutError, OSError):
            pass
        ws.sock.close()
        assert b"HTTP/1" not in tail
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize(
    "drop, version, status",
    [
        (b"Sec-WebSocket-Key", b"13", 400),
        (b"Sec-WebSocket-Version", b"13", 400),
        # A version this server does not speak: 426 with the one it does (RFC 6455, 4.4).
        (None, b"8", 426),
    ],
)
def test_a_broken_handshake_gets_a_400_not_a_traceback(serve_app, caplog, drop, version, status):
    base = serve_app()
    host, port = base.removeprefix("http://").split(":")
    lines = [
        b"GET /ws HTTP/1.1",
        b"Host: " + host.encode(),
        b"Upgrade: websocket",
        b"Connection: Upgrade",
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        b"Sec-WebSocket-Version: " + version,
    ]
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"\r\n".join(line for line in lines if not drop or not line.startswith(drop)) + b"\r\n\r\n")
        head = sock.recv(4096).split(b"\r\n\r\n", 1)[0].split(b"\r\n")
    assert f" {status} ".encode() in head[0], head
    if status == 426:
        assert b"Sec-WebSocket-Version: 13" in head, head
    assert not [r for r in caplog.records if r.exc_info]
    still_serves(base)


@pytest.mark.parametrize("origin, allowed", [("https://evil.example", False), (None, True)])
def test_the_socket_accepts_only_its_own_origin(serve_app, origin, allowed):
    base = serve_app()
    headers = {"suppress_origin": True} if origin is None else {"origin": origin}
    if allowed:
        ws = websocket.create_connection(ws_url(base), timeout=10, **headers)
        ws.send(OPEN)
        assert json.loads(ws.recv())["type"] == "view"
    else:
        with pytest.raises(websocket.WebSocketBadStatusException) as err:
            websocket.create_connection(ws_url(base), timeout=10, **headers)
        assert err.value.status_code == 403


def test_an_embedding_origin_may_open_the_socket(serve_app):
    base = serve_app(EMBED_ORIGINS="https://portal.example")
    ws = websocket.create_connection(ws_url(base), timeout=10, origin="https://portal.example")
    ws.send(OPEN)
    assert json.loads(ws.recv())["type"] == "view"


def test_a_production_server_told_to_stop_closes_every_socket_with_going_away(spawn):
    """SIGTERM (a deploy, a restart): each open socket gets a close frame, 1001 with a reason, instead
    of the connection simply ending; the page reconnects either way, and the log says no more."""
    base, proc = spawn(workers=1)
    sockets = [websocket.create_connection(ws_url(base), timeout=10) for _ in range(2)]
    for ws in sockets:
        ws.send(OPEN)
        assert json.loads(ws.recv())["type"] == "view"
    os.kill(proc.pid, signal.SIGTERM)  # gunicorn's arbiter: it stops its workers gracefully
    for ws in sockets:
        code, reason = close_of(ws)
        assert code == 1001
        assert "restart" in reason
    assert proc.wait(timeout=30) == 0
    assert "Traceback" not in Path(proc.log_path).read_text()


def test_a_socket_opened_once_the_server_is_stopping_is_closed_with_going_away():
    """Between the signal and the worker's exit a socket may still open: it is closed at once, 1001."""
    from lesson.web import create_app
    from lesson.web.server import make_dev_server

    app = create_app({"SECRET_KEY": "t"})
    server = make_dev_server("127.0.0.1", 0, app)
    serve_in_thread(server)
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        before = websocket.create_connection(ws_url(base), timeout=10)
        before.send(OPEN)
        assert json.loads(before.recv())["type"] == "view"
        assert app.extensions["lesson.addresses"].going_away() == 1  # what SIGTERM calls under gunicorn
        code, reason = close_of(before)
        assert code == 1001 and "restart" in reason
        after = websocket.create_connection(ws_url(base), timeout=10)
        code, reason = close_of(after)
        assert code == 1001 and "restart" in reason
    finally:
        server.shutdown()
