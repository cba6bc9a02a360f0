"""Live mode's tests (docs/live.md): the real ``lesson serve --live`` on 127.0.0.1, real SDK server processes,
every one of them killed when a test ends, passed or failed."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from lesson.live import sdk_missing

# Live mode needs the official SDK (the ``sdk`` extra): without it these tests fail at collection with the
# command that installs it, never pass by being skipped.
if why := sdk_missing():
    raise pytest.UsageError(f"tests/live: {why}")

REPO = Path(__file__).resolve().parents[2]
LESSON = [sys.executable, "-c", "import sys; from lesson.cli import main; sys.exit(main())"]
START = 60  # seconds `lesson serve` may take to print its address


def live_children(proc: psutil.Process) -> list[psutil.Process]:
    """The live servers the lesson server started (its other children, if any, aside)."""
    out = []
    try:
        children = proc.children(recursive=True)
    except psutil.NoSuchProcess:  # the server itself is gone
        return out
    for child in children:
        try:
            if "lesson.live.server" in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                out.append(child)
        except psutil.NoSuchProcess:
            continue
    return out


@contextlib.contextmanager
def live_outage(era: str, locale: str | None = None) -> Iterator[Any]:
    """The outage playground on real SDK servers, in process; every server process is killed when the
    block ends, and none may be left."""
    from lesson.web import create_app

    app = create_app({"SECRET_KEY": "t", "LIVE": True})
    registry = app.extensions["lesson.live"]
    panel = app.extensions["lesson"].panels["outage"]
    pids: set[int] = set()
    try:
        pg = registry.open(panel, era) if locale is None else registry.open(panel, era, locale)
        pids.update(r["pid"] for r in pg.opening["servers"])
        yield pg
    finally:
        registry.close_all()
        kill_all(list(pids))
    assert not live_children(psutil.Process())


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


class Served:
    def __init__(self, proc: subprocess.Popen, url: str) -> None:
        self.proc, self.url = proc, url
        self.ps = psutil.Process(proc.pid)
        self.seen: set[int] = set()  # every live server pid a test looked at: killed at the end whatever happens

    def children(self) -> list[psutil.Process]:
        kids = live_children(self.ps)
        self.seen.update(k.pid for k in kids)
        return kids


def serve(*args: str, env: dict[str, str] | None = None, stderr: Any = subprocess.PIPE) -> subprocess.Popen:
    full_env = {**os.environ, "LESSON_SECRET_KEY": "live-test", "LESSON_LIVE_LIFETIME": "180", **(env or {})}
    return subprocess.Popen(
        [*LESSON, "serve", *args],
        cwd=REPO,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        start_new_session=True,
    )


@pytest.fixture
def live_cli() -> Iterator[Served]:
    """``lesson serve --live --port 0`` on 127.0.0.1; its URL once it listens."""
    # The server's request log goes to a file: a pipe nobody reads would fill and stop the server.
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = serve("--live", "--port", "0", stderr=log)
        served = None
        try:
            assert proc.stdout is not None
            # The first line names the address; a server that dies first gives an empty line.
            line = proc.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:\d+", line)
            if not match:
                proc.wait(START)
                log.seek(0)
                raise AssertionError(f"no address in {line!r}; the server said: {log.read()}")
            served = Served(proc, match.group(0))
            yield served
        finally:
            pids = list(served.seen) if served else []
            if served is not None:
                pids += [k.pid for k in live_children(served.ps)]
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(START)
            kill_all(pids)
