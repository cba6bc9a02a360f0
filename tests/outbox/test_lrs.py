"""xAPI statements through the outbox to a tiny record store on 127.0.0.1 that fails, refuses, and
recovers: in order, each recorded once, the one it refuses set aside with its reason."""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path

import pytest

from lesson.portal import lrs, outbox
from tests import statements
from tests.outbox.fakelrs import FakeLrs

LESSON = "https://lab.example/lessons/an-outage"
ACTOR = statements.anonymous_actor("https://lab.example", "visit-1")


def forwarder(store: FakeLrs, tmp_path: Path, **settings: object) -> lrs.Lrs:
    box = outbox.from_settings(
        {"OUTBOX_URL": f"sqlite:///{tmp_path}/o.db", "OUTBOX_RETRY_INITIAL": 0.01, "OUTBOX_RETRY_MAX": 0.05}, tmp_path
    )
    values = {"LRS_ENDPOINT": store.url, "LRS_USERNAME": "lesson", "LRS_PASSWORD": "s3cret", **settings}
    made = lrs.from_settings(values, box)
    assert made is not None
    return made


def answers(n: int) -> list[dict]:
    return [statements.answered(ACTOR, LESSON, f"q{i}", "b", True).to_json() for i in range(n)]


def deliver(f: lrs.Lrs) -> None:
    f.start()
    try:
        assert statements.drained(f, 20)
    finally:
        f.outbox.stop()


def test_off_unless_an_endpoint_is_configured(tmp_path: Path) -> None:
    box = outbox.from_settings({"OUTBOX_URL": f"sqlite:///{tmp_path}/o.db"}, tmp_path)
    assert lrs.from_settings({}, box) is None
    assert lrs.from_settings({"LRS_ENDPOINT": ""}, box) is None
    made = lrs.from_settings(
        {"LRS_ENDPOINT": "https://lrs.example/xapi", "LRS_USERNAME": "u", "LRS_PASSWORD": "hunter2"}, box
    )
    assert made is not None and "xapi" in box.kinds
    assert "hunter2" not in repr(made.config)  # the password stays out of logs


def test_statements_arrive_in_order_after_the_store_recovers(store: FakeLrs, tmp_path: Path) -> None:
    store.fail_next = 3
    f = forwarder(store, tmp_path)
    sent = answers(5)
    assert f.submit_many(sent[:2]) == 2 and f.submit_many(sent[2:3]) == 1 and f.submit_many(sent[3:]) == 2
    deliver(f)
    assert store.received == sent  # in order, each once
    assert store.attempts == 4  # three 503s, then one batch
    stats = f.outbox.stats()
    assert stats["delivered"] == 5 and stats["depth"] == 0
    auth = "Basic " + base64.b64encode(b"lesson:s3cret").decode()
    assert all(h["authorization"] == auth for h in store.headers)
    assert all(h["x-experience-api-version"] == "1.0.3" for h in store.headers)


def test_a_statement_the_store_refuses_is_set_aside_and_the_rest_go_through(store: FakeLrs, tmp_path: Path) -> None:
    store.refuse_response = "bad"
    f = forwarder(store, tmp_path)
    good = answers(3)
    bad = statements.answered(ACTOR, LESSON, "q9", "bad", False).to_json()
    f.submit_many([good[0], bad, good[1], good[2]])
    deliver(f)
    assert store.received == good
    (aside,) = f.outbox.store.dead(10)
    assert aside.payload["id"] == bad["id"] and aside.reason.startswith("HTTP 400")
    assert f.outbox.stats()["given_up"] == 1


def test_a_statement_without_an_id_gets_one_so_a_resend_is_recorded_once(store: FakeLrs, tmp_path: Path) -> None:
    f = forwarder(store, tmp_path)
    plain = {k: v for k, v in answers(1)[0].items() if k != "id"}
    f.submit_many([plain])
    (item,) = f.outbox.store.pending(10)
    assert re.fullmatch(r"[0-9a-f-]{36}", item.payload["id"])
    deliver(f)
    assert store.ids == [item.payload["id"]]


def test_a_batch_holding_a_statement_the_store_has_is_sent_again_one_by_one(store: FakeLrs, tmp_path: Path) -> None:
    # As after a crash between the store's answer and the outbox's removal: the first is recorded.
    sent = answers(4)
    store.received.append(sent[0])
    f = forwarder(store, tmp_path)
    f.submit_many(sent)
    deliver(f)
    assert store.ids == [s["id"] for s in sent]  # none twice, none lost, in order
    assert store.conflicts == 2  # the batch, then the first alone (409 for one statement: it is there)


def test_a_store_that_asks_to_wait_is_not_asked_again_before(store: FakeLrs, tmp_path: Path) -> None:
    store.down, store.retry_after = True, "120"
    f = forwarder(store, tmp_path)
    f.outbox.retry_max = 600
    f.submit_many(answers(1))
    before = time.time()
    f.outbox.run_once()
    assert store.attempts == 1
    assert f.outbox.store.next_due() >= before + 120
    f.outbox.run_once()
    assert store.attempts == 1


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"LRS_ENDPOINT": "ftp://lrs.example"}, "http(s) URL"),
        ({"LRS_ENDPOINT": "https://u:p@lrs.example/xapi"}, "must not carry credentials"),
        ({"LRS_ENDPOINT": "https://lrs.example/xapi", "LRS_USERNAME": "u"}, "both LRS_USERNAME and LRS_PASSWORD"),
    ],
)
def test_bad_settings_are_refused(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        lrs.from_settings(settings)
