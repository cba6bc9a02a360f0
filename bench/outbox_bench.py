"""The outbox's two figures, each against a baseline measured in the same run.

send: statements a second the outbox's sender delivers to a record store on 127.0.0.1 (its own
process, answering 200 at once), SQLite and Redis, against the same statements POSTed straight to
the same store in the same batches by the same client code (no outbox). Also what a put costs the
request that makes it (one batch of 20, as the page sends).

press: a learner's press round trip over one WebSocket to ``lesson serve --workers 1`` (the sender
shares the learner's process) while 1,000 statements wait in the outbox for a store that answers
503 (the sender retrying all along), against the same presses with the outbox empty, in alternating
blocks.

    .venv/bin/python bench/outbox_bench.py [--statements 5000] [--presses 200] [--parts send,press]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.portal import lrs, outbox  # noqa: E402
from tests.statements import anonymous_actor, answered  # noqa: E402 (statements as the page builds them)

STORE = r"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    code = int(sys.argv[2])
    def log_message(self, *a):
        pass
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(self.code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"[]")

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args[0]} exited")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


class Procs:
    """Every process the bench starts, each in its own group, killed at the end whatever happens."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []

    def start(self, cmd: list[str], **kw) -> subprocess.Popen:
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, **kw)
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def close(self) -> None:
        for proc in self.procs:
            self.kill(proc)


def store(procs: Procs, code: int) -> str:
    port = free_port()
    wait_port(port, procs.start([sys.executable, "-c", STORE, str(port), str(code)]))
    return f"http://127.0.0.1:{port}/xapi"


def redis_url(procs: Procs, folder: str) -> str | None:
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    port = free_port()
    cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", folder, "--save", "", "--appendonly", "yes"]
    wait_port(port, procs.start(cmd))
    return f"redis://127.0.0.1:{port}/0"


def statements(n: int) -> list[dict]:
    actor = anonymous_actor("https://lab.example", "bench")
    return [answered(actor, "https://lab.example/lessons/x", f"q{i % 9}", "b", True).to_json() for i in range(n)]


def send_part(procs: Procs, n: int, folder: str) -> None:
    endpoint = store(procs, 200)
    config = lrs.LrsConfig(endpoint=endpoint)
    sent = statements(n)
    t0 = time.perf_counter()
    for i in range(0, n, config.batch_size):
        assert lrs.post_statements(config, sent[i : i + config.batch_size]).status == "delivered"
    direct = n / (time.perf_counter() - t0)
    print(f"send: {n} statements POSTed straight to the store, batches of {config.batch_size}: {direct:,.0f}/s")
    urls = {"sqlite": f"sqlite:///{folder}/bench.sqlite3"}
    redis = redis_url(procs, folder)
    if redis:
        urls["redis"] = redis
    else:
        print("send: no redis-server: the Redis outbox is not measured")
    for name, url in urls.items():
        box = outbox.from_settings({"OUTBOX_URL": url, "OUTBOX_MAX_ITEMS": n + 1}, folder)
        forwarder = lrs.from_settings({"LRS_ENDPOINT": endpoint}, box)
        assert forwarder is not None
        puts = []
        for i in range(0, n, 20):
            t = time.perf_counter()
            assert forwarder.submit_many(sent[i : i + 20]) == len(sent[i : i + 20])
            puts.append(time.perf_counter() - t)
        t0 = time.perf_counter()
        while box.run_once() == 0 or box.stats()["depth"]:
            pass
        rate = n / (time.perf_counter() - t0)
        assert box.stats()["delivered"] == n
        print(
            f"send: {name} outbox, {n} statements: {rate:,.0f}/s delivered, {rate / direct:.2f}x straight POSTs; "
            f"a put of 20 statements: median {statistics.median(puts) * 1000:.2f} ms, "
            f"p90 {statistics.quantiles(puts, n=10)[-1] * 1000:.2f} ms"
        )
        box.store.close()


