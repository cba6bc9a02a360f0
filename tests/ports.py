"""Ports for the servers tests start: each test process draws from a slice of its own, below the ports the
system hands out, and never hands out one port twice."""

from __future__ import annotations

import contextlib
import os
import random
import socket
from pathlib import Path

# The lowest port the system hands out by itself, to a bind to port 0 or a connection's own end.
HANDED_OUT = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_HANDED_OUT = int(HANDED_OUT.read_text().split()[0]) if HANDED_OUT.exists() else 49152


def own_ports() -> range:
    """The ports this test process may hand out: below those the system hands out (a connection's own end
    could take one of those between the draw and the server's bind), and a slice of their own for each of
    pytest-xdist's workers (``gw0``, ``gw1``...). Two tests running side by side could otherwise draw the same
    free port before either server binds it: one server fails to start, and its test's client talks to the
    other test's server instead (in the differential suite: an HTTP error at ``initialize``)."""
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    n = int(worker[2:]) % count if worker[2:].isdigit() else 0
    span = (LOWEST_HANDED_OUT - 10_000) // count
    return range(10_000 + n * span, 10_000 + (n + 1) * span)


_HANDED: set[int] = set()  # the ports this process has handed out: none twice (two draws of one test)


def free_port() -> int:
    """A free port of 127.0.0.1 of this process's own (``own_ports``), none handed out before: a server
    restarted on it finds it free again, though other programs bind and connect meanwhile. Drawn from the
    system's randomness, not the seeded ``random`` each test worker shares."""
    ports = own_ports()
    if len(_HANDED) > len(ports) // 2:  # a long session: the oldest flows' servers are long gone
        _HANDED.clear()
    draw = random.SystemRandom()
    while True:
        port = draw.randrange(ports.start, ports.stop)
        if port in _HANDED:
            continue
        with socket.socket() as s, contextlib.suppress(OSError):
            s.bind(("127.0.0.1", port))
            _HANDED.add(port)
            return port
