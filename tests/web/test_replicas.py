"""Restarts and replicas, with real server processes: a playground lives in the page, so a SIGKILL
of every server process, a second worker, or a round-robin balancer in front of two servers loses
nothing and applies nothing twice. Bounded: a few dozen pages, loopback only."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from tests.web.pageclient import PageClient, http_sender, ws_sender
from tests.web.rrproxy import RoundRobinProxy

BUTTONS = ["deploy", "a-dies", "turn", "a-back", "add-c"]


def press_round(pages: list[PageClient], n: int) -> None:
    for i, page in enumerate(pages):
        button = BUTTONS[(i + n) % len(BUTTONS)]
        before = page.log["seq"]
        answer = page.do("press", button=button)
        assert answer["type"] == "view" and answer["seq"] == before + 1, answer
        page.pressed.append(button)


def check(pages: list[PageClient]) -> None:
    for page in pages:
        assert page.last["steps"] == len(page.pressed)
        assert [s["step"] for s in page.history] == list(range(len(page.pressed) + 1))
        fresh = PageClient(page.send)
        fresh.handle, fresh.log = page.handle, page.log
        assert fresh.open()["view"]["log"] == page.history  # the server's run matches the page's


def quiet(*procs) -> None:
    """Disconnects, reconnects and need_logs are ordinary: no traceback in any server's log."""
    for proc in procs:
        with open(proc.log_path) as f:
            text = f.read()
        assert "Traceback" not in text, text[-2000:]


def make_pages(send, n: int) -> list[PageClient]:
    pages = []
    for _ in range(n):
        page = PageClient(send)
        page.pressed = []
        page.open()
        pages.append(page)
    return pages


def test_sigkill_of_every_server_process_then_a_restart_loses_nothing(spawn):
    base, proc = spawn(workers=2)
    port = int(base.rsplit(":", 1)[1])
    pages = make_pages(http_sender(base), 30)
    press_round(pages, 0)
    press_round(pages, 1)
    os.killpg(proc.pid, signal.SIGKILL)  # the master and both workers, with no chance to save anything
    proc.wait(timeout=10)
    _, restarted = spawn(port=port, workers=2)
    before = [p.need_logs for p in pages]
    press_round(pages, 2)
    # Every page's next press found a server that knew nothing, and handed its log over with it.
    assert all(p.need_logs == n + 1 for p, n in zip(pages, before, strict=True))
    press_round(pages, 3)
    check(pages)
    quiet(restarted)


def test_two_workers_share_nothing_and_every_playground_continues(spawn):
    base, proc = spawn(workers=2)

    def worker(_: int) -> int:
        with urllib.request.urlopen(urllib.request.Request(base + "/healthz", headers={"Connection": "close"})) as r:
            return json.loads(r.read())["worker"]

    workers: set[int] = set()
    # Bursts of parallel connections (an idle worker may otherwise take them all) until both have answered:
    # the server answers /healthz once one worker is up, and on a busy machine the second boots later.
    deadline = time.monotonic() + 60
    with ThreadPoolExecutor(16) as pool:
        while len(workers) < 2 and time.monotonic() < deadline:
            workers |= set(pool.map(worker, range(32)))
    assert len(workers) == 2
    pages = make_pages(http_sender(base), 12)
    for n in range(6):
        press_round(pages, n)
    check(pages)
    quiet(proc)


def test_two_servers_behind_a_round_robin_balancer(spawn):
    (a, pa), (b, pb) = spawn(), spawn()
    backends = [("127.0.0.1", int(u.rsplit(":", 1)[1])) for u in (a, b)]
    proxy = RoundRobinProxy(backends)
    try:
        http_pages = make_pages(http_sender(proxy.base), 3)  # 7 pages: an odd stride alternates servers
        ws_pages = make_pages(ws_sender(proxy.base), 4)
        pages = http_pages + ws_pages
        for n in range(5):
            press_round(pages, n)
        check(pages)
        # Frames alternated between the two servers, so pages often had to hand their logs over.
        assert sum(p.need_logs for p in pages) >= 3
        assert min(proxy.counts.values()) >= 20
        quiet(pa, pb)
    finally:
        proxy.close()