def press_part(procs: Procs, presses: int, folder: str, rounds: int) -> None:
    import websocket

    endpoint = store(procs, 503)  # down: the statements stay, the sender keeps trying
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "LESSON_LRS_ENDPOINT": endpoint,
        "LESSON_OUTBOX_URL": f"sqlite:///{folder}/press.sqlite3",
        "LESSON_OUTBOX_RETRY_INITIAL": "0.05",
        "LESSON_OUTBOX_RETRY_MAX": "0.2",
    }
    cmd = [sys.executable, "-m", "lesson.cli", "serve", "--port", str(port), "--workers", "1", "--threads", "64"]
    server = procs.start(cmd, env=env, stderr=subprocess.DEVNULL)
    wait_port(port, server)
    box = outbox.from_settings({"OUTBOX_URL": env["LESSON_OUTBOX_URL"]}, folder)  # to empty it between blocks

    def post(body: object) -> dict:
        req = urllib.request.Request(
            base + "/api/xapi", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def depth() -> int:
        with urllib.request.urlopen(base + "/healthz", timeout=30) as resp:
            return json.loads(resp.read())["outbox"]["depth"]

    ws = websocket.create_connection(base.replace("http", "ws") + "/ws", timeout=30)
    frame_id = 0

    def send(frame: dict) -> dict:
        nonlocal frame_id
        frame_id += 1
        ws.send(json.dumps({"v": 2, "id": frame_id, **frame}))
        return json.loads(ws.recv())

    answer = send({"type": "open", "panel": "outage"})
    handle, seq = answer["handle"], answer["seq"]
    buttons = ["call-a", "a-dies", "turn", "a-back", "turn"]

    def block() -> list[float]:
        nonlocal seq
        times = []
        for i in range(presses):
            seq += 1
            if i % 50 == 0:
                send({"type": "reset", "handle": handle, "seq": seq})
                seq += 1
            t = time.perf_counter()
            answer = send({"type": "press", "handle": handle, "seq": seq, "button": buttons[i % len(buttons)]})
            times.append(time.perf_counter() - t)
            assert answer["type"] == "view", answer
            time.sleep(0.06)  # under the socket's rate limit (20 frames a second)
        return times

    results: dict[str, list[float]] = {"empty": [], "queued": []}
    empties: list[list[float]] = []
    try:
        post(statements(1)[0])  # the first request starts the sender
        for _ in range(rounds):
            box.store.remove([i.id for i in box.store.pending(10_000)], delivered=False)
            assert depth() == 0
            empties.append(block())
            results["empty"] += empties[-1]
            for _ in range(0, 1000, 20):
                assert post(statements(20))["queued"] == 20
            assert depth() == 1000
            results["queued"] += block()
    finally:
        ws.close()
    med = {k: statistics.median(v) * 1000 for k, v in results.items()}
    p90 = {k: statistics.quantiles(v, n=10)[-1] * 1000 for k, v in results.items()}
    print(
        f"press: {len(results['queued'])} presses over /ws with 1,000 statements queued (store down, sender retrying): "
        f"median {med['queued']:.3f} ms, p90 {p90['queued']:.3f} ms; outbox empty: median {med['empty']:.3f} ms, "
        f"p90 {p90['empty']:.3f} ms; {med['queued'] / med['empty']:.2f}x"
    )
    # The noise: the empty outbox's blocks of the second half against those of the first.
    half = len(empties) // 2
    first = statistics.median([t for b in empties[:half] for t in b])
    second = statistics.median([t for b in empties[half:] for t in b])
    print(f"press: noise, the empty outbox's later blocks against its earlier ones: {second / first:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", type=int, default=5000)
    ap.add_argument("--presses", type=int, default=100, help="presses per block")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of two blocks: outbox empty, 1,000 queued")
    ap.add_argument("--parts", default="send,press")
    args = ap.parse_args()
    procs = Procs()
    try:
        with tempfile.TemporaryDirectory(prefix="outbox-bench-") as folder:
            if "send" in args.parts:
                send_part(procs, args.statements, folder)
            if "press" in args.parts:
                press_part(procs, args.presses, folder, args.rounds)
    finally:
        procs.close()


if __name__ == "__main__":
    main()
