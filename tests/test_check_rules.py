"""The rules the course holds its content to beyond validity live in ``lesson check``, each reported at its
file and line: balanced choices, goals that are challenges, and the quick check closing its lesson. Each is
tried here on a copy of the fixture content."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lesson.content.check import check

from .facts import says

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "content")
    return tmp_path / "content"


def edit(path: Path, old: str, new: str) -> int:
    """Replace ``old`` (once) and return the 1-based line where it started."""
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))
    return text[: text.index(old)].count("\n") + 1


def found(root: Path) -> list[str]:
    return [str(p) for p in check(root).problems]


def test_the_fixture_keeps_every_rule(root: Path) -> None:
    assert found(root) == []


# One edit that breaks one rule: (the file, the text it replaces, the new text, what the report names).
ONE_RULE_BROKEN = [
    pytest.param(
        "quizzes/first.yaml",
        '{id: b, text: "Choice one B"}',
        '{id: b, text: "Choice one B!!"}',
        ["'one'", "right choice"],
        id="a-right-choice-that-is-the-longest",
    ),
    pytest.param(
        "quizzes/first.yaml",
        '{id: c, text: "Choice two C"}',
        '{id: c, text: "C"}',
        ["'two'", "70%"],
        id="choices-of-very-different-lengths-at-the-shortest",
    ),
    pytest.param(
        "quizzes/first.yaml",
        "Fixture explanation two. The others are wrong.",
        "Fixture explanation two.",
        ["'two'", "1 sentence", "3 choices"],
        id="an-explanation-that-covers-only-the-right-choice",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "facts"), ONE_RULE_BROKEN)
def test_a_broken_rule_is_reported_at_its_line(root: Path, file: str, old: str, new: str, facts: list[str]) -> None:
    path = root / file
    line = edit(path, old, new)
    (problem,) = found(root)
    assert problem.startswith(f"{path}:{line}: ")
    says(problem, *facts)


def extra_questions(answers: list[str]) -> str:
    """Two-choice questions for the fixture's quiz, one for each right answer given."""
    return "".join(
        f"""  - id: extra-{n}
    prompt: "Fixture question extra {n}?"
    choices:
      - {{id: a, text: "Choice extra A"}}
      - {{id: b, text: "Choice extra B"}}
    answer: {answer}
    explanation: "Fixture explanation. The other is wrong."
    see: "#start-here"
"""
        for n, answer in enumerate(answers)
    )


def test_right_choices_mostly_in_one_place_are_reported(root: Path) -> None:
    """Always picking the second choice must not pass the course's quick checks: a place holding the right
    choice in most questions is reported at the first question it is right in."""
    from lesson.content.limits import RIGHT_PLACE_FROM

    quiz = root / "quizzes" / "first.yaml"
    fixture = quiz.read_text()  # two questions: the right choice second, then first
    quiz.write_text(fixture + extra_questions(["b"] * RIGHT_PLACE_FROM))
    (problem,) = found(root)
    line = fixture.splitlines().index('      - {id: b, text: "Choice one B"}') + 1
    assert problem.startswith(f"{quiz}:{line}: ")
    says(problem, "choice 2", f"{RIGHT_PLACE_FROM + 1} of", f"{RIGHT_PLACE_FROM + 2}")
    # Three of them right in the first place: the second holds half, which is allowed.
    quiz.write_text(fixture + extra_questions(["a"] * 3 + ["b"] * (RIGHT_PLACE_FROM - 3)))
    assert found(root) == []


def test_a_walk_through_moment_that_says_too_much_is_reported(root: Path) -> None:
    """A moment is read in a bar beside the changes it explains: a long one covers them on a phone."""
    from lesson.content.limits import MAX_NARRATION_WORDS

    script = root / "scenarios" / "story.yaml"
    long = " ".join(["word"] * (MAX_NARRATION_WORDS + 1))
    line = edit(script, '"Fixture narration two."', f'"{long}"')
    (problem,) = found(root)
    assert problem.startswith(f"{script}:{line}: ")
    says(problem, f"at most {MAX_NARRATION_WORDS} words", f"{MAX_NARRATION_WORDS + 1}")


def at(problems: list[str], path: Path, line: int) -> str:
    """The problems reported at ``path``'s ``line``, one a line."""
    return "\n".join(p for p in problems if p.startswith(f"{path}:{line}: "))


def test_a_goal_or_an_early_hint_that_quotes_a_button_is_reported(root: Path) -> None:
    panel = root / "panels" / "lights.yaml"
    goal = edit(panel, 'text: "Take A\'s tools out of the prompt."', 'text: "Press Fixture kill A."')
    hint = edit(panel, 'hints: ["Kill A."]', 'hints: [\'Press "Fixture revive A".\', "Kill A."]')
    label = edit(panel, 'label: "Fixture turn"', 'label: "Fixture turn (the answer)"')
    problems = found(root)
    says(at(problems, panel, goal), "goal", "'Fixture kill A'")
    says(at(problems, panel, hint), "hint 1", "'Fixture revive A'")
    says(at(problems, panel, label), "button 'turn'", "brackets")


def test_the_last_hint_may_give_the_solution(root: Path) -> None:
    panel = root / "panels" / "lights.yaml"
    edit(panel, 'hints: ["Kill A."]', 'hints: ["Think about A.", \'Press "Fixture kill A".\']')
    assert found(root) == []


def test_a_panel_after_the_quick_check_is_reported(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    edit(lesson, "::: lights\n", "")
    lesson.write_text(lesson.read_text() + "\n## Later\n\n::: lights\n")
    line = len(lesson.read_text().splitlines())
    (problem,) = [p for p in found(root) if "quick check" in p]
    assert problem.startswith(f"{lesson}:{line}: ")
    says(problem, "'lights'")


def test_a_prediction_whose_premise_names_an_unknown_server_is_reported(root: Path) -> None:
    """A prediction's premise (`when`) is checked as a goal is: a server the start does not have is named."""
    panel = root / "panels" / "lights.yaml"
    question = (
        'predictions:\n  - button: revive\n    when: {path: "servers[name=Z].status", equals: down}\n'
        '    question: "What does reviving A bring?"\n'
        '    choices:\n      - {id: a, text: "Its tools again"}\n      - {id: b, text: "Nothing at all"}\n'
        '    answer: a\n    explanation: "A back is A listed again."\n'
    )
    panel.write_text(panel.read_text() + question)
    (problem,) = found(root)
    says(problem, "'Z'", "prediction")
