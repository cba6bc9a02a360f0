"""What grading a quiz request will replay, charged to the client's replay budget before it starts:
the presses of each log it will replay, and nothing for a log it refuses before replaying it."""

from __future__ import annotations

import pytest

from lesson.playground.tasks import log_line
from lesson.web.budget import task_log_events

TASKS = {"q-task": "outage"}  # each task question's panel


@pytest.mark.parametrize(
    ("data", "question", "charged"),
    [
        ({"log": log_line("outage", "modern", None, ["call-a", "a-dies", "turn"])}, "q-task", 3),
        ({"log": log_line("outage", "modern", None, ["@legacy", "turn"])}, "q-task", 2),  # an era switch is a step
        ({"answers": {"q-task": log_line("outage", "legacy", None, ["turn"] * 4)}}, None, 4),
        ({"log": log_line("guide", "modern", None, ["turn"])}, "q-task", 0),  # another panel's log
        ({"log": log_line("outage", "modern", None, ["turn"])}, "q-choice", 0),  # no task question
        ({"log": log_line("outage", "modern", None, ["turn", "Not A Button!"])}, "q-task", 0),  # cannot be read
        ({"log": log_line("outage", "modern", None, ["turn"] * 501)}, "q-task", 0),  # over a playground's 500
        ({"log": 7}, "q-task", 0),
        ("not an object", "q-task", 0),
    ],
)
def test_only_logs_grading_will_replay_are_charged(data, question, charged: int) -> None:
    assert task_log_events(data, TASKS, question) == charged
