"""One path from a log to a run: the socket and the task grader replay a page's log the same way, so a
log one of them refuses the other refuses too, for the same reason, and a log both take leads to the
same playground."""

from __future__ import annotations

import json

import pytest

from lesson.content.course import default_root, load_panels
from lesson.content.models import Task
from lesson.playground.protocol import Log
from lesson.playground.replay import LogMismatch, checked, run_after
from lesson.playground.service import Service
from lesson.playground.tasks import TaskLogError, done


@pytest.fixture(scope="module")
def panels() -> dict:
    return load_panels(default_root())


@pytest.fixture
def service(panels) -> Service:
    return Service(panels)


def task_in(panel: str) -> Task:
    """A task on ``panel`` that no log does: what is checked is whether the log can be replayed."""
    return Task(panel=panel, when={"path": "turn.number", "at_least": 1000}, solution=["x"])


def opened(service: Service, panel: str, log: Log) -> dict:
    frame = {"v": 2, "type": "open", "panel": panel, "log": log.model_dump(exclude={"panel"})}
    return json.loads(service.handle_text(json.dumps(frame)).text)


# The handles playground speaks only the modern era, has variants and five buttons.
REFUSED = [
    (Log(era="legacy"), "fixed_era", "bad_frame"),
    (Log(era="modern", events=[("e", "legacy")], seq=1), "no_era_choice", "bad_frame"),
    (Log(era="modern", events=[("p", "create"), ("p", "teleport")], seq=2), "no_button", "unknown_button"),
    (Log(era="modern", variant="night", events=[("p", "create")], seq=1), "no_variant", "bad_frame"),
]


@pytest.mark.parametrize(("log", "why", "socket_code"), REFUSED)
def test_the_socket_and_the_grader_refuse_a_log_for_the_same_reason(panels, service, log, why, socket_code) -> None:
    with pytest.raises(LogMismatch) as mismatch:
        run_after(*checked(panels["handles"], log))
    assert mismatch.value.code == why and mismatch.value.params["panel"] == "handles"
    answer = opened(service, "handles", log)
    assert answer["type"] == "error" and answer["code"] == socket_code
    with pytest.raises(TaskLogError) as graded:
        done(task_in("handles"), panels["handles"], log)
    assert graded.value.code == why and graded.value.params == mismatch.value.params


def test_a_log_both_take_leads_to_the_playground_pressed_by_hand(panels, service) -> None:
    presses = ["call-a", "a-dies", "turn", "a-back"]
    log = Log(era="legacy", events=[("e", "modern"), *[("p", p) for p in presses]], seq=5)
    run = run_after(*checked(panels["outage"], log))
    assert [s.step for s in run.log] == list(range(6))  # the start and each event's step
    handle = opened(service, "outage", Log(era="legacy"))["handle"]
    frames = [{"type": "era", "era": "modern"}, *[{"type": "press", "button": p} for p in presses]]
    for seq, frame in enumerate(frames, 1):
        pressed = json.loads(service.handle_text(json.dumps({"v": 2, "handle": handle, "seq": seq, **frame})).text)
    replayed = opened(service, "outage", log)["view"]
    # A restored playground's answer carries its whole log, a press's answer its newest step.
    assert replayed.pop("log")[-1] == pressed["view"].pop("log")[-1]
    assert replayed == pressed["view"] and replayed["era"] == run.state.host.era == "modern"


@pytest.mark.parametrize(("log", "why", "socket_code"), REFUSED)
def test_a_log_that_does_not_fit_is_refused_before_it_is_charged(service, log, why, socket_code) -> None:
    charged: list[int] = []
    frame = {"v": 2, "type": "open", "panel": "handles", "log": log.model_dump(exclude={"panel"})}
    answer = json.loads(service.handle_text(json.dumps(frame), spend=charged.append).text)
    assert answer["code"] == socket_code and charged == []
    good = Log(era="modern", events=[("p", "create"), ("p", "add")], seq=2)
    frame["log"] = good.model_dump(exclude={"panel"})
    assert json.loads(service.handle_text(json.dumps(frame), spend=charged.append).text)["type"] == "view"
    assert charged == [2]  # a log that fits is charged its events before they are replayed
