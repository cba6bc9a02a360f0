"""`lesson outbox`: an operator lists what waits and what was set aside, puts items back in line,
has a waiting destination tried now, and drops items; on both stores, with the served app's settings."""

from __future__ import annotations

import json

import pytest

from lesson.cli import main
from lesson.portal import outbox
from lesson.portal.outbox import Item


def test_list_retry_and_drop(make_box, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    box = make_box(OUTBOX_RETRY_INITIAL=600, OUTBOX_RETRY_MAX=600)
    monkeypatch.setenv("LESSON_OUTBOX_URL", box.store.url)

    def send(items: list[Item]) -> outbox.SendOutcome:
        if items[0].destination == "down":
            return outbox.retry("HTTP 503")
        return outbox.give_up("HTTP 401: bad credentials") if items[0].payload["n"] == 1 else outbox.DELIVERED

    box.register("xapi", send)
    box.put_many("xapi", "lrs", [{"n": 0}, {"n": 1}, {"n": 2}])
    box.put("lti-score", "down", {"n": 3})
    box.register("lti-score", send)
    for _ in range(4):
        box.run_once()
    (waiting,) = box.store.pending(10)
    (aside,) = box.store.dead(10)

    assert main(["outbox", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1 waiting") and "1 set aside" in out[0]
    assert out[1].split("\t")[:3] == [str(waiting.id), "lti-score", "down"] and "HTTP 503" in out[1]

    assert main(["outbox", "list", "--dead", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    listed = json.loads(line)
    assert listed["payload"] == {"n": 1} and listed["reason"] == "HTTP 401: bad credentials"

    assert main(["outbox", "retry", str(aside.id), str(waiting.id)]) == 0
    assert [i.id for i in box.store.pending(10)] == sorted([aside.id, waiting.id])
    assert box.store.dead(10) == [] and box.store.due(0 + 1e12, 10) == ["down", "lrs"]
    assert "back in line" in capsys.readouterr().out

    assert main(["outbox", "drop", str(waiting.id), "999999"]) == 1
    captured = capsys.readouterr()
    assert f"{waiting.id}: dropped" in captured.out and "no such item: 999999" in captured.err
    assert [i.id for i in box.store.pending(10)] == [aside.id]
    assert box.stats()["delivered"] == 2  # n=0 and n=2: dropping is not delivering


def test_retry_all_and_drop_all_set_aside(make_box, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    box = make_box()
    monkeypatch.setenv("LESSON_OUTBOX_URL", box.store.url)
    box.register("t", lambda items: outbox.give_up("HTTP 400"))
    box.put_many("t", "d", [{"n": 0}, {"n": 1}])
    for _ in range(3):
        box.run_once()
    assert len(box.store.dead(10)) == 2
    assert main(["outbox", "retry", "--all"]) == 0
    assert box.stats()["depth"] == 2
    for _ in range(3):
        box.run_once()
    assert main(["outbox", "drop", "--all-dead"]) == 0
    assert box.stats()["set_aside"] == 0 and box.stats()["depth"] == 0


def test_bad_use_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["outbox", "retry"])
    assert exit_.value.code == 2 and "give item ids, or --all" in capsys.readouterr().err
    monkeypatch.setenv("LESSON_OUTBOX_URL", "mysql://db/x")
    assert main(["outbox", "list"]) == 2
    assert "OUTBOX_URL='mysql://db/x'" in capsys.readouterr().err
