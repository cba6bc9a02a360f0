"""A task question must be the learner's own work: no scenario shipped for the task's playground may do
the task by itself. The page replays a scenario by pressing the panel's buttons, one "Next moment" at a
time, so every point a learner can stop at (after each step, in either era) is graded like a task log."""

from __future__ import annotations

from pathlib import Path

import pytest

from lesson.content import Task, load_content
from lesson.panels import PlaygroundPanel, load_panels
from lesson.protocol import Log
from lesson.scripts import page_scenarios
from lesson.tasks import done

CONTENT = Path(__file__).resolve().parents[1] / "content"


def _tasks() -> list[tuple[str, object]]:
    content = load_content(CONTENT)
    return [
        (f"{slug}/{q.id}", q.task)
        for slug, quiz in sorted(content.quizzes.items())
        for q in quiz.questions
        if q.task is not None
    ]


def stops(scenario: dict) -> list[list[str]]:
    """The presses made by the time each "Next moment" has been pressed."""
    out, pressed = [], []
    for step in scenario["steps"]:
        pressed = pressed + step["press"]
        out.append(pressed)
    return out


def replays(task, panels, scenarios) -> list[tuple[str, str, int]]:
    """(scenario, era, steps taken) for every point of a scenario of the task's panel that does the task."""
    panel = panels[task.panel]
    assert isinstance(panel, PlaygroundPanel)
    found = []
    for scenario in scenarios.get(task.panel, []):
        for era in ("legacy", "modern"):
            for n, pressed in enumerate(stops(scenario), 1):
                log = Log(panel=panel.id, era=era, events=[("p", b) for b in pressed], seq=len(pressed))
                if done(task, panel, log):
                    found.append((scenario["id"], era, n))
    return found


@pytest.mark.parametrize(("name", "task"), _tasks(), ids=[name for name, _ in _tasks()])
def test_no_shipped_scenario_does_a_task_for_the_learner(name: str, task) -> None:
    panels = load_panels(CONTENT)
    scenarios = page_scenarios(CONTENT)
    assert replays(task, panels, scenarios) == [], f"{name} is done by pressing Next moment in a scenario"


def test_the_check_finds_a_scenario_that_does_a_task() -> None:
    # The check can fail: a task that is exactly the outage scenario's first three steps is found.
    (_, task), *_ = [t for t in _tasks() if t[1].panel == "outage"]
    panels = load_panels(CONTENT)
    scenarios = page_scenarios(CONTENT)
    old = task.model_dump(mode="json", by_alias=True, exclude_none=True)
    old["when"] = {"path": "turn.number", "at_least": 1}
    copied = Task.model_validate(old)
    found = replays(copied, panels, scenarios)
    assert ("outage", "modern", 3) in found and ("outage", "legacy", 3) in found
