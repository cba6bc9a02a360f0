"""The outbox's store in one SQLite file (the default; ``lesson/portal/outbox_redis.py`` is the other
store): items, destinations in backoff, items set aside, counters and the sender's lease, each change
one transaction."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lesson.portal import sqlitefile

from .outbox_items import Item
from .outbox_store import OutboxStore, store_stats

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, dest TEXT NOT NULL, payload TEXT NOT NULL,
    size INTEGER NOT NULL, created REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT);
CREATE INDEX IF NOT EXISTS items_dest ON items (dest, id);
CREATE TABLE IF NOT EXISTS dests (dest TEXT PRIMARY KEY, next_at REAL NOT NULL, failures INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS dests_due ON dests (next_at);
CREATE TABLE IF NOT EXISTS dead (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, dest TEXT NOT NULL, payload TEXT NOT NULL, size INTEGER NOT NULL,
    created REAL NOT NULL, attempts INTEGER NOT NULL, reason TEXT NOT NULL, given_up_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS counts (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lease (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL);
INSERT OR IGNORE INTO counts VALUES ('items', 0), ('bytes', 0), ('refused', 0), ('delivered', 0), ('given_up', 0);
"""


class SqliteStore(OutboxStore):
    """One SQLite file in WAL mode: writers take turns (``BEGIN IMMEDIATE``), readers never wait.
    A put commits with ``synchronous=FULL``: once it returned, it is on disk."""

    def __init__(self, path: str | Path, max_items: int, max_bytes: int, busy_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.max_items, self.max_bytes = max_items, max_bytes
        self._busy_ms = int(busy_timeout * 1000)
        # One connection per process, shared by its threads in turn: a worker has a thousand threads,
        # and SQLite lets one writer at a time in anyway. A forked child opens its own.
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._pid = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._read() as db:
            db.executescript(_SCHEMA)  # idempotent; each statement commits on its own

    def _conn(self) -> sqlite3.Connection:
        if self._db is None or self._pid != os.getpid():
            self._db, self._pid = sqlitefile.connect(self.path, self._busy_ms / 1000, any_thread=True), os.getpid()
        return self._db

    @contextlib.contextmanager
    def _tx(self, durable: bool = False) -> Iterator[sqlite3.Connection]:
        """A write transaction. ``durable`` (a put): on disk before it returns, even across a power
        cut. Otherwise (a removal, the lease) across a crash of the process only: a removal lost to a
        power cut means a resend, which the destination recognises."""
        with self._lock:
            db = self._conn()
            if durable:
                db.execute("PRAGMA synchronous=FULL")
            try:
                with sqlitefile.transaction(db):
                    yield db
            finally:
                if durable:
                    db.execute("PRAGMA synchronous=NORMAL")

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn()

    @staticmethod
    def _add(db: sqlite3.Connection, name: str, n: int) -> None:
        db.execute("UPDATE counts SET value = value + ? WHERE name = ?", (n, name))

    @staticmethod
    def _counts(db: sqlite3.Connection) -> dict[str, int]:
        return dict(db.execute("SELECT name, value FROM counts").fetchall())

    def put(self, kind: str, destination: str, payloads: list[str], now: float) -> list[int] | None:
        sizes = [len(p.encode()) for p in payloads]
        with self._tx(durable=True) as db:
            counts = self._counts(db)
            if counts["items"] + len(payloads) > self.max_items or counts["bytes"] + sum(sizes) > self.max_bytes:
                self._add(db, "refused", len(payloads))
                return None
            ids = [
                db.execute(
                    "INSERT INTO items (kind, dest, payload, size, created) VALUES (?, ?, ?, ?, ?)",
                    (kind, destination, p, s, now),
                ).lastrowid
                for p, s in zip(payloads, sizes, strict=True)
            ]
            db.execute("INSERT OR IGNORE INTO dests VALUES (?, 0, 0)", (destination,))
            self._add(db, "items", len(payloads))
            self._add(db, "bytes", sum(sizes))
        return [int(i) for i in ids if i is not None]

    def acquire(self, owner: str, ttl: float) -> bool:
        now = time.time()
        with self._tx() as db:
            row = db.execute("SELECT owner, expires FROM lease WHERE name = 'sender'").fetchone()
            if row is not None and row[0] != owner and row[1] > now:
                return False
            db.execute("INSERT OR REPLACE INTO lease VALUES ('sender', ?, ?)", (owner, now + ttl))
        return True

    def release(self, owner: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM lease WHERE name = 'sender' AND owner = ?", (owner,))

    def due(self, now: float, limit: int) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT dest FROM dests WHERE next_at <= ? ORDER BY next_at, dest LIMIT ?", (now, limit)
            ).fetchall()
        return [r[0] for r in rows]

    def next_due(self) -> float | None:
        with self._read() as db:
            return db.execute("SELECT min(next_at) FROM dests").fetchone()[0]

    @staticmethod
    def _item(row: tuple) -> Item:
        id_, kind, dest, payload, size, created, attempts, reason = row
        return Item(int(id_), kind, dest, json.loads(payload), created, attempts, size, reason or "")

    def head(self, destination: str, limit: int) -> list[Item]:
        with self._read() as db:
            rows = db.execute(
                "SELECT id, kind, dest, payload, size, created, attempts, last_error FROM items"
                " WHERE dest = ? ORDER BY id LIMIT ?",
                (destination, limit),
            ).fetchall()
        return [self._item(r) for r in rows]

    def _take(self, db: sqlite3.Connection, ids: list[int]) -> list[tuple]:
        marks = ",".join("?" * len(ids))
        rows = db.execute(
            f"SELECT id, kind, dest, payload, size, created, attempts FROM items WHERE id IN ({marks})", ids
        ).fetchall()
        if rows:
            db.execute(f"DELETE FROM items WHERE id IN ({marks})", ids)
            self._add(db, "items", -len(rows))
            self._add(db, "bytes", -sum(r[4] for r in rows))
            for dest in {r[2] for r in rows}:
                if db.execute("SELECT 1 FROM items WHERE dest = ? LIMIT 1", (dest,)).fetchone() is None:
                    db.execute("DELETE FROM dests WHERE dest = ?", (dest,))
        return rows

    def remove(self, ids: list[int], delivered: bool) -> int:
        if not ids:
            return 0
        with self._tx() as db:
            rows = self._take(db, ids)
            if delivered:
                self._add(db, "delivered", len(rows))
                for dest in {r[2] for r in rows}:
                    db.execute("UPDATE dests SET failures = 0 WHERE dest = ?", (dest,))
        return len(rows)

    def set_aside(self, item: Item, reason: str, now: float) -> None:
        with self._tx() as db:
            for row in self._take(db, [item.id]):
                db.execute("INSERT OR REPLACE INTO dead VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, reason, now))
                self._add(db, "given_up", 1)

    def backoff(self, destination: str, until: float, reason: str, ids: list[int]) -> None:
        with self._tx() as db:
            db.execute("UPDATE dests SET next_at = ?, failures = failures + 1 WHERE dest = ?", (until, destination))
            marks = ",".join("?" * len(ids))
            db.execute(
                f"UPDATE items SET attempts = attempts + 1, last_error = ? WHERE id IN ({marks})", [reason, *ids]
            )

    def failures(self, destination: str) -> int:
        with self._read() as db:
            row = db.execute("SELECT failures FROM dests WHERE dest = ?", (destination,)).fetchone()
        return row[0] if row else 0

    def clear_backoff(self, destination: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE dests SET next_at = 0, failures = 0 WHERE dest = ?", (destination,))

    def stats(self, now: float) -> dict[str, Any]:
        with self._read() as db:
            counts = self._counts(db)
            oldest = db.execute("SELECT created FROM items ORDER BY id LIMIT 1").fetchone()
            waiting = db.execute("SELECT count(*) FROM dests WHERE failures > 0").fetchone()[0]
            dead = db.execute("SELECT count(*) FROM dead").fetchone()[0]
        return store_stats(counts, oldest[0] if oldest else None, now, waiting, dead)

    def pending(self, limit: int) -> list[Item]:
        with self._read() as db:
            rows = db.execute(
                "SELECT id, kind, dest, payload, size, created, attempts, last_error FROM items ORDER BY id LIMIT ?",
                (limit,),
            ).fetchall()
        return [self._item(r) for r in rows]

    def dead(self, limit: int) -> list[Item]:
        with self._read() as db:
            rows = db.execute(
                "SELECT id, kind, dest, payload, size, created, attempts, reason FROM dead ORDER BY id LIMIT ?",
                (limit,),
            ).fetchall()
        return [self._item(r) for r in rows]

    def requeue(self, ids: list[int]) -> int:
        if not ids:
            return 0
        marks = ",".join("?" * len(ids))
        with self._tx(durable=True) as db:
            rows = db.execute(
                f"SELECT id, kind, dest, payload, size, created FROM dead WHERE id IN ({marks})", ids
            ).fetchall()
            for id_, kind, dest, payload, size, created in rows:
                db.execute(
                    "INSERT INTO items (id, kind, dest, payload, size, created) VALUES (?, ?, ?, ?, ?, ?)",
                    (id_, kind, dest, payload, size, created),
                )
                db.execute(
                    "INSERT INTO dests VALUES (?, 0, 0) ON CONFLICT (dest) DO UPDATE SET next_at = 0, failures = 0",
                    (dest,),
                )
                self._add(db, "items", 1)
                self._add(db, "bytes", size)
            db.execute(f"DELETE FROM dead WHERE id IN ({marks})", ids)
        return len(rows)

    def drop_dead(self, ids: list[int]) -> int:
        if not ids:
            return 0
        with self._tx() as db:
            return db.execute(f"DELETE FROM dead WHERE id IN ({','.join('?' * len(ids))})", ids).rowcount

    def retry_now(self, ids: list[int] | None) -> int:
        with self._tx() as db:
            if ids is None:
                return db.execute("UPDATE dests SET next_at = 0, failures = 0").rowcount
            marks = ",".join("?" * len(ids))
            return db.execute(
                "UPDATE dests SET next_at = 0, failures = 0"
                f" WHERE dest IN (SELECT dest FROM items WHERE id IN ({marks}))",
                ids,
            ).rowcount

    def close(self) -> None:
        with self._lock:
            if self._db is not None and self._pid == os.getpid():
                self._db.close()
            self._db = None
