"""The proof that nothing reported is lost: a record store on 127.0.0.1 answers 503 while learners
answer questions; every server process is SIGKILLed; the server starts again; the store comes back.
Every statement arrives, none is recorded twice (by id), and each learner's arrive in the order the
learner made them. With one process, two gunicorn workers, and Redis as the outbox shared by two
servers on different ports, each killed in turn. Loopback only, bounded: a few dozen statements,
every wait on a condition with a deadline, every process killed by the fixtures even on failure."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests import statements
from tests.outbox.fakelrs import FakeLrs

SLUG = "list-changed"
QUESTIONS = ["when-to-send", "on-receipt", "undeclared"]
LEARNERS = 6


def post(url: str, body: object) -> dict:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json", "Connection": "close"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=20) as resp:
        assert resp.status in (200, 202), resp.status
        return json.loads(resp.read())


def health(base: str) -> dict:
    with urllib.request.urlopen(base + "/healthz", timeout=10) as resp:
        return json.loads(resp.read())


class Learners:
    """Learners who answer the quick check, each from one thread, one answer after another: the
    server grades the answer, then the page's statement goes to /api/xapi (as app.js does)."""

    def __init__(self) -> None:
        self.actors = [statements.anonymous_actor("https://lab.example", f"learner-{n}") for n in range(LEARNERS)]
        self.sent: dict[str, list[str]] = {a.account.name: [] for a in self.actors}
        self.rounds = 0

    def answer_round(self, bases: list[str]) -> None:
        r = self.rounds
        self.rounds += 1

        def one(n: int) -> None:
            actor = self.actors[n]
            for k, qid in enumerate(QUESTIONS):
                base = bases[(n + k + r) % len(bases)]  # with two servers, a learner's requests alternate
                choice = "abc"[(n + k + r) % 3]
                verdict = post(f"{base}/api/quiz/{SLUG}/{qid}", {"choice": choice})
                statement = statements.answered(actor, f"{base}/lessons/{SLUG}", qid, choice, verdict["correct"])
                answer = post(f"{base}/api/xapi", [statement.to_json()])
                assert answer == {"queued": 1, "dropped": 0}, answer  # stored before this answer came
                self.sent[actor.account.name].append(str(statement.id))

        with ThreadPoolExecutor(LEARNERS) as pool:
            list(pool.map(one, range(LEARNERS)))

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.sent.values())

    def check(self, store: FakeLrs) -> None:
        ids = store.ids
        assert len(ids) == len(set(ids)), "a statement was recorded twice"
        assert sorted(ids) == sorted(i for v in self.sent.values() for i in v), "statements missing"
        with store.lock:
            got = [(s["actor"]["account"]["name"], s["id"]) for s in store.received]
        for name, sent in self.sent.items():
            assert [i for who, i in got if who == name] == sent, f"{name}'s statements out of order"


def wait_for(condition, what: str, timeout: float = 40) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def settings(store: FakeLrs, outbox_url: str) -> dict[str, str]:
    return {
        "LESSON_LRS_ENDPOINT": store.url,
        "LESSON_OUTBOX_URL": outbox_url,
        "LESSON_OUTBOX_LEASE": "2",  # a killed sender's lease runs out in 2 s
        "LESSON_OUTBOX_RETRY_INITIAL": "0.05",
        "LESSON_OUTBOX_RETRY_MAX": "0.5",
        "LESSON_OUTBOX_POLL": "0.2",
    }


def kill(proc) -> None:
    os.killpg(proc.pid, signal.SIGKILL)  # the process and every worker, with no chance to tidy up
    proc.wait(timeout=10)


def crash_and_recover(spawn, store: FakeLrs, outbox_url: str, workers: int) -> None:
    env = settings(store, outbox_url)
    store.down = True
    base, proc = spawn(workers=workers, env=env)
    port = int(base.rsplit(":", 1)[1])
    learners = Learners()
    learners.answer_round([base])
    wait_for(lambda: store.attempts >= 1, "the sender to try the store while it is down")
    learners.answer_round([base])
    assert health(base)["outbox"]["depth"] == learners.total
    kill(proc)
    base, _ = spawn(port=port, workers=workers, env=env)
    store.down = False
    wait_for(lambda: len(store.ids) >= learners.total, "every statement to arrive")
    learners.check(store)
    wait_for(lambda: health(base)["outbox"]["depth"] == 0, "the outbox to empty")
    report = health(base)["outbox"]
    assert report["given_up"] == 0 and report["refused"] == 0 and report["delivered"] >= learners.total


def test_sqlite_outbox_one_process_killed_while_the_store_is_down(spawn, store: FakeLrs, tmp_path: Path) -> None:
    crash_and_recover(spawn, store, f"sqlite:///{tmp_path}/outbox.sqlite3", workers=0)


