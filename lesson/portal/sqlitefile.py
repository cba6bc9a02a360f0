"""How the app opens its SQLite files (the outbox, the LTI store): one place for the settings both need."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def connect(path: str | Path, busy_timeout: float, *, any_thread: bool = False) -> sqlite3.Connection:
    """A connection in WAL mode, so the workers on one machine read while one writes.

    ``isolation_level=None``: transactions only where the caller opens them (``BEGIN IMMEDIATE``).
    ``any_thread``: the caller shares the connection between its threads under its own lock."""
    conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=not any_thread)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    return conn


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` (the write lock up front, so two writers never deadlock midway), then ``COMMIT``,
    or ``ROLLBACK`` if anything is raised."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
