"""The churn stepper's moments as the page fetches them (the lesson page names the data file; the
stepper asks for it as it nears the screen): what each moment holds in each era, by server, tool,
turn and narration code. How the stepper shows and steps through them is tested in
tests/e2e/test_stepper.py."""

from __future__ import annotations

import re

import pytest

LESSON = "/lessons/servers-come-and-go"


@pytest.fixture(scope="module")
def moments(app) -> dict[str, list[dict]]:
    client = app.test_client()
    page = client.get(LESSON).get_data(as_text=True)
    found = re.search(r"/data/\w+/churn\.json", page)
    assert found, "the lesson page names the stepper's data file"
    answer = client.get(found[0])
    assert answer.status_code == 200
    return answer.get_json()


@pytest.fixture(scope="module")
def app():
    from lesson.web import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "test"})


def row(moment: dict, name: str) -> dict | None:
    return next((r for r in moment["view"]["servers"] if r["name"] == name), None)


def codes(moment: dict) -> list[str]:
    return [line["code"] for step in moment["view"]["log"] for line in step["lines"]]


def seen(moment: dict) -> list[tuple[str, str]]:
    return [(t["name"], t["server"]) for t in moment["view"]["turn"]["tools_seen"]]


def test_a_moment_for_each_step_of_its_scenario_in_each_era(moments) -> None:
    from lesson.content.course import default_root
    from tests.scenarios import load_scenarios

    steps = load_scenarios(default_root())["churn"].steps
    assert set(moments) == {"modern", "legacy"}
    for era, said in moments.items():
        assert [m["number"] for m in said] == list(range(1, len(steps) + 1)), era
        assert [m["title"] for m in said] == [m["title"] for m in moments["modern"]]


def test_the_modern_moments(moments) -> None:
    m1, m2, m3, m4, m5, m6 = moments["modern"]
    # 1: A and B; the model's first turn sees their four tools.
    assert [r["name"] for r in m1["view"]["servers"]] == ["A", "B"]
    assert len(seen(m1)) == 4
    # 2: B deploys close_ticket and says so; the model has not seen it yet.
    assert "close_ticket" in row(m2, "B")["tools"]
    assert "close_ticket" in [t["name"] for t in m2["view"]["next_prompt"]["tools"]]
    assert m2["view"]["turn"] is None
    assert "narration.list_changed_relisted" in codes(m2)
    # 3: the next turn has close_ticket, the only new tool, and the model uses it.
    assert [(t["name"], t["server"]) for t in m3["view"]["turn"]["new_tools"]] == [("close_ticket", "B")]
    assert ("close_ticket", "B") in [(c["tool"], c["server"]) for c in m3["view"]["turn"]["calls"]]
    # 4: an admin adds C; the turn sees C's tools.
    assert row(m4, "C") is not None and "narration.server_added" in codes(m4)
    assert {("find_slot", "C"), ("book_meeting", "C")} <= set(seen(m4))
    # 5: A is down; the model no longer sees A's tools and gets a host-made error.
    assert (row(m5, "A")["status"], row(m5, "B")["status"]) == ("down", "connected")
    assert len(seen(m5)) == 5 and "search_docs" not in [t for t, _ in seen(m5)]
    assert [c["host_made"] for c in m5["view"]["turn"]["calls"] if c["server"] == "A"] == [True]
    assert "narration.model_called_gone_tool" in codes(m5)  # a tool of an earlier turn
    # 6: A is back; modern costs a re-listen, not a new session; A's tools are new to the model again.
    assert row(m6, "A")["status"] == "connected"
    assert row(m6, "A")["listen"]["code"] in ("narration.table.listen.acknowledged", "narration.table.listen.waiting")
    assert "narration.back_modern" in codes(m6) and "narration.back_session_unknown" not in codes(m6)
    assert ("search_docs", "A") in [(t["name"], t["server"]) for t in m6["view"]["turn"]["new_tools"]]


def test_the_legacy_moments(moments) -> None:
    m1, *_, m5, m6 = moments["legacy"]
    assert row(m1, "A")["era"] == "legacy"
    assert row(m1, "A")["listen"]["code"] == "narration.table.listen.session"
    assert row(m5, "A")["status"] == "down"
    # 6: the new process has never heard of the old session: 404, then a new initialize.
    assert "narration.back_session_unknown" in codes(m6) and "narration.back_modern" not in codes(m6)
    assert all("subscriptions/listen" not in line["text"] for s in m6["view"]["log"] for line in s["lines"])


def test_a_moments_last_change_names_a_moment_not_a_step(moments) -> None:
    """A moment may hold several steps of the log; the stepper counts moments only, so the table's "last
    change" names the moment a change came in: this one, when this moment's steps made it, else one before."""
    for era, said in moments.items():
        for moment in said:
            for r in moment["view"]["servers"]:
                if r["last_change"]["code"] == "narration.table.change_at_start":
                    continue  # connected at the start, before any step
                assert r["last_change"]["code"] == "narration.table.change_in_moment"
                came = int(re.search(r"\d+", r["last_change"]["text"])[0])
                assert 1 <= came <= moment["number"], (era, moment["number"], r["name"])
    # A dies in moment 5, whose log holds two steps (6 and 7): the table says moment 5.
    a = row(moments["modern"][4], "A")
    assert a["status"] == "down" and re.search(r"\d+", a["last_change"]["text"])[0] == "5"
    assert [s["step"] for s in moments["modern"][4]["view"]["log"]] == [6, 7]
    assert re.search(r"\d+", row(moments["modern"][5], "A")["last_change"]["text"])[0] == "6"
