"""An instructor may reword every paragraph, title, label, question and narration: the content still
passes ``lesson check``, and the fast tests of the content and pages stay green on the reworded copy."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from lesson.content.check import check
from lesson.content.markup import slugify

ROOT = Path(__file__).resolve().parents[1]
# A group of its own under `make test` (pytest-xdist, --dist loadgroup): the copy is made once, and a group is
# handed out before single tests, so this module's long run of the content tests starts first, not last.
pytestmark = pytest.mark.xdist_group("reworded-copy")
PROSE_KEYS = {
    "title",
    "summary",
    "narration",
    "caption",
    "label",
    "prompt",
    "text",
    "explanation",
    "hint",
    "hints",
    "question",
    "variants_legend",
    "means",
}


def reword_markdown(text: str) -> str:
    out, fence, front = [], False, 0
    for n, line in enumerate(text.splitlines()):
        if line.strip() == "---" and front < 2:
            front += 1
        elif front == 1 and re.match(r"^(title|summary):", line):
            line = f'{line.split(":", 1)[0]}: "Reworded {line.split(":", 1)[0]} {n}."'
        elif front < 2 or line.startswith("```"):
            fence = fence ^ line.startswith("```")
        elif fence or not line.strip() or line.startswith(":::") or re.match(r"^\|[-:| ]+\|$", line):
            pass
        elif line.startswith("#"):
            line = f"{line.split(' ', 1)[0]} Reworded heading {n}"
        elif line.startswith("|"):
            line = "|" + "|".join(f" cell {n}.{i} " for i in range(line.count("|") - 1)) + "|"
        else:
            line = re.match(r"^\s*(?:[-*]|\d+\.)?\s*", line).group(0) + f"Reworded line {n}."  # type: ignore[union-attr]
        out.append(line)
    return "\n".join(out) + "\n"


def reword_yaml(data: Any, path: str = "") -> Any:
    if isinstance(data, dict) and path.endswith("titles."):  # a view's heading, by view
        return {k: f"Reworded title of {k}." for k in data}
    if isinstance(data, dict):
        return {
            k: (
                # An explanation says why each choice is right or wrong (a rule of lesson check): a sentence each.
                " ".join(f"Reworded {k} {i} at {path}{k}." for i in range(5))
                if k == "explanation" and isinstance(v, str)
                else f"Reworded {k} at {path}{k}."
                if k in PROSE_KEYS and isinstance(v, str)
                else [f"Reworded {k} {i} at {path}{k}." for i in range(len(v))]
                if k in PROSE_KEYS and isinstance(v, list) and all(isinstance(x, str) for x in v)
                else reword_yaml(v, f"{path}{k}.")
            )
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [reword_yaml(v, f"{path}{i}.") for i, v in enumerate(data)]
    return data


@pytest.fixture(scope="module")
def reworded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reworded") / "content"
    shutil.copytree(ROOT / "content", root)
    for path in (root / "lessons").glob("*.md"):
        path.write_text(reword_markdown(path.read_text()))
    for folder in ("quizzes", "panels", "scenarios"):
        for path in (root / folder).glob("*.yaml"):
            first = path.read_text().split("\n", 1)[0]
            data = reword_yaml(yaml.safe_load(path.read_text()))
            if folder == "quizzes":
                # Reworded headings have new anchors: the feedback links the first reworded section.
                lesson = next(p for p in (root / "lessons").glob("*.md") if f"slug: {data['id']}\n" in p.read_text())
                heading = next(line for line in lesson.read_text().splitlines() if line.startswith("## "))
                for q in data["questions"]:
                    q["see"] = "#" + slugify(heading[3:])
            body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
            path.write_text(first + "\n" + body)
    # Former lessons' parts point at sections whose headings were reworded: at the lessons themselves now.
    moved = root / "moved.yaml"
    data = yaml.safe_load(moved.read_text())
    for former in data["moved"]:
        for part in former["parts"]:
            part["to"] = part["to"].partition("#")[0]
    moved.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    glossary = root / "glossary.yaml"
    first = glossary.read_text().split("\n", 1)[0]
    glossary.write_text(
        first + "\n" + yaml.safe_dump(reword_yaml(yaml.safe_load(glossary.read_text())), sort_keys=False)
    )
    return root


def test_reworded_content_passes_lesson_check(reworded: Path) -> None:
    report = check(reworded)
    assert [str(p) for p in report.problems] == []
    text = next((reworded / "lessons").glob("*.md")).read_text()
    assert "Reworded line" in text and "Reworded heading" in text


def test_the_content_and_page_tests_pass_on_reworded_content(reworded: Path) -> None:
    env = {**os.environ, "LESSON_CONTENT_ROOT": str(reworded)}
    tests = ["tests/test_content.py", "tests/web/test_pages.py"]
    # lesson check on the copy is the test above; the other one checks broken content of its own
    skip = [
        "--deselect=tests/test_content.py::test_shipped_content_passes_lesson_check",
        "--deselect=tests/web/test_pages.py::test_lesson_check_exits_non_zero_on_broken_content",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-m", "not e2e", "-p", "no:cacheprovider", *skip, *tests],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]
