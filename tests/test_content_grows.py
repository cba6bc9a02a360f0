"""Content can grow: a copy of ``content/`` with a question added to every quick check, a panel that declares
its own server, and a lesson that uses them (tests/fixtures/grow) passes ``lesson check``, and the tests of
the shipped content pass on that copy too (run with ``LESSON_CONTENT_ROOT`` pointing at it). Those tests hold
the shipped content to rules (every task solvable, every scenario ends, every panel renders), not to counts,
orders or heights, so adding content keeps them green as long as ``lesson check`` passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
# A group of its own under `make test` (pytest-xdist, --dist loadgroup): the copy is made once, and a group is
# handed out before single tests, so this module's long run of the content tests starts first, not last.
pytestmark = pytest.mark.xdist_group("grown-copy")
GROW = ROOT / "tests" / "fixtures" / "grow"
# The tests that read the shipped content (through LESSON_CONTENT_ROOT). Add a file here when a new one does.
CONTENT_TESTS = [
    "tests/test_content.py",
    # the one test there that reads the shipped content; the others check fixtures of their own
    "tests/test_check.py::test_the_shipped_scenarios_with_a_playground_are_all_playable_in_the_page",
    "tests/test_predictions.py",
    "tests/test_trace_text.py",
    "tests/web/test_pages.py",
    "tests/web/test_quiz_tasks.py",
    "tests/web/test_protocol.py",
    "tests/lti/test_grades.py",
]
# Tests the copy's run leaves out: this module runs lesson check on the copy itself, and the other one checks
# broken content of its own.
SKIP = [
    "--deselect=tests/test_content.py::test_shipped_content_passes_lesson_check",
    "--deselect=tests/web/test_pages.py::test_lesson_check_exits_non_zero_on_broken_content",
]
# A choice question that keeps every rule of lesson check; its id is made unique per quiz.
ADDED = """  - id: grown-{slug}
    prompt: "An added question: which choice is the right one?"
    choices:
      - {{id: a, text: "The first choice here"}}
      - {{id: b, text: "The second one here"}}
    answer: b
    explanation: "The second choice is right. The first is not."
    see: "/lessons/a-server-of-its-own#d-joins-then-dies"
"""


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("grown") / "content"
    shutil.copytree(ROOT / "content", root)
    for quiz in sorted((root / "quizzes").glob("*.yaml")):
        quiz.write_text(quiz.read_text() + ADDED.format(slug=quiz.stem))  # after the last question, a task or not
    for path in GROW.rglob("*.*"):
        target = root / path.relative_to(GROW)
        assert not target.exists(), f"{target} would replace a shipped file"
        shutil.copy(path, target)
    return root


def env(root: Path) -> dict[str, str]:
    return {**os.environ, "LESSON_CONTENT_ROOT": str(root)}


def test_the_grown_copy_adds_what_it_says(grown: Path) -> None:
    panel = yaml.safe_load((grown / "panels" / "d-joins.yaml").read_text())
    assert panel["start"]["servers"], "the added panel declares a server"
    lesson = (grown / "lessons" / "99-a-server-of-its-own.md").read_text()
    assert "::: d-joins" in lesson and "::: quiz" in lesson
    for quiz in (ROOT / "content" / "quizzes").glob("*.yaml"):
        assert f"grown-{quiz.stem}" in (grown / "quizzes" / quiz.name).read_text()


def test_lesson_check_passes_on_the_grown_copy(grown: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "lesson.cli", "check"], env=env(grown), capture_output=True, text=True, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert str(grown) in run.stdout


def test_the_content_tests_pass_on_the_grown_copy(grown: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-m", "not e2e", "-p", "no:cacheprovider", *SKIP, *CONTENT_TESTS],
        cwd=ROOT,
        env=env(grown),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:]
