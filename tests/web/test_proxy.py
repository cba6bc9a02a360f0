"""The proxy docs/classroom.md says must front a public server: its nginx block, run as written (its
header deadline shortened), in front of the production command. Slow request headers hold nginx's
connections, not the server's threads. Loopback only; `make test` installs nginx where it is missing."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import websocket

from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)


@pytest.fixture(autouse=True)
def _nginx_installed() -> None:
    if NGINX is None:  # never skipped: the proxy is part of what a public server needs
        pytest.fail("nginx is not installed: `make test` installs it as root, else apt-get install nginx-light")


def documented_block() -> str:
    text = (ROOT / "docs" / "classroom.md").read_text()
    return re.search(r"```nginx\n(.*?)```", text, re.S).group(1)


@contextlib.contextmanager
def nginx_in_front(tmp: Path, upstream: int, deadline_s: int):
    port = free_port()
    block = documented_block().replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    block = block.replace("127.0.0.1:8000", f"127.0.0.1:{upstream}")
    block = block.replace("client_header_timeout 10s;", f"client_header_timeout {deadline_s}s;")
    (tmp / "lesson.conf").write_text(block)
    temp = " ".join(f"{name}_temp_path {tmp}/{name};" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp / "nginx.conf").write_text(
        f"daemon off; user root; pid {tmp}/nginx.pid; error_log {tmp}/error.log;\n"
        "events { worker_connections 1024; }\n"
        f"http {{ access_log off; {temp} include {tmp}/lesson.conf; }}\n"
    )
    proc = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf")], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, (tmp / "error.log").read_text()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def test_slow_headers_through_the_documented_proxy_hold_no_server_thread(spawn, tmp_path):
    base, proc = spawn(workers=1, env={"LESSON_PROXY_FIX": "1"})  # 64 threads
    upstream = int(base.rsplit(":", 1)[1])
    with nginx_in_front(tmp_path, upstream, deadline_s=3) as front:
        host, port = front.removeprefix("http://").split(":")
        slow = []
        try:
            for _ in range(80):  # more than the server has threads
                sock = socket.create_connection((host, int(port)), timeout=10)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\nX-Slow: a")
                slow.append(sock)
            with urllib.request.urlopen(front + "/healthz", timeout=10) as resp:
                assert resp.status == 200 and json.loads(resp.read())["ok"]
            ws = websocket.create_connection(front.replace("http", "ws") + "/ws", timeout=10)
            ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage"}))
            assert json.loads(ws.recv())["type"] == "view"
            ws.close()
            # Forwarded headers a client forges do not get through: the proxy sets (or clears) each one
            # the server trusts, so the page's own addresses stay its own.
            forged = urllib.request.Request(
                front + "/lessons/an-outage",
                headers={"X-Forwarded-Host": "evil.example", "X-Forwarded-Prefix": "/evil", "X-Forwarded-Port": "6666"},
            )
            with urllib.request.urlopen(forged, timeout=10) as resp:
                page = resp.read().decode()
            assert "evil" not in page and "6666" not in page and 'href="/static/' in page.replace("'", '"')
            # nginx ends a connection whose headers are not in by its deadline (the socket's own 10 s
            # timeout bounds the wait).
            ended = slow[0].recv(4096)
            assert ended == b"" or ended.startswith(b"HTTP/1.1 408")
        finally:
            for sock in slow:
                sock.close()
    with open(proc.log_path) as f:
        assert "Traceback" not in f.read()
