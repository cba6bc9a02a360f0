"""``make serve HOST=0.0.0.0 WORKERS=2`` serves a class as the README says, and ``lesson serve`` prints the
addresses learners can open: the machine's own (not loopback) when bound to every interface, and a word
that nobody else can get in when bound to loopback. Requests go to 127.0.0.1 only."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from lesson.content.course import default_root
from lesson.web.reach import learner_urls, machine_addresses

from ..conftest import wait_healthy
from ..ports import free_port

ROOT = Path(__file__).resolve().parents[2]


def own_ipv4() -> set[str]:
    """The machine's non-loopback IPv4 addresses, as psutil (a second, independent source) sees them."""
    return {
        a.address
        for addrs in psutil.net_if_addrs().values()
        for a in addrs
        if a.family == socket.AF_INET and not a.address.startswith("127.") and not a.address.startswith("169.254.")
    }


def test_every_interface_means_the_machines_own_addresses() -> None:
    assert set(machine_addresses()) == own_ipv4()
    urls = learner_urls("0.0.0.0", 8123)
    if own_ipv4():
        assert {u.removeprefix("http://").removesuffix(":8123/") for u in urls} == own_ipv4()
    assert not any("0.0.0.0" in u or "127.0.0.1" in u for u in urls)


@contextlib.contextmanager
def started(cmd: list[str], port: int) -> Iterator[tuple[subprocess.Popen, list[str]]]:
    """Run a server in its own process group until it is healthy; yield it, and a list that holds what it
    printed once the block is done and the server killed (its whole output, read to the end)."""
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True
    )
    lines: list[str] = []
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        yield proc, lines
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        lines += out.splitlines()


def test_lesson_serve_on_loopback_says_only_this_machine_can_open_it() -> None:
    port = free_port()
    with started([sys.executable, "-m", "lesson.cli", "serve", "--port", str(port)], port) as (_, lines):
        pass
    assert f"http://127.0.0.1:{port}/" in lines[0]
    assert any("0.0.0.0" in line for line in lines)  # how to let a class in
    # and which lessons it serves: an author editing a copy of the content sees whether it is this one
    assert any(line.strip() == f"content: {default_root()}" for line in lines), lines


@pytest.mark.skipif(not own_ipv4(), reason="this machine has no address but loopback")
def test_make_serve_for_a_class_binds_every_interface_and_prints_the_machines_addresses() -> None:
    port = free_port()
    cmd = ["make", "--no-print-directory", "serve", "HOST=0.0.0.0", f"PORT={port}", "WORKERS=2"]
    with started(cmd, port) as (proc, lines):
        listening = [
            c for c in psutil.net_connections("tcp") if c.laddr and c.laddr.port == port and c.status == "LISTEN"
        ]
        assert {c.laddr.ip for c in listening} == {"0.0.0.0"}
        workers = {
            json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10))["worker"]
            for _ in range(20)
        }
        children = {p.pid for p in psutil.Process(proc.pid).children(recursive=True)}
        assert workers <= children
    printed = [line.strip() for line in lines if line.startswith("  http")]
    assert {u.removeprefix("http://").removesuffix(f":{port}/") for u in printed} == own_ipv4()


def test_the_printed_address_is_under_the_mount_point() -> None:
    """Mounted under SCRIPT_NAME, gunicorn serves nothing outside it: the address to open carries it."""
    from lesson.web.reach import startup_lines

    lines = startup_lines("127.0.0.1", 8123, "2 worker(s)", "/training/mcp")
    assert "http://127.0.0.1:8123/training/mcp/ " in lines[0]
    assert learner_urls("::1", 8123, "/training/mcp/") == ["http://[::1]:8123/training/mcp/"]
    assert learner_urls("127.0.0.1", 8123) == ["http://127.0.0.1:8123/"]
