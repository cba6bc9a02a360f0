"""The harness itself: stdio servers start from the zygote, which has already imported the SDK."""

from __future__ import annotations

import json
import subprocess

import psutil

from lesson.sim import wire as w

from . import harness
from .harness import WAIT, Lab


def test_a_stdio_server_is_forked_by_the_zygote_and_ends_with_its_tap(tmp_path):
    """A stdio server that imports the SDK from scratch can miss the SDK client's fixed 10 s wait for the first
    answer on a busy machine; forked from the zygote it has nothing left to import. It is no child of its tap,
    so it must still end when the host closes the tap's stdin."""
    assert harness.ZYGOTE is not None
    lab = Lab(tmp_path, "eras")
    command, args = lab.stdio_command("M")
    tap = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert tap.stdin is not None and tap.stdout is not None
        tap.stdin.write((json.dumps(w.request("modern", "d1", "server/discover")) + "\n").encode())
        tap.stdin.flush()
        assert json.loads(tap.stdout.readline())["result"]["supportedVersions"] == ["2026-07-28"]
        server = psutil.Process(lab.stdio_pid("M"))
        assert server.ppid() == harness.ZYGOTE.proc.pid, "the server was not forked by the zygote"
        tap.stdin.close()  # the host closes the server's stdin: the server ends, then its tap
        assert tap.wait(WAIT) == 0
        psutil.wait_procs([server], timeout=WAIT)
        assert not server.is_running() or server.status() == psutil.STATUS_ZOMBIE
    finally:
        tap.kill()
        tap.wait()
        lab.close()
