"""The outbox on both stores (SQLite, and a real Redis server): order per destination, retries
with backoff, refusals set aside with their reason, bounds that refuse without waiting, one sender
at a time, and the figures /healthz reports. Senders here are plain functions; the sender loop is
driven pass by pass (``run_once``), so nothing waits on a clock but the backoff itself."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from lesson.portal import outbox, outbox_sqlite
from lesson.portal.outbox import Item, Outbox


class Recorder:
    """A sender that records what it was handed and answers as told, per payload ``n``."""

    def __init__(self, fail_first: dict[str, int] | None = None, refuse: set[int] | None = None) -> None:
        self.fail_first = dict(fail_first or {})  # destination -> how many sends answer retry
        self.refuse = refuse or set()
        self.delivered: list[tuple[str, int]] = []
        self.batches: list[list[int]] = []

    def __call__(self, items: list[Item]) -> outbox.SendOutcome | list[outbox.SendOutcome]:
        self.batches.append([i.payload["n"] for i in items])
        dest = items[0].destination
        if self.fail_first.get(dest, 0) > 0:
            self.fail_first[dest] -= 1
            return outbox.retry("HTTP 503")
        out = []
        for i in items:
            if i.payload["n"] in self.refuse:
                out.append(outbox.give_up(f"HTTP 400: item {i.payload['n']} is malformed"))
            else:
                self.delivered.append((i.destination, i.payload["n"]))
                out.append(outbox.DELIVERED)
        return out


def drain(box: Outbox, until: Callable[[], bool], passes: int = 2000) -> None:
    """Run the sender pass by pass until ``until()``, sleeping only the pauses it asks for."""
    for _ in range(passes):
        if until():
            return
        pause = box.run_once()
        if pause:
            time.sleep(min(pause, 0.05))
    raise AssertionError(f"not done after {passes} passes: {box.stats()}")


def test_items_leave_in_order_per_destination_and_only_once_accepted(make_box) -> None:
    box = make_box()
    sender = Recorder(fail_first={"a": 3})
    box.register("t", sender, batch=2)
    for n in range(10):
        assert box.put("t", "ab"[n % 2], {"n": n})
    box.run_once()
    # "a" is down: nothing of it left the outbox; "b" went on without waiting for it.
    assert [n for d, n in sender.delivered if d == "a"] == []
    assert {i.payload["n"] for i in box.store.pending(100)} >= {0, 2, 4, 6, 8}
    assert box.stats()["destinations_waiting"] == 1
    drain(box, lambda: box.stats()["depth"] == 0)
    assert [n for d, n in sender.delivered if d == "a"] == [0, 2, 4, 6, 8]
    assert [n for d, n in sender.delivered if d == "b"] == [1, 3, 5, 7, 9]
    assert all(len(b) <= 2 for b in sender.batches)
    stats = box.stats()
    assert stats["delivered"] == 10 and stats["destinations_waiting"] == 0 and stats["oldest_age"] is None


def test_a_refused_item_is_set_aside_with_its_reason_and_can_be_put_back(make_box) -> None:
    box = make_box()
    sender = Recorder(refuse={2})
    box.register("t", sender, batch=1)
    assert box.put_many("t", "d", [{"n": n} for n in range(4)]) == 4
    drain(box, lambda: box.stats()["depth"] == 0)
    assert sender.delivered == [("d", 0), ("d", 1), ("d", 3)]
    stats = box.stats()
    assert stats["given_up"] == 1 and stats["set_aside"] == 1
    (dead,) = box.store.dead(10)
    assert dead.payload == {"n": 2} and "HTTP 400" in dead.reason and "malformed" in dead.reason
    # The destination fixed its side: the item goes back in line and is sent.
    sender.refuse.clear()
    assert box.store.requeue([dead.id]) == 1
    drain(box, lambda: box.stats()["depth"] == 0)
    assert sender.delivered[-1] == ("d", 2)
    assert box.stats()["set_aside"] == 0 and box.stats()["given_up"] == 1  # the count of ever given up stays


def test_dropping_removes_pending_and_set_aside_items(make_box) -> None:
    box = make_box()
    box.register("t", Recorder(refuse={0}), batch=1)
    box.put_many("t", "d", [{"n": 0}, {"n": 1}, {"n": 2}])
    box.run_once()  # n=0 is refused and set aside
    dead = box.store.dead(10)
    pending = box.store.pending(10)
    assert [i.payload["n"] for i in dead] == [0]
    assert box.store.drop_dead([dead[0].id]) == 1
    assert box.store.remove([pending[0].id], delivered=False) == 1
    stats = box.stats()
    assert stats["depth"] == len(pending) - 1 and stats["set_aside"] == 0 and stats["delivered"] == 0


def test_a_full_outbox_refuses_new_items_counts_them_and_keeps_the_rest(make_box) -> None:
    box = make_box(OUTBOX_MAX_ITEMS=3)
    assert box.put_many("t", "d", [{"n": 0}, {"n": 1}]) == 2
    assert box.put_many("t", "d", [{"n": 2}, {"n": 3}]) == 0  # all or none
    assert box.put("t", "d", {"n": 2})
    assert not box.put("t", "d", {"n": 4})
    stats = box.stats()
    assert stats["depth"] == 3 and stats["refused"] == 3
    assert [i.payload["n"] for i in box.store.pending(10)] == [0, 1, 2]

    small = make_box(OUTBOX_MAX_BYTES=40)  # the same store, with a bound by bytes this time
    assert not small.put("t", "d", {"text": "x" * 100})
    assert small.stats()["refused"] == 4


def test_one_sender_at_a_time_and_another_takes_over_when_its_lease_runs_out(make_box) -> None:
    first, second = make_box(OUTBOX_LEASE=2), make_box(OUTBOX_LEASE=2)
    a, b = Recorder(), Recorder()
    first.register("t", a)
    second.register("t", b)
    first.put("t", "d", {"n": 0})
    first.run_once()
    second.put("t", "d", {"n": 1})
    second.run_once()  # the first holds the lease: the second sends nothing
    assert a.delivered == [("d", 0)] and b.delivered == []
    assert first.stats()["sending_here"] and not second.stats()["sending_here"]
    # The first process dies without a word; once its lease has run out the second sends.
    drain(second, lambda: b.delivered == [("d", 1)])
    assert a.delivered == [("d", 0)]
    first.put("t", "d", {"n": 2})
    first.run_once()  # now the second holds the lease
    assert a.delivered == [("d", 0)]
    second.stop()  # a clean stop hands the lease back at once
    first.run_once()
    assert a.delivered == [("d", 0), ("d", 2)]


def test_a_sender_that_raises_or_miscounts_is_retried(make_box) -> None:
    box = make_box()
    calls = []

    def flaky(items: list[Item]) -> list[outbox.SendOutcome]:
        calls.append(len(items))
        if len(calls) == 1:
            raise ConnectionResetError("reset by peer")
        if len(calls) == 2:
            return []  # wrong number of outcomes
        return [outbox.DELIVERED] * len(items)

    box.register("t", flaky, batch=5)
    box.put_many("t", "d", [{"n": 0}, {"n": 1}])
    drain(box, lambda: box.stats()["depth"] == 0)
    assert calls == [2, 2, 2]
    assert box.stats()["delivered"] == 2


def test_a_destination_that_asks_to_wait_is_left_alone_until_then(make_box) -> None:
    box = make_box(OUTBOX_RETRY_MAX=3600)
    box.register("t", lambda items: outbox.retry("HTTP 429", after=600))
    box.put("t", "d", {"n": 0})
    before = time.time()
    box.run_once()
    assert box.store.next_due() >= before + 600
    assert box.store.due(time.time(), 10) == []
    (item,) = box.store.pending(1)
    assert item.attempts == 1 and item.reason == "HTTP 429"
    assert box.store.retry_now([item.id]) == 1  # an operator's `lesson outbox retry`
    assert box.store.due(time.time(), 10) == ["d"]


def test_kinds_share_a_destination_in_order_each_with_its_sender(make_box) -> None:
    box = make_box()
    seen: list[tuple[str, int]] = []

    def sender(kind: str):
        def send(items: list[Item]) -> outbox.SendOutcome:
            seen.extend((kind, i.payload["n"]) for i in items)
            return outbox.DELIVERED

        return send

    box.register("xapi", sender("xapi"), batch=10)
    box.register("lti-score", sender("lti-score"), batch=1)
    box.put_many("xapi", "d", [{"n": 0}, {"n": 1}])
    box.put("lti-score", "d", {"n": 2})
    box.put("xapi", "d", {"n": 3})
    drain(box, lambda: box.stats()["depth"] == 0)
    assert seen == [("xapi", 0), ("xapi", 1), ("lti-score", 2), ("xapi", 3)]


def test_the_sender_thread_delivers_what_any_process_put(make_box) -> None:
    box, other = make_box(), make_box()
    sender = Recorder()
    box.register("t", sender)
    box.start()
    other.put_many("t", "d", [{"n": n} for n in range(5)])  # another process's put: seen by polling
    deadline = time.monotonic() + 20
    while box.stats()["depth"] and time.monotonic() < deadline:
        time.sleep(0.02)
    box.stop()
    assert sender.delivered == [("d", n) for n in range(5)]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://x", "use sqlite:///path or redis://"),
        ("sqlite://host/x.db", "sqlite:////abs/path.db"),
        ("redis://", "needs a host"),
    ],
)
def test_a_bad_url_is_named(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        outbox.check_url(url)


def test_an_unreachable_redis_refuses_at_once_and_says_so(tmp_path) -> None:
    from tests.ports import free_port

    box = outbox.from_settings({"OUTBOX_URL": f"redis://127.0.0.1:{free_port()}/0"}, tmp_path)
    assert box.put("t", "d", {"n": 0}) is False
    stats = box.stats()
    assert stats["unavailable"] == 1 and "unreachable" in stats["error"]


def test_an_item_is_on_disk_before_put_returns(tmp_path) -> None:
    box = outbox.from_settings({"OUTBOX_URL": f"sqlite:///{tmp_path}/o.db"}, tmp_path)
    box.put("t", "d", {"n": 0})
    # Another connection (another process would do the same) sees it: it is committed.
    other = outbox_sqlite.SqliteStore(tmp_path / "o.db", 10, 1000)
    assert [i.payload for i in other.pending(10)] == [{"n": 0}]


def test_items_of_a_kind_with_no_sender_here_wait_for_a_process_that_has_one(make_box) -> None:
    bare, full = make_box(OUTBOX_RETRY_MAX=600), make_box()
    bare.put("lti-score", "d", {"n": 0})
    bare.run_once()  # holds the lease but cannot send this kind: it waits, kept, not dropped
    assert bare.stats()["depth"] == 1 and bare.store.due(time.time(), 10) == []
    bare.stop()
    sender = Recorder()
    full.register("lti-score", sender)
    full.store.retry_now(None)
    full.run_once()
    assert sender.delivered == [("d", 0)]
