"""Fixtures for the outbox's tests: a fake record store, a real Redis server the tests start (on a
free loopback port, in its own temporary folder, killed at the end), and an outbox on either store."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lesson.portal import outbox
from tests.outbox.fakelrs import FakeLrs, store  # noqa: F401 - the fixture
from tests.ports import free_port


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server on 127.0.0.1; its URL. Missing Redis fails: `make test` installs it."""
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "No redis-server for the Redis outbox tests. Install Debian's (apt-get install redis-server); "
            "`make test` installs it by itself when run as root.",
            pytrace=False,
        )
    folder = tmp_path_factory.mktemp("redis")
    port = free_port()
    cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", ""]
    cmd += ["--appendonly", "yes", "--daemonize", "no", "--logfile", str(folder / "redis.log")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url, socket_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server exited: {(folder / 'redis.log').read_text()[-1000:]}")
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The shared Redis server, emptied for this test."""
    import redis

    with contextlib.closing(redis.Redis.from_url(redis_server)) as client:
        client.flushall()
    return redis_server


@pytest.fixture(params=["sqlite", "redis"])
def make_box(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., outbox.Outbox]]:
    """Outboxes on one store (several share it, as several processes would); stopped at the end."""
    url = f"sqlite:///{tmp_path}/outbox.sqlite3" if request.param == "sqlite" else request.getfixturevalue("redis_url")
    boxes: list[outbox.Outbox] = []

    def make(**settings: object) -> outbox.Outbox:
        values = {"OUTBOX_URL": url, "OUTBOX_RETRY_INITIAL": 0.01, "OUTBOX_RETRY_MAX": 0.05, "OUTBOX_POLL": 0.05}
        box = outbox.from_settings({**values, **settings}, tmp_path)
        boxes.append(box)
        return box

    yield make
    for box in boxes:
        box.stop()
        box.store.close()
