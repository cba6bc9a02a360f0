"""Live mode (``lesson serve --live``): the outage playground on real MCP SDK servers on the instructor's
machine, beside the simulation (docs/live.md). Needs the official SDK, the ``sdk`` extra. This module,
which ``web/live.py`` always imports, needs nothing of it; the modules that do are imported only when
live mode is on, and the simulation (``lesson/sim``) stays pure."""

from __future__ import annotations

import importlib.util
import os
import threading

SDK_MISSING = (
    "live mode needs the official MCP SDK (mcp 2.3.0, the 'sdk' extra), which is not installed: "
    "pip install -e '.[sdk]' (or make .venv/.installed-sdk)"
)
LIVE_PANELS = ("outage",)  # the playgrounds that can run live (static/js/live.js keeps the same list)


def sdk_missing() -> str | None:
    """Why live mode cannot run here, or None when the SDK and its server stack are importable."""
    for module in ("mcp", "uvicorn", "anyio"):
        if importlib.util.find_spec(module) is None:
            return SDK_MISSING
    return None


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def loopback(host: str) -> bool:
    """Whether an address (a bind host or a client address) is this machine only."""
    return host in LOOPBACK or host.startswith("127.") or host == "::ffff:127.0.0.1"


def end_after(lifetime: float) -> None:
    """A timer ends this process after ``lifetime`` seconds, even if its event loop is stuck: a server or
    proxy process never outlives what started it for long."""
    timer = threading.Timer(lifetime, lambda: os._exit(3))
    timer.daemon = True
    timer.start()