def test_sqlite_outbox_two_workers_killed_while_the_store_is_down(spawn, store: FakeLrs, tmp_path: Path) -> None:
    crash_and_recover(spawn, store, f"sqlite:///{tmp_path}/outbox.sqlite3", workers=2)


def test_redis_outbox_one_server_killed_while_the_store_is_down(spawn, store: FakeLrs, redis_url: str) -> None:
    crash_and_recover(spawn, store, redis_url, workers=0)


def test_redis_outbox_shared_by_two_servers_each_killed_in_turn(spawn, store: FakeLrs, redis_url: str) -> None:
    env = settings(store, redis_url)
    store.down = True
    (a, pa), (b, pb) = spawn(env=env), spawn(env=env)
    port_a, port_b = (int(u.rsplit(":", 1)[1]) for u in (a, b))
    learners = Learners()
    learners.answer_round([a, b])
    wait_for(lambda: store.attempts >= 1, "a sender to try the store while it is down")
    kill(pa)  # the first server dies; learners go on with the second
    learners.answer_round([b])
    a, pa = spawn(port=port_a, env=env)
    kill(pb)  # then the second, while the first is back
    learners.answer_round([a])
    b, pb = spawn(port=port_b, env=env)
    learners.answer_round([a, b])
    # Both report the one shared outbox.
    assert health(a)["outbox"]["depth"] == health(b)["outbox"]["depth"] == learners.total
    store.down = False
    wait_for(lambda: len(store.ids) >= learners.total, "every statement to arrive")
    learners.check(store)
    wait_for(lambda: health(a)["outbox"]["depth"] == 0, "the outbox to empty")
    # One sender at a time: exactly one of the two servers holds the lease.
    wait_for(lambda: [health(u)["outbox"]["sending_here"] for u in (a, b)].count(True) == 1, "one sender")


# Twice, in full runs on a busy machine, Ctrl-C did not end the server: its main thread went on polling
# for connections as if no signal had come. The server now puts back SIGINT's default and unblocks it, in
# case its parent had ignored or blocked it. The test runs once more when it fails, and a hang fails with
# every thread's signal masks and stack.
@pytest.mark.flaky(reruns=1)
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_server_stopped_cleanly_hands_the_lease_over_at_once(
    spawn, store: FakeLrs, tmp_path: Path, stop: signal.Signals
) -> None:
    from lesson.portal.outbox_sqlite import SqliteStore

    env = {
        **settings(store, f"sqlite:///{tmp_path}/outbox.sqlite3"),
        "LESSON_OUTBOX_LEASE": "600",
        "PYTHONFAULTHANDLER": "1",  # SIGABRT prints every thread's stack to the server's log
    }
    store.down = True
    base, proc = spawn(env=env)
    learners = Learners()
    learners.answer_round([base])
    wait_for(lambda: store.attempts >= 1, "the sender to take the lease and try the store")
    other = SqliteStore(tmp_path / "outbox.sqlite3", 10, 1000)
    assert not other.acquire("someone-else", 1)  # the server holds it, for ten minutes
    proc.send_signal(stop)  # Ctrl-C, or a deploy's SIGTERM
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        masks = [
            line
            for task in Path(f"/proc/{proc.pid}/task").iterdir()
            for line in (task / "status").read_text().splitlines()
            if line.startswith(("SigBlk", "SigIgn", "SigCgt"))
        ]
        proc.send_signal(signal.SIGABRT)
        proc.wait(timeout=10)
        log = Path(proc.log_path).read_text()[-8000:]
        pytest.fail(f"{stop.name} did not stop the server in 20 s; its threads' signal masks {masks}; its log:\n{log}")
    assert other.acquire("someone-else", 1)  # handed back on the way out, not left to run out
    assert other.stats(time.time())["depth"] == learners.total


def test_a_server_killed_after_the_store_recorded_a_batch_sends_it_again_and_it_is_recorded_once(
    spawn, store: FakeLrs, tmp_path: Path
) -> None:
    env = settings(store, f"sqlite:///{tmp_path}/outbox.sqlite3")
    store.hold = threading.Event()  # the store records, then keeps the sender waiting for its answer
    base, proc = spawn(env=env)
    port = int(base.rsplit(":", 1)[1])
    learners = Learners()
    learners.answer_round([base])
    wait_for(lambda: len(store.ids) >= 1, "the store to record a batch")
    kill(proc)  # the store has them; the outbox does not know it
    recorded = len(store.ids)
    store.hold.set()
    store.hold = None
    spawn(port=port, env=env)
    wait_for(lambda: len(store.ids) >= learners.total, "every statement to arrive")
    learners.check(store)  # none twice, in order per learner
    assert store.conflicts >= 1 and recorded >= 1  # the recorded batch was sent again, and recognised
