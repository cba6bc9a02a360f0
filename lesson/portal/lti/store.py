"""What the LTI tool remembers between requests, in one SQLite file every worker process shares.

- pylti1p3's launch data storage (the OIDC nonces and states, the launch data a deep-linking response
  or a score needs later) goes through :class:`SqliteCache`'s ``get``/``set``: the cache interface its
  ``FlaskCacheDataStorage`` expects. A per-process cache would let a launch that lands on another
  gunicorn worker fail, and a replay that lands on another worker succeed.
- :meth:`SqliteCache.claim` marks a key used, once, atomically: a nonce is claimed on the first
  launch that carries it, so a replay is refused whichever worker answers it.
- The attempts: each learner's first answer to each question, per attempt, and the best score sent.

WAL mode lets the workers on one machine read while one writes. Several machines need one shared
store instead (a pylti1p3 cache over Redis or memcached, and the claims in the same place).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lesson.portal import sqlitefile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL);
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    learner TEXT NOT NULL, attempt INTEGER NOT NULL, question TEXT NOT NULL,
    choice TEXT NOT NULL, correct INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (learner, attempt, question)
);
CREATE TABLE IF NOT EXISTS attempts (
    learner TEXT PRIMARY KEY, attempt INTEGER NOT NULL, best REAL
);
"""


class SqliteCache:
    """A small key-value store with expiry, shared by the processes that open the same file."""

    def __init__(self, path: str | Path, busy_timeout: float = 5.0) -> None:
        self.path = str(path)
        self._timeout = busy_timeout
        self._local = threading.local()
        self._conn().executescript(_SCHEMA)  # idempotent; executescript commits by itself

    def _conn(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlitefile.connect(self.path, self._timeout)
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with sqlitefile.transaction(self._conn()) as db:
            yield db

    # pylti1p3's cache interface -------------------------------------------------------------------

    def get(self, key: str) -> Any:
        row = self._conn().execute("SELECT value, expires FROM cache WHERE key = ?", (key,)).fetchone()
        if row is None or row[1] is not None and row[1] < time.time():
            return None
        return json.loads(row[0])

    def set(self, key: str, value: Any, exp: int | None = None) -> None:
        expires = time.time() + exp if exp else None
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO cache (key, value, expires) VALUES (?, ?, ?)", (key, json.dumps(value), expires)
            )
            db.execute("DELETE FROM cache WHERE expires < ?", (time.time(),))

    # one-time claims ------------------------------------------------------------------------------

    def claim(self, key: str, ttl: float) -> bool:
        """True the first time ``key`` is claimed (until ``ttl`` seconds pass), False every time after."""
        now = time.time()
        with self._tx() as db:
            db.execute("DELETE FROM claims WHERE expires < ?", (now,))
            cur = db.execute("INSERT OR IGNORE INTO claims (key, expires) VALUES (?, ?)", (key, now + ttl))
            return cur.rowcount == 1

    # attempts -------------------------------------------------------------------------------------

    def record_answer(
        self, learner: str, question: str, choice: str, correct: bool, questions: int, retakes: bool
    ) -> tuple[int, dict[str, bool], bool]:
        """Keep a learner's first answer to ``question`` in their current attempt. Once every one of the
        ``questions`` has its answer the attempt is over; with ``retakes`` the next answer opens a new
        one, without them later answers are not kept. Gives (attempt, its verdicts, whether kept)."""
        with self._tx() as db:
            row = db.execute("SELECT attempt FROM attempts WHERE learner = ?", (learner,)).fetchone()
            attempt = row[0] if row else 1
            if row is None:
                db.execute("INSERT INTO attempts (learner, attempt, best) VALUES (?, 1, NULL)", (learner,))
            done = db.execute(
                "SELECT COUNT(*) FROM answers WHERE learner = ? AND attempt = ?", (learner, attempt)
            ).fetchone()[0]
            if done >= questions:
                if not retakes:
                    return attempt, self._verdicts(db, learner, attempt), False
                attempt += 1
                db.execute("UPDATE attempts SET attempt = ? WHERE learner = ?", (attempt, learner))
            cur = db.execute(
                "INSERT OR IGNORE INTO answers (learner, attempt, question, choice, correct, at) VALUES (?,?,?,?,?,?)",
                (learner, attempt, question, choice, int(correct), time.time()),
            )
            return attempt, self._verdicts(db, learner, attempt), cur.rowcount == 1

    @staticmethod
    def _verdicts(db: sqlite3.Connection, learner: str, attempt: int) -> dict[str, bool]:
        rows = db.execute(
            "SELECT question, correct FROM answers WHERE learner = ? AND attempt = ?", (learner, attempt)
        ).fetchall()
        return {q: bool(c) for q, c in rows}

    def better(self, learner: str, score: float) -> bool:
        """Whether ``score`` beats the learner's best so far; if so it becomes the best."""
        with self._tx() as db:
            row = db.execute("SELECT best FROM attempts WHERE learner = ?", (learner,)).fetchone()
            if row is not None and row[0] is not None and row[0] >= score:
                return False
            db.execute("UPDATE attempts SET best = ? WHERE learner = ?", (score, learner))
            return True
