"""A learning record store on 127.0.0.1 for the tests: it records each statement id once, as an LRS
does (a batch holding an id it has already is refused whole with 409, the strictest reading of
xAPI), and can be told to be down (503) or to refuse a response (400)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.threads import serve_in_thread


class FakeLrs:
    def __init__(self) -> None:
        self.down = False  # answer every POST with 503
        self.fail_next = 0  # answer this many POSTs with 503
        self.retry_after: str | None = None  # sent with each 503
        self.refuse_response: str | None = None  # 400 for a batch holding a statement with this response
        self.received: list[dict] = []  # every statement recorded, in the order recorded
        self.headers: list[dict[str, str]] = []
        self.attempts = 0
        self.conflicts = 0  # batches refused with 409: statements sent again
        self.hold: threading.Event | None = None  # record a batch, then answer only once this is set
        self.lock = threading.Lock()
        self.url = ""

    @property
    def ids(self) -> list[str]:
        with self.lock:
            return [s["id"] for s in self.received]

    def answer(self, path: str, body: object, headers: dict[str, str]) -> tuple[int, object]:
        with self.lock:
            self.attempts += 1
            self.headers.append(headers)
            batch = body if isinstance(body, list) else [body]
            known = {s["id"] for s in self.received}
            if path != "/xapi/statements":
                return 404, {"error": "no such resource"}
            if self.down or self.fail_next:
                self.fail_next = max(0, self.fail_next - 1)
                return 503, {"error": "down"}
            if self.refuse_response and any(s.get("result", {}).get("response") == self.refuse_response for s in batch):
                return 400, {"error": "statement refused"}
            if any(s.get("id") in known for s in batch):
                self.conflicts += 1
                return 409, {"error": "statement id already stored"}
            self.received.extend(batch)
            return 200, [s.get("id") for s in batch]


@pytest.fixture
def store() -> Iterator[FakeLrs]:
    state = FakeLrs()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            code, answer = state.answer(self.path, body, {k.lower(): v for k, v in self.headers.items()})
            if code == 200 and state.hold is not None:
                state.hold.wait(30)  # recorded, but the sender has no answer yet (a crash may come first)
            payload = json.dumps(answer).encode()
            self.send_response(code)
            if code == 503 and state.retry_after:
                self.send_header("Retry-After", state.retry_after)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_thread(server)
    state.url = f"http://127.0.0.1:{server.server_port}/xapi"
    yield state
    server.shutdown()
    server.server_close()
