"""Load bench: the production command under a class of learners, against a bare echo on the same
stack in the same run. Loopback only; bounded in learners and seconds.

It starts `lesson serve --workers W` (gunicorn, gthread) with the bench echo route switched on,
then, from this process (the client is never the server's process), measures:

1. one learner pressing every 2 s, as in class (``--pace 0``: back to back): median press round trip
   vs a bare echo whose answers are each as long as the press's they are paired with, sent at the
   same pace in the same minutes;
2. N learners (default 1,000), each pressing every 2 s: p50/p99/max and errors; then N echo
   clients doing the same, for the baseline;
3. server memory per stored playground (RSS of all server processes, before and after storing
   a few thousand playgrounds, and the slope over the last two thirds of them);
4. a client that sends presses and never reads: server memory before, at its worst, and after.

The client runs in this process, on the same two cores as the server, and does not offer
permessage-deflate, except with ``--deflate``, where the one learner's socket and its echo's both
offer it (the server declines it: docs/classroom.md says why).

    .venv/bin/python bench/load_bench.py [--learners 1000] [--seconds 30] [--workers 2] [--pace 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

import psutil
import websockets

# A round every press of which changes the playground: a press the simulation refuses (C added
# twice, a deploy with none left) does less work than a real one and would flatter the figures.
# Only a learner's first press can be refused (A is back when A was never down).
BUTTONS = ["call-a", "a-dies", "turn", "a-back", "turn"]


def connect(url: str, deflate: bool = False, **kw):
    """A client socket, by default without permessage-deflate: the client shares the server's two
    cores, and compressing on both sides would measure the client as much as the server."""
    return websockets.connect(url, compression="deflate" if deflate else None, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(workers: int, threads: int, settings: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """``settings`` (``LESSON_*``) go over the bench's own."""
    port = free_port()
    env = {
        **os.environ,
        "LESSON_BENCH_ECHO": "true",
        "LESSON_WS_MAX_PER_ADDRESS": "100000",  # every learner comes from 127.0.0.1 here
        "LESSON_WS_HELLO_TIMEOUT": "120",
        # The one-learner figure presses back to back; the per-socket rate limit would stop it.
        "LESSON_WS_RATE": "100000",
        "LESSON_WS_BURST": "100000",
        # Room for every playground the memory figure stores (about 90 KB each by the cache's own
        # estimate), in a worker that gets most of them: the figure must not be cut by evictions.
        "LESSON_CACHE_BYTES": str(2 << 30),
        **(settings or {}),
    }
    cmd = [sys.executable, "-m", "lesson.cli", "serve", "--port", str(port)]
    cmd += ["--workers", str(workers), "--threads", str(threads)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2):
                return proc, base
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start")


def rss_mb(proc: subprocess.Popen) -> float:
    root = psutil.Process(proc.pid)
    procs = [root, *root.children(recursive=True)]
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += p.memory_info().rss
    return total / 1e6


def cpu_seconds(proc: subprocess.Popen) -> float:
    """The CPU time (user and system) all the server's processes have used so far."""
    root = psutil.Process(proc.pid)
    total = 0.0
    for p in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = p.cpu_times()
            total += times.user + times.system
    return total


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


async def open_playground(ws) -> dict:
    await ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage"}))
    return json.loads(await ws.recv())


class Learner:
    def __init__(self) -> None:
        self.handle = ""
        self.seq = 0
        self.n = random.randrange(len(BUTTONS))

    def press(self) -> str:
        self.n += 1
        if self.seq >= 400:  # stay under the 500-step limit in long runs
            self.seq += 1
            return json.dumps({"v": 2, "type": "reset", "handle": self.handle, "seq": self.seq})
        self.seq += 1
        button = BUTTONS[self.n % len(BUTTONS)]
        return json.dumps({"v": 2, "type": "press", "handle": self.handle, "seq": self.seq, "button": button})


async def answer_size(ws_base: str) -> int:
    """The median size of a press's answer over two rounds of the buttons (untimed): the echo's size."""
    async with connect(ws_base + "/ws", max_size=None) as ws:
        learner = Learner()
        learner.handle = (await open_playground(ws))["handle"]
        sizes = []
        for _ in range(2 * len(BUTTONS)):
            await ws.send(learner.press())
            sizes.append(len(await ws.recv()))
    return int(statistics.median(sizes))


