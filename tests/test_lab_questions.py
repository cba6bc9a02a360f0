"""The restart lab's questions (``questions`` in a restart-lab panel file): a broken one is named, the
answer to each comes with the result of exactly its set-up, and the shipped answers say what the
simulation does. The page's side is tested in tests/e2e/test_restart_lab.py."""

from __future__ import annotations

import json

import pytest
import yaml
from pydantic import ValidationError

from lesson.content.course import default_root, load_panels
from lesson.content.panels import PanelModel, RestartLabPanel
from lesson.playground.service import Service

PANELS = load_panels(default_root())
PANEL = PANELS["restarts"]
assert isinstance(PANEL, RestartLabPanel)
SERVICE = Service(PANELS)  # each restart frame is answered afresh: the lab keeps nothing between them


def restarts_data() -> dict:
    return yaml.safe_load((default_root() / "panels" / "restarts.yaml").read_text())


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"situation": "asleep"}, "situation 'asleep' is not one of this lab's"),
        ({"variants": ["no-sesion"]}, "variant 'no-sesion' is not one of this lab's; did you mean 'no-session'?"),
        ({"variants": ["stdio", "stdio"]}, "duplicate variant id 'stdio'"),
        ({"variants": ["unsafe-call"]}, "variant 'unsafe-call' changes nothing while 'idle'"),
        ({"variants": ["stdio", "no-session"]}, "an HTTP server's option cannot be ticked with stdio"),
    ],
)
def test_a_broken_question_is_rejected(change: dict, words: str) -> None:
    data = restarts_data()
    data["questions"][0].update(change)
    with pytest.raises(ValidationError) as info:
        PanelModel.model_validate(data)
    assert words in str(info.value)


def test_two_questions_about_one_set_up_are_rejected() -> None:
    """A result shows the one question about its set-up: the options' order does not make another."""
    data = restarts_data()
    data["questions"] = [
        {"situation": "idle", "variants": ["durable-sessions", "no-session"], "question": "Q?", "answer": "A."},
        {"situation": "idle", "variants": ["no-session", "durable-sessions"], "question": "R?", "answer": "B."},
    ]
    with pytest.raises(ValidationError, match="duplicate question's set-up"):
        PanelModel.model_validate(data)


def restart(situation: str, *variants: str) -> dict:
    frame = {"v": 2, "type": "restart", "panel": "restarts", "situation": situation, "variants": list(variants)}
    answer = SERVICE.handle_text(json.dumps(frame)).data()
    assert answer["type"] == "restart", answer
    return answer["result"]


@pytest.mark.parametrize("q", PANEL.questions, ids=lambda q: "+".join([q.situation, *q.variants]))
def test_each_question_s_answer_comes_with_the_result_of_its_set_up(q) -> None:
    result = restart(q.situation, *q.variants)
    assert (result["question"], result["answer"]) == (q.question, q.answer)


@pytest.mark.parametrize(
    ("situation", "variants"), [("token", []), ("idle", ["stdio"]), ("idle", ["no-session", "durable-sessions"])]
)
def test_a_set_up_no_question_is_about_comes_without_one(situation: str, variants: list[str]) -> None:
    """Only the exact set-up: a question about an idle restart is not answered under one over stdio."""
    result = restart(situation, *variants)
    assert result["question"] is None and result["answer"] is None


def wire_counts(result: dict) -> dict[str, int]:
    return {s["era"]: sum(m["on_wire"] for step in s["steps"] for m in step["wire"]) for s in result["sides"]}


def methods(result: dict, era: str) -> list[str]:
    side = next(s for s in result["sides"] if s["era"] == era)
    return [(m["payload"] or {}).get("method") for step in side["steps"] for m in step["wire"]]


def test_the_shipped_answers_say_what_the_simulation_does() -> None:
    """Idle: legacy does more (a 404, then initialize); no session id: the call and its result in either era;
    a listen stream: legacy's new session, modern's new listen, each before the re-list;
    a call in flight: lost in both eras and sent again, being idempotent, after legacy's new session;
    send_alert is not idempotent: not sent again, and the model gets the host's own error."""
    assert [(q.situation, q.variants) for q in PANEL.questions] == [
        ("idle", []),
        ("idle", ["no-session"]),
        ("listen", []),
        ("in-flight", []),
        ("in-flight", ["unsafe-call"]),
    ]
    idle = restart("idle")
    assert wire_counts(idle)["legacy"] > wire_counts(idle)["modern"]
    assert "initialize" in methods(idle, "legacy") and "initialize" not in methods(idle, "modern")
    plain = restart("idle", "no-session")
    assert wire_counts(plain) == {"legacy": 2, "modern": 2}
    assert "initialize" not in methods(plain, "legacy")
    listen = restart("listen")
    for era, opens in (("legacy", "initialize"), ("modern", "subscriptions/listen")):
        said = methods(listen, era)
        assert opens in said and said.index(opens) < said.index("tools/list"), (era, said)
    lost = restart("in-flight")
    assert methods(lost, "legacy").index("initialize") < methods(lost, "legacy").index("tools/call")
    assert "initialize" not in methods(lost, "modern")
    for variants, sent_again, told in (([], ["get_forecast"], []), (["unsafe-call"], [], ["host_built"])):
        lost = restart("in-flight", *variants)
        for side in lost["sides"]:
            wire = [m for step in side["steps"] for m in step["wire"]]
            calls = [m for m in wire if m["on_wire"] and (m["payload"] or {}).get("method") == "tools/call"]
            assert [m["payload"]["params"]["name"] for m in calls] == sent_again, (side["era"], variants)
            assert [m["kind"] for m in wire if m["receiver"] == "model"] == told, (side["era"], variants)
