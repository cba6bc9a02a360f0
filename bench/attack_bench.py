"""Attack bench: what a hostile client can make the production command spend, each against a baseline
measured in the same run. Loopback only; bounded in clients, bytes and seconds; every process it
starts is stopped, and every socket closed, when it ends (or fails).

It starts `lesson serve --workers W` (gunicorn, gthread; the settings a class gets, except a per-address
socket cap high enough for every client here, all on 127.0.0.1), then, from this process:

1. ``deflate``: 100 sockets each send one text frame compressed 1,000 to 1 (a 20 MB text in about
   20 KB, RSV1 set, as permessage-deflate sends it): server RSS before, at its worst and 5 s after.
   Baseline: 100 sockets each sending 20 KB plain, the same bytes on the wire.
2. ``slow``: 1,000 connections send a request's headers one byte every 2 s, and /healthz is asked
   every 0.2 s meanwhile: its slowest answer. Baseline: /healthz before the slow connections opened.
   With ``--proxy``, also through nginx running docs/classroom.md's block (when nginx is installed),
   and with ``--threads 200`` the server has fewer threads than there are slow connections.
3. ``replay``: eight clients replay 500-event logs as fast as the server lets them (four open
   sockets with the log, four post it as a task for grading), while one learner presses every
   0.1 s: the learner's p90 press. Baseline: the same learner's presses with no one replaying.

    .venv/bin/python bench/attack_bench.py [--parts deflate,slow,replay] [--workers 2]

CPU-heavy for a minute or two: run it on a quiet machine, and not often.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import signal
import statistics
import sys
import time
import urllib.error
import urllib.request
import zlib

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from load_bench import Learner, pct, rss_mb, start_server  # noqa: E402

LOG = {"era": "modern", "events": [["p", "turn"]] * 500, "seq": 500}
TASK_LOG = "outage:modern::" + ",".join(["turn"] * 500)


# --- 1. compressed frames --------------------------------------------------------------------


def _frame(payload: bytes, rsv1: bool) -> bytes:
    """A client's text frame, masked with a zero key (legal, and the payload stays as it is)."""
    head = bytes([0xC1 if rsv1 else 0x81])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