async def one_learner(
    ws_base: str, presses: int, pace: float, deflate: bool = False
) -> tuple[list[float], list[float], list[int]]:
    """One learner's press round trips and a bare echo's, the same number of each, and the sizes.

    Each echo answer is as long as the answer to the press it is paired with (its frame names that
    size): the two medians compare the same bytes moved, the press's work apart. With ``pace`` > 0
    the learner presses every ``pace`` seconds, as a class does, and the echo client sends half a
    period later: each socket, and the machine, is as idle between frames as in class, and both
    figures come from the same minutes. With ``pace`` 0 both go back to back (the presses first,
    then the echoes)."""
    async with (
        connect(ws_base + "/ws", deflate, max_size=None) as ws,
        connect(f"{ws_base}/bench/echo", deflate, max_size=None) as echo_ws,
    ):
        learner = Learner()
        learner.handle = (await open_playground(ws))["handle"]
        times: list[float] = []
        echo: list[float] = []
        sizes: list[int] = []

        async def round_trip(sock, frame: str, into: list[float]) -> int:
            t0 = time.perf_counter()
            await sock.send(frame)
            answer = await sock.recv()
            into.append(time.perf_counter() - t0)
            return len(answer)

        if pace <= 0:
            for _ in range(presses):
                sizes.append(await round_trip(ws, learner.press(), times))
            for size in sizes:
                await round_trip(echo_ws, str(size), echo)
            return times, echo, sizes
        for _ in range(presses):
            await asyncio.sleep(pace / 2)
            sizes.append(await round_trip(ws, learner.press(), times))
            await asyncio.sleep(pace / 2)
            await round_trip(echo_ws, str(sizes[-1]), echo)
    return times, echo, sizes


async def crowd(
    url: str, n: int, seconds: float, playground: bool, proc: subprocess.Popen
) -> tuple[list[float], int, int, float]:
    """n clients, each sending a frame every 2 s for ``seconds``; latencies, errors, connections, and the
    server's CPU time per frame while they sent (their connecting and opening left out)."""
    latencies: list[float] = []
    errors = 0
    connected = 0
    start_at = time.monotonic() + 2 + n / 400  # connect everyone first, then start pressing together
    cpu_at_start: list[float] = []

    async def mark_start() -> None:
        await asyncio.sleep(max(0, start_at - time.monotonic()))
        cpu_at_start.append(cpu_seconds(proc))

    async def client(i: int) -> None:
        nonlocal errors, connected
        try:
            async with connect(url, max_size=None, open_timeout=60, ping_interval=None) as ws:
                connected += 1
                learner = Learner()
                if playground:
                    opened = await open_playground(ws)
                    learner.handle = opened["handle"]
                await asyncio.sleep(max(0, start_at - time.monotonic()) + random.random() * 2)
                end = start_at + seconds
                while time.monotonic() < end:
                    t0 = time.perf_counter()
                    await ws.send(learner.press())
                    answer = await ws.recv()
                    latencies.append(time.perf_counter() - t0)
                    if playground and '"type":"view"' not in answer[:40]:
                        errors += 1
                    await asyncio.sleep(max(0, 2 - (time.perf_counter() - t0)))
        except Exception:
            errors += 1

    marker = asyncio.create_task(mark_start())
    await asyncio.gather(*(client(i) for i in range(n)))
    await marker
    return latencies, errors, connected, (cpu_seconds(proc) - cpu_at_start[0]) / max(1, len(latencies))


async def store_many(ws_base: str, count: int, presses: int) -> None:
    async with connect(ws_base + "/ws", max_size=None) as ws:
        for _ in range(count):
            learner = Learner()
            learner.handle = (await open_playground(ws))["handle"]
            for _ in range(presses):
                await ws.send(learner.press())
                await ws.recv()


async def never_reads(ws_base: str, proc: subprocess.Popen, seconds: float) -> tuple[float, float, str]:
    """Send presses steadily (500 a second) and never read an answer; track the server's memory.

    The server answers into the socket until the kernel's buffers are full; then its send blocks,
    and after WS_SEND_TIMEOUT it drops the client."""
    peak = rss_mb(proc)
    outcome = "still open"
    t0 = time.monotonic()
    async with connect(ws_base + "/ws", max_size=None, max_queue=1) as ws:
        learner = Learner()
        learner.handle = (await open_playground(ws))["handle"]
        ws.transport.pause_reading()  # from here on, nothing is read from the socket
        frame = json.dumps({"v": 2, "type": "open", "panel": "outage", "handle": learner.handle})
        end = t0 + seconds
        try:
            n = 0
            while time.monotonic() < end:
                await ws.send(frame)
                n += 1
                if n % 50 == 0:
                    peak = max(peak, rss_mb(proc))
                await asyncio.sleep(0.002)
        except websockets.ConnectionClosed as exc:
            outcome = f"dropped by the server after {time.monotonic() - t0:.1f} s and {n} frames ({exc})"
        if outcome == "still open" and ws.state is not websockets.State.OPEN:
            outcome = f"dropped by the server ({ws.state.name})"
    return peak, rss_mb(proc), outcome


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--learners", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1100)
    ap.add_argument("--presses", type=int, default=60, help="presses for the one-learner comparison")
    ap.add_argument("--pace", type=float, default=2.0, help="seconds between one learner's presses (0: back to back)")
    ap.add_argument("--deflate", action="store_true", help="the one learner's sockets use permessage-deflate")
    ap.add_argument("--stored", type=int, default=3000, help="playgrounds stored for the memory figure")
    ap.add_argument("--parts", default="one,crowd,memory,unread", help="which of one,crowd,memory,unread to run")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    proc, base = start_server(args.workers, args.threads)
    ws_base = base.replace("http", "ws")
    try:
        print(f"server: lesson serve --workers {args.workers} --threads {args.threads} (pid {proc.pid})")
        if "one" in parts:
            times, echo, sizes = asyncio.run(one_learner(ws_base, args.presses, args.pace, args.deflate))
            press_med, echo_med = statistics.median(times) * 1000, statistics.median(echo) * 1000
            how = f"a press every {args.pace:g} s" if args.pace > 0 else "back to back"
            print(
                f"one learner, {args.presses} presses, {how}: press median {press_med:.3f} ms, "
                f"echo of the same sizes ({min(sizes)}-{max(sizes)} B, median {statistics.median(sizes):.0f} B) "
                f"median {echo_med:.3f} ms, ratio {press_med / echo_med:.2f}x"
            )
        if "crowd" in parts:
            crowd_figures(args, ws_base, proc, asyncio.run(answer_size(ws_base)))
        if "memory" in parts:
            memory_figure(args, ws_base, proc)
        if "unread" in parts:
            unread_figure(ws_base, proc)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


