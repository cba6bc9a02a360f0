"""Servers that tests start in a thread of their own."""

from __future__ import annotations

import threading

# How often serve_forever looks for a shutdown request: socketserver's default of 0.5 s would make every
# server a test stops cost half a second (some sixty of them in the suite).
POLL = 0.02


def serve_in_thread(server) -> threading.Thread:
    """Serve ``server`` (anything with socketserver's ``serve_forever``) in a daemon thread; stop it
    with ``server.shutdown()``, which then returns within one poll."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL}, daemon=True)
    thread.start()
    return thread
