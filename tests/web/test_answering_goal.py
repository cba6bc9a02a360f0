"""The restart-while-answering playground's goal, as the service answers it: a restart that throws the
user's answer away (the user is asked again) meets it, in either era, and a later answer keeps it met;
an answer the restarted process can still verify does not. The page draws the verdict
(tests/e2e/test_answering.py)."""

from __future__ import annotations

import json

import pytest

from lesson.content.course import default_root, load_panels
from lesson.narration import sentence
from lesson.playground.service import Service

from .pageclient import PageClient


@pytest.fixture(scope="module")
def service() -> Service:
    return Service(load_panels(default_root()))


def codes(answer: dict) -> list[str]:
    return [line["code"] for line in answer["view"]["log"][-1]["lines"]]


@pytest.mark.parametrize("era, lost", [("legacy", "narration.answer_lost_404"), ("modern", None)])
def test_an_answer_after_a_restart_meets_the_goal_in_either_era(service: Service, era: str, lost) -> None:
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="answering")
    assert page.open()["goal"] == {"met": False}
    if era == "legacy":
        assert page.do("era", era="legacy")["steps"] == 1  # the switch is a step
    assert page.do("press", button="ask")["goal"] == {"met": False}
    assert page.do("press", button="restart")["goal"] == {"met": False}
    answered = page.do("press", button="answer")
    assert answered["goal"] == {"met": True} and answered["view"]["counters"]["lost_answers"] == 1
    if lost:
        assert lost in codes(answered)  # the answer went out with a session id the new process never knew
    else:
        # The modern retry carried a requestState the new process cannot verify.
        assert "-32602" in json.dumps(answered["view"]["comparison"]["this"]["wire"])
    # Asked again, answered again: the goal stays reached.
    assert page.do("press", button="answer")["goal"] == {"met": True}


def test_an_answer_the_restarted_process_can_verify_does_not_meet_the_goal(service: Service) -> None:
    """With the key outside the process, the modern retry gets through the restart: nothing is lost."""
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="answering")
    page.open()
    page.do("reset", variant="key-outside")
    for button in ("ask", "restart"):
        page.do("press", button=button)
    answered = page.do("press", button="answer")
    assert answered["goal"] == {"met": False} and answered["view"]["counters"]["lost_answers"] == 0


@pytest.mark.parametrize(
    "variant, button, finished",
    [
        ("key-in-process", "answer", False),  # the new process cannot check the state
        ("key-outside", "answer", True),  # it can: the retry finishes the call
        ("key-outside", "answer-late", False),  # it can, but the state has expired
    ],
)
def test_the_lesson_s_two_conditions_for_a_retry_after_a_restart(service: Service, variant, button, finished) -> None:
    """Lesson 5's quiz asks when the modern retry gets through: the key that protects the requestState must
    outlive the restart, and the state must not have expired. The playground lets the learner try both;
    the restart itself tells the key's fate, and only the answer tells the outcome."""
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="answering")
    page.open()
    page.do("reset", variant=variant)
    page.do("press", button="ask")
    restarted = page.do("press", button="restart")
    said = next(
        line for line in restarted["view"]["log"][-1]["lines"] if line["code"] == "narration.restarted_while_asking"
    )
    assert sentence("narration.key.durable" if variant == "key-outside" else "narration.key.lost", {}) in said["text"]
    assert "narration.request_state_rejected" not in codes(restarted)
    answered = page.do("press", button=button)
    assert ("narration.retry_verified_after_restart" in codes(answered)) is finished
    assert ("narration.request_state_rejected" in codes(answered)) is not finished
    assert ("-32602" in json.dumps(answered["view"]["comparison"]["this"]["wire"])) is not finished


@pytest.mark.parametrize("variant", ["key-in-process", "key-outside"])
def test_an_expired_answer_with_no_restart_is_no_answer_lost_to_a_restart(service: Service, variant: str) -> None:
    """The state expired while the user thought: the retry is refused, but no restart is to blame, so the
    counter of answers lost to a restart and the goal stay where they were."""
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="answering")
    page.open()
    page.do("reset", variant=variant)
    page.do("press", button="ask")
    late = page.do("press", button="answer-late")
    assert "narration.request_state_rejected" in codes(late)
    assert late["view"]["counters"]["lost_answers"] == 0 and late["goal"] == {"met": False}


def test_the_question_about_a_return_is_asked_only_while_the_server_is_down(service: Service) -> None:
    """The outage playground's question on "A is back" has a premise (A is down): each answer lists the
    buttons whose premise holds, and the page asks only those."""
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="outage")
    assert page.open()["asks"] == []
    assert page.do("press", button="turn")["asks"] == []  # A is up: no return to ask about
    assert page.do("press", button="a-dies")["asks"] == ["a-back"]
    assert page.do("press", button="turn")["asks"] == ["a-back"]
    assert page.do("press", button="a-back")["asks"] == []


def test_a_late_answer_says_so_in_its_heading(service: Service) -> None:
    """The step's heading tells the late answer from the answer in time: the learner chose the expiry."""
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="answering")
    page.open()
    page.do("press", button="ask")
    late = page.do("press", button="answer-late")["view"]["log"][-1]["label"]
    assert late["code"] == "narration.event.user_answers_late" and "W" in late["text"]
    on_time = page.do("press", button="answer")["view"]["log"][-1]["label"]  # W asked again: answered in time
    assert on_time["code"] == "narration.event.user_answers"


def test_the_question_about_adding_m_is_asked_only_before_m_is_added(service: Service) -> None:
    """The eras playground asks what M answers a legacy host's first message only while M is not in the
    config yet: once added (also in presses a storage choice brings back), there is nothing to predict."""
    page = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel="eras")
    page.open()
    assert page.do("era", era="legacy")["asks"] == ["add-m"]
    assert page.do("press", button="add-m")["asks"] == []
    assert page.open()["asks"] == []  # the same presses opened again
