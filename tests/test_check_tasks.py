"""``lesson check`` on task questions: each finding names the quiz file and the line of the task's field
at fault. Each test adds one task question to a copy of the fixture content."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lesson.content.check import check

from .facts import says

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"
GOOD = """  - id: task
    prompt: "Take A out of the next prompt, then take a turn."
    task:
      panel: lights
      earlier: {path: "servers[name=A].status", equals: down}
      when: {path: turn.number, at_least: 1}
      solution: [kill, turn]
    hint: "Kill A first."
    explanation: "A dead server's tools leave the prompt."
    see: "#try-it"
"""


def with_task(tmp_path: Path, text: str, extra_panel: str | None = None) -> tuple[Path, list[str]]:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    quiz = root / "quizzes" / "first.yaml"
    quiz.write_text(quiz.read_text() + text)
    if extra_panel:
        (root / "panels" / "extra.yaml").write_text(extra_panel)
    return quiz, [str(p) for p in check(root).problems]


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_good_task_passes(tmp_path: Path) -> None:
    _quiz, problems = with_task(tmp_path, GOOD)
    assert problems == []


def test_unknown_panel(tmp_path: Path) -> None:
    quiz, problems = with_task(tmp_path, GOOD.replace("panel: lights", "panel: ghost"))
    (found,) = problems
    assert found.startswith(f"{quiz}:{line_of(quiz, 'panel: ghost')}: ")
    says(found, "'task'", "'ghost'", "lab, lights, story")


def test_panel_that_is_not_a_playground(tmp_path: Path) -> None:
    quiz, problems = with_task(tmp_path, GOOD.replace("panel: lights", "panel: story"))
    (found,) = problems
    assert found.startswith(f"{quiz}:{line_of(quiz, 'panel: story')}: ")
    says(found, "'story'", "stepper", "playground")


def test_playground_the_lesson_does_not_show(tmp_path: Path) -> None:
    extra = (
        "id: extra\nkind: playground\ntitle: Extra\nstart: {name: outage}\n"
        "buttons: [{id: kill, label: K, event: {kind: server_dies, server: A}}, "
        "{id: turn, label: T, event: {kind: take_turn}}]\n"
    )
    quiz, problems = with_task(tmp_path, GOOD.replace("panel: lights", "panel: extra"), extra)
    (found,) = problems
    assert found.startswith(f"{quiz}:{line_of(quiz, 'panel: extra')}: ")
    says(found, "'task'", "lesson 'first'", "'extra'")


def test_condition_path_that_names_nothing(tmp_path: Path) -> None:
    quiz, problems = with_task(tmp_path, GOOD.replace("path: turn.number", "path: turn.count"))
    (found,) = [p for p in problems if p.startswith(str(quiz))]  # the lesson's link to the quiz breaks too
    assert found.startswith(f"{quiz}:{line_of(quiz, 'turn.count')}: ")
    assert "no 'count' here" in found


def test_task_done_before_anything_is_pressed(tmp_path: Path) -> None:
    text = GOOD.replace('      earlier: {path: "servers[name=A].status", equals: down}\n', "").replace(
        "when: {path: turn.number, at_least: 1}", "when: {path: counters.conversation, at_least: 1}"
    )
    quiz, problems = with_task(tmp_path, text)
    (found,) = problems
    assert found.startswith(f"{quiz}:{line_of(quiz, 'when:')}: ")
    says(found, "'task'", "already done")


def test_solution_that_does_not_do_the_task(tmp_path: Path) -> None:
    quiz, problems = with_task(tmp_path, GOOD.replace("solution: [kill, turn]", "solution: [turn, kill]"))
    (found,) = problems
    assert found.startswith(f"{quiz}:{line_of(quiz, 'solution:')}: ")
    says(found, "'task'", "do not do the task", "'earlier'", "last press")


@pytest.mark.parametrize(
    ("solution", "facts"),
    [
        ("[turn]", ["'earlier'", "servers[name=A].status is 'connected'"]),  # A never went down
        ("[kill, revive]", ["'when'", "after press 1", "turn.number is None"]),  # no turn after A went down
    ],
)
def test_a_solution_that_falls_short_says_where_and_what_the_view_shows(
    tmp_path: Path, solution: str, facts: list[str]
) -> None:
    _quiz, problems = with_task(tmp_path, GOOD.replace("solution: [kill, turn]", f"solution: {solution}"))
    (found,) = problems
    says(found, "do not do the task", *facts)


def test_solution_pressing_a_button_the_panel_lacks(tmp_path: Path) -> None:
    quiz, problems = with_task(tmp_path, GOOD.replace("solution: [kill, turn]", "solution: [kill, jump]"))
    (found,) = problems
    assert found.startswith(f"{quiz}:{line_of(quiz, 'solution:')}: ")
    says(found, "'task'", "'lights'", "'jump'")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('    hint: "Kill A first."\n', "", "a task question needs a hint"),
        ('    hint: "Kill A first."\n', '    hint: "K."\n    answer: a\n', "has no choices and no answer"),
    ],
)
def test_a_task_question_is_a_task_and_nothing_else(tmp_path: Path, old: str, new: str, says: str) -> None:
    quiz, problems = with_task(tmp_path, GOOD.replace(old, new))
    (found,) = [p for p in problems if p.startswith(str(quiz))]
    assert found.startswith(f"{quiz}:{line_of(quiz, '- id: task')}: ")
    assert says in found


def test_a_condition_may_name_a_field_of_a_wire_item() -> None:
    from lesson.content.goals import path_problem

    # Wire items are a tagged union: a field of any kind of item may be named, and only those.
    assert path_problem("wire[*].kind") is None
    assert path_problem("wire[kind=host_built].sender") is None
    assert "no 'colour' here" in (path_problem("wire[*].colour") or "")


def test_a_task_that_a_scenario_does_by_itself_is_reported(tmp_path: Path) -> None:
    """The page replays a scenario one "Next moment" at a time: a task one of its moments does would be done
    for the learner (the fixture's own story has an event step, so the page does not offer it)."""
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    (root / "scenarios" / "walk.yaml").write_text(
        "id: walk\ntitle: Walk\npanel: lights\nsteps:\n"
        "  - {press: kill, narration: A dies.}\n  - {press: turn, narration: A turn.}\n"
    )
    quiz = root / "quizzes" / "first.yaml"
    quiz.write_text(quiz.read_text() + GOOD)
    (found,) = [str(p) for p in check(root).problems]
    assert found.startswith(f"{quiz}:{line_of(quiz, 'when: {path: turn.number')}: ")
    says(found, "'task'", "scenario 'walk'", "moment 2")
    # A task the scenario does not do passes: here, nine presses, more than the scenario makes.
    quiz.write_text(
        quiz.read_text().replace("when: {path: turn.number, at_least: 1}", "when: {path: step, at_least: 9}")
    )
    quiz.write_text(
        quiz.read_text().replace(
            "solution: [kill, turn]", "solution: [kill, revive, kill, revive, kill, revive, kill, revive, turn]"
        )
    )
    assert [str(p) for p in check(root).problems] == []
