"""The LRS forwarder against a tiny store on 127.0.0.1 that fails, then recovers."""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lesson import lrs, xapi

LESSON = "https://lab.example/lessons/hot-swapping"
ACTOR = xapi.anonymous_actor("https://lab.example", "visit-1")


class Store:
    """What the fake store saw, and how it should answer the next requests."""

    def __init__(self) -> None:
        self.fail_next = 0  # answer this many POSTs with 503
        self.refuse_response = None  # a 400 for any batch holding a statement with this response
        self.received: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.attempts = 0
        self.lock = threading.Lock()


@pytest.fixture
def store() -> Iterator[tuple[Store, str]]:
    state = Store()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.attempts += 1
                state.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path != "/xapi/statements":
                    code = 404
                elif state.fail_next:
                    state.fail_next -= 1
                    code = 503
                elif state.refuse_response and any(
                    s.get("result", {}).get("response") == state.refuse_response for s in body
                ):
                    code = 400
                else:
                    state.received.extend(body)
                    code = 200
            payload = json.dumps([s.get("id") for s in body] if code == 200 else {"error": code}).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield state, f"http://127.0.0.1:{server.server_port}/xapi"
    server.shutdown()
    server.server_close()


def config(endpoint: str, **overrides) -> lrs.LrsConfig:
    values = dict(username="lesson", password="s3cret", retry_initial=0.01, retry_max=0.05, timeout=5.0)
    return lrs.LrsConfig(endpoint=endpoint, **{**values, **overrides})


def answers(n: int) -> list[dict]:
    return [xapi.answered(ACTOR, LESSON, f"q{i}", "b", True).to_json() for i in range(n)]


def test_off_unless_an_endpoint_is_configured() -> None:
    assert lrs.from_settings({}) is None
    assert lrs.from_settings({"LRS_ENDPOINT": ""}) is None
    forwarder = lrs.from_settings(
        {
            "LRS_ENDPOINT": "https://lrs.example/xapi",
            "LRS_USERNAME": "u",
            "LRS_PASSWORD": "hunter2",
            "LRS_QUEUE_SIZE": "7",
        }
    )
    assert forwarder is not None and forwarder.config.queue_size == 7
    assert "hunter2" not in repr(forwarder.config)  # the password stays out of logs


def test_statements_arrive_in_order_after_the_store_recovers(store: tuple[Store, str]) -> None:
    state, endpoint = store
    state.fail_next = 3
    forwarder = lrs.LrsForwarder(config(endpoint, batch_size=2))
    sent = answers(5)
    for statement in sent:
        assert forwarder.submit(statement) is True
    forwarder.start()
    try:
        assert forwarder.flush(timeout=20)
    finally:
        forwarder.stop()
    assert state.received == sent  # in order, each once
    assert forwarder.stats.sent == 5
    assert forwarder.stats.failed_attempts == 3
    auth = "Basic " + base64.b64encode(b"lesson:s3cret").decode()
    assert all(h["authorization"] == auth for h in state.headers)
    assert all(h["x-experience-api-version"] == "1.0.3" for h in state.headers)


def test_a_statement_the_store_refuses_is_dropped_and_the_rest_go_through(store: tuple[Store, str]) -> None:
    state, endpoint = store
    state.refuse_response = "bad"
    forwarder = lrs.LrsForwarder(config(endpoint, batch_size=10))
    good = answers(3)
    bad = xapi.answered(ACTOR, LESSON, "q9", "bad", False).to_json()
    for statement in [good[0], bad, good[1], good[2]]:
        forwarder.submit(statement)
    forwarder.start()
    try:
        assert forwarder.flush(timeout=20)
    finally:
        forwarder.stop()
    assert state.received == good
    assert forwarder.stats.rejected == 1 and forwarder.stats.sent == 3


def test_a_full_queue_drops_new_statements_instead_of_waiting() -> None:
    # Nothing listens on this port, and the thread is not started: the queue can only fill.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    forwarder = lrs.LrsForwarder(config(f"http://127.0.0.1:{port}/xapi", queue_size=3))
    results = [forwarder.submit(s) for s in answers(5)]
    assert results == [True, True, True, False, False]
    assert forwarder.stats.dropped_full == 2
    assert forwarder.pending == 3


def test_stop_ends_the_thread_while_the_store_is_down() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    forwarder = lrs.LrsForwarder(config(f"http://127.0.0.1:{port}/xapi", retry_initial=30, retry_max=30))
    forwarder.submit(answers(1)[0])
    forwarder.start()
    assert not forwarder.flush(timeout=0.5)  # still undelivered: the store is down
    forwarder.stop(timeout=10)
    assert forwarder._thread is not None and not forwarder._thread.is_alive()
    assert forwarder.stats.failed_attempts >= 1
    assert forwarder.submit(answers(1)[0]) is False  # stopped: nothing more is accepted


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"LRS_ENDPOINT": "ftp://lrs.example"}, "http(s) URL"),
        ({"LRS_ENDPOINT": "https://u:p@lrs.example/xapi"}, "must not carry credentials"),
        ({"LRS_ENDPOINT": "https://lrs.example/xapi", "LRS_USERNAME": "u"}, "both LRS_USERNAME and LRS_PASSWORD"),
        ({"LRS_ENDPOINT": "https://lrs.example/xapi", "LRS_QUEUE_SIZE": 0}, "at least 1"),
    ],
)
def test_bad_settings_are_refused(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        lrs.from_settings(settings)
