"""Round trip of one playground press over the WebSocket, against a bare echo on the same stack.

Both servers are the same Flask + flask-sock app on werkzeug's threaded server, on loopback, in
this process's threads; the echo route sends back what it receives. The ratio says what the
lesson itself costs on top of the transport.

    .venv/bin/python bench/ws_bench.py [--presses 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time

import websocket
from flask_sock import Sock
from werkzeug.serving import make_server

from lesson.web import create_app


def serve(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def timed(ws, frames: list[str]) -> list[float]:
    out = []
    for frame in frames:
        t0 = time.perf_counter()
        ws.send(frame)
        ws.recv()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=2000)
    args = parser.parse_args()

    app = create_app({"SECRET_KEY": "bench"})
    sock = Sock(app)

    @sock.route("/echo")
    def echo(conn):  # the baseline: same stack, no lesson
        while True:
            conn.send(conn.receive())

    server = serve(app)
    base = f"ws://127.0.0.1:{server.server_port}"
    lesson = websocket.create_connection(base + "/ws")
    bare = websocket.create_connection(base + "/echo")

    lesson.send(json.dumps({"v": 1, "type": "open", "panel": "outage"}))
    handle = json.loads(lesson.recv())["handle"]
    # A realistic mix; Reset every 40 presses keeps the log (and the view) the size a learner sees.
    cycle = ["deploy", "turn", "add-c", "turn", "a-dies", "turn", "a-back", "turn"]
    frames = []
    for n in range(args.presses):
        if n % 40 == 39:
            frames.append(json.dumps({"v": 1, "type": "reset", "handle": handle}))
        else:
            frames.append(json.dumps({"v": 1, "type": "press", "handle": handle, "button": cycle[n % len(cycle)]}))
    sizes = []
    lesson.send(frames[0])
    sizes.append(len(lesson.recv()))
    echo_frames = [f.ljust(sizes[0]) for f in frames]  # echo an answer-sized message both ways

    timed(bare, echo_frames[:200])  # warm up both
    timed(lesson, frames[:200])
    app_t = timed(lesson, frames)
    echo_t = timed(bare, echo_frames)

    def ms(xs, q):
        return statistics.quantiles(xs, n=100)[q - 1] * 1e3

    app_med, echo_med = statistics.median(app_t) * 1e3, statistics.median(echo_t) * 1e3
    print(f"command: {' '.join(sys.argv)}  (presses={args.presses})")
    print(f"answer size: about {sizes[0] // 1024} KiB of JSON per press")
    print(f"bare echo  : median {echo_med:.3f} ms, p99 {ms(echo_t, 99):.3f} ms")
    print(f"lesson     : median {app_med:.3f} ms, p99 {ms(app_t, 99):.3f} ms")
    print(f"ratio      : {app_med / echo_med:.1f}x the bare echo (median)")
    lesson.close()
    bare.close()
    server.shutdown()


if __name__ == "__main__":
    main()