def crowd_figures(args: argparse.Namespace, ws_base: str, proc: subprocess.Popen, size: int) -> None:
    before = rss_mb(proc)
    lat, errs, conn, cpu = asyncio.run(crowd(ws_base + "/ws", args.learners, args.seconds, True, proc))
    print(
        f"{args.learners} learners, a press every 2 s for {args.seconds:g} s: connected {conn}, "
        f"{len(lat)} presses, errors {errs}, p50 {pct(lat, 0.5):.2f} ms, p99 {pct(lat, 0.99):.2f} ms, "
        f"max {max(lat) * 1000:.1f} ms; server RSS {before:.0f} -> {rss_mb(proc):.0f} MB, "
        f"server CPU {cpu * 1000:.2f} ms a press"
    )
    echo_url = f"{ws_base}/bench/echo?size={size}"
    elat, eerrs, econn, ecpu = asyncio.run(crowd(echo_url, args.learners, args.seconds, False, proc))
    print(
        f"{args.learners} echo clients, same pace, {size} B answers: connected {econn}, errors {eerrs}, "
        f"p50 {pct(elat, 0.5):.2f} ms, p99 {pct(elat, 0.99):.2f} ms, max {max(elat) * 1000:.1f} ms; "
        f"server CPU {ecpu * 1000:.2f} ms an echo; p99 ratio {pct(lat, 0.99) / pct(elat, 0.99):.2f}x, "
        f"p50 ratio {pct(lat, 0.5) / pct(elat, 0.5):.2f}x, CPU ratio {cpu / ecpu:.2f}x"
    )


def memory_figure(args: argparse.Namespace, ws_base: str, proc: subprocess.Popen) -> None:
    """RSS per stored playground, two ways: from a fresh server over all of them (this carries what a
    worker allocates once, on its first playgrounds and sockets), and the slope over the second two
    thirds (each playground's own cost, once the workers are warm). The server's run cache is sized
    in start_server so that nothing stored here is evicted: an eviction would make both look smaller."""
    time.sleep(2)
    per_socket = 4
    first = args.stored // 3 // per_socket
    rest = args.stored // per_socket - first

    async def store(each: int) -> None:
        await asyncio.gather(*(store_many(ws_base, each, 5) for _ in range(per_socket)))

    before = rss_mb(proc)
    asyncio.run(store(first))
    middle = rss_mb(proc)
    asyncio.run(store(rest))
    after = rss_mb(proc)
    stored, later = (first + rest) * per_socket, rest * per_socket
    print(
        f"memory: {stored} playgrounds of 5 presses stored: RSS {before:.1f} -> {middle:.1f} -> {after:.1f} MB; "
        f"from fresh {(after - before) * 1e3 / stored:.1f} KB per playground, "
        f"the last {later} {(after - middle) * 1e3 / later:.1f} KB each"
    )


def unread_figure(ws_base: str, proc: subprocess.Popen) -> None:
    start = rss_mb(proc)
    peak, end, outcome = asyncio.run(never_reads(ws_base, proc, 30))
    time.sleep(1)
    print(
        f"never-reading client for up to 30 s: RSS {start:.1f} MB, worst {peak:.1f} MB "
        f"(+{peak - start:.1f} MB), after {rss_mb(proc):.1f} MB; {outcome}"
    )


if __name__ == "__main__":
    main()