async def _send_frame(port: int, payload: bytes, rsv1: bool, hold: float) -> str:
    """Open a socket offering permessage-deflate, send one frame, read what comes back for ``hold`` s."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        deflate = b"permessage-deflate" in head.lower()
        writer.write(_frame(payload, rsv1))
        await writer.drain()
        with contextlib.suppress(asyncio.TimeoutError, OSError, asyncio.IncompleteReadError):
            data = await asyncio.wait_for(reader.read(4096), hold)
            if len(data) >= 4 and data[0] & 0x0F == 0x8:
                return f"closed {int.from_bytes(data[2:4], 'big')} (deflate {'on' if deflate else 'off'})"
        return f"answered, not closed (deflate {'on' if deflate else 'off'})"
    except OSError as exc:
        return f"connection error {type(exc).__name__}"
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def deflate_figure(port: int, proc, n: int = 100) -> None:
    text = b"x" * (20 << 20)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = (comp.compress(text) + comp.flush(zlib.Z_SYNC_FLUSH))[:-4]  # as permessage-deflate sends it
    plain = b"x" * len(bomb)
    for name, payload, rsv1 in (("plain", plain, False), ("compressed", bomb, True)):
        time.sleep(1)
        before = rss_mb(proc)
        peak = [before]

        async def run(payload: bytes = payload, rsv1: bool = rsv1, peak: list[float] = peak) -> list[str]:
            async def sample() -> None:
                while True:
                    peak.append(rss_mb(proc))
                    await asyncio.sleep(0.1)

            sampler = asyncio.create_task(sample())
            try:
                return await asyncio.gather(*(_send_frame(port, payload, rsv1, 5) for _ in range(n)))
            finally:
                sampler.cancel()

        outcomes = asyncio.run(run())
        time.sleep(5)
        after = rss_mb(proc)
        kinds = {o: outcomes.count(o) for o in sorted(set(outcomes))}
        print(
            f"deflate: {n} sockets x one {len(payload) / 1e3:.1f} KB {name} frame"
            f"{' (20 MB inflated)' if rsv1 else ''}: RSS {before:.0f} MB, worst {max(peak):.0f} MB "
            f"(+{max(peak) - before:.0f} MB), 5 s after {after:.0f} MB (+{after - before:.0f} MB); {kinds}"
        )


# --- 2. slow request headers -----------------------------------------------------------------


def _healthz(base: str) -> float:
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=10) as resp:
            resp.read()
    except OSError:
        return 10.0
    return time.perf_counter() - t


async def _slow_client(port: int, stop: asyncio.Event, opened: list[int]) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return
    opened.append(1)
    try:
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        while not stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), 2)
            writer.write(b"a")
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


def slow_figure(base: str, port: int, n: int = 1000, seconds: float = 20, label: str = "") -> None:
    calm = [_healthz(base) for _ in range(20)]

    async def run() -> tuple[list[float], int]:
        stop, opened = asyncio.Event(), []
        clients = [asyncio.create_task(_slow_client(port, stop, opened)) for _ in range(n)]
        await asyncio.sleep(3)  # every connection open and its first bytes sent
        times = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            times.append(await asyncio.to_thread(_healthz, base))
            await asyncio.sleep(0.2)
        stop.set()
        await asyncio.gather(*clients, return_exceptions=True)
        return times, len(opened)

    times, opened = asyncio.run(run())
    print(
        f"slow headers{label}: {opened} connections sending a header byte every 2 s for {seconds:g} s: /healthz "
        f"{len(times)} times, median {statistics.median(times) * 1e3:.1f} ms, slowest {max(times) * 1e3:.1f} ms; "
        f"before them: median {statistics.median(calm) * 1e3:.1f} ms, slowest {max(calm) * 1e3:.1f} ms"
    )


# --- 3. replays ------------------------------------------------------------------------------


async def _learner(ws_base: str, stop: asyncio.Event, pace: float) -> list[float]:
    times: list[float] = []
    async with websockets.connect(ws_base + "/ws", compression=None, max_size=None) as ws:
        learner = Learner()
        await ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage"}))
        learner.handle = json.loads(await ws.recv())["handle"]
        while not stop.is_set():
            t = time.perf_counter()
            await ws.send(learner.press())
            answer = json.loads(await ws.recv())
            times.append(time.perf_counter() - t)
            assert answer.get("type") == "view", answer
            await asyncio.sleep(pace)
    return times


async def _socket_replayer(ws_base: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    frame = json.dumps({"v": 2, "type": "open", "panel": "outage", "log": LOG})
    while not stop.is_set():
        try:
            async with websockets.connect(ws_base + "/ws", compression=None, max_size=None) as ws:
                while not stop.is_set():
                    await ws.send(frame)
                    kind = json.loads(await ws.recv()).get("type")
                    counts[kind] = counts.get(kind, 0) + 1
        except (OSError, websockets.WebSocketException):
            counts["closed"] = counts.get("closed", 0) + 1


def _post_task(base: str) -> int:
    body = json.dumps({"log": TASK_LOG}).encode()
    req = urllib.request.Request(base + "/api/quiz/an-outage/host-error", body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


async def _task_replayer(base: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    while not stop.is_set():
        status = await asyncio.to_thread(_post_task, base)
        counts[str(status)] = counts.get(str(status), 0) + 1
        if status == 429:
            await asyncio.sleep(1)  # its Retry-After


def replay_figure(base: str, ws_base: str, seconds: float = 20, pace: float = 0.1) -> None:
    async def run(attack: bool) -> tuple[list[float], dict[str, int], dict[str, int]]:
        stop = asyncio.Event()
        sock_counts: dict[str, int] = {}
        task_counts: dict[str, int] = {}
        attackers = []
        if attack:
            attackers += [asyncio.create_task(_socket_replayer(ws_base, stop, sock_counts)) for _ in range(4)]
            attackers += [asyncio.create_task(_task_replayer(base, stop, task_counts)) for _ in range(4)]
            await asyncio.sleep(1)
        learner = asyncio.create_task(_learner(ws_base, stop, pace))
        await asyncio.sleep(seconds)
        stop.set()
        times = await learner
        await asyncio.gather(*attackers, return_exceptions=True)
        return times, sock_counts, task_counts

    calm, _, _ = asyncio.run(run(False))
    time.sleep(6)  # the address's replay budget refills
    times, sock_counts, task_counts = asyncio.run(run(True))
    print(
        f"replays: 8 clients replaying 500-event logs for {seconds:g} s (4 sockets: {sock_counts}; "
        f"4 task posters: {task_counts}): another learner's press every {pace:g} s, {len(times)} presses, "
        f"p50 {pct(times, 0.5):.2f} ms, p90 {pct(times, 0.9):.2f} ms, max {max(times) * 1e3:.1f} ms; "
        f"with no one replaying: p50 {pct(calm, 0.5):.2f} ms, p90 {pct(calm, 0.9):.2f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1100)
    ap.add_argument("--parts", default="deflate,slow,replay", help="which of deflate,slow,replay to run")
    ap.add_argument("--proxy", action="store_true", help="slow: also through nginx, as docs/classroom.md sets it")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    # A class's settings, but for the per-address socket cap (every client here is 127.0.0.1): the
    # per-socket rate the load bench lifts for its back-to-back presses is kept.
    proc, base = start_server(args.workers, args.threads, {"LESSON_WS_RATE": "20", "LESSON_WS_BURST": "40"})
    port = int(base.rsplit(":", 1)[1])
    try:
        print(f"server: lesson serve --workers {args.workers} --threads {args.threads} (pid {proc.pid})")
        if "deflate" in parts:
            deflate_figure(port, proc)
        if "slow" in parts:
            slow_figure(base, port)
            if args.proxy:
                import tempfile
                from pathlib import Path

                from tests.web.test_proxy import nginx_in_front

                time.sleep(12)  # gunicorn lets go of the last run's connections
                with tempfile.TemporaryDirectory() as tmp, nginx_in_front(Path(tmp), port, 10) as front:
                    slow_figure(front, int(front.rsplit(":", 1)[1]), label=" through nginx (docs/classroom.md)")
        if "replay" in parts:
            replay_figure(base, base.replace("http", "ws"))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


if __name__ == "__main__":
    main()
