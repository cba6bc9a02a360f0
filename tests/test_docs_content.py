"""The examples in docs/content.md are valid content: added to a copy of the shipped content, every one of
them passes ``lesson check``."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from lesson.content.check import check

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "content.md"
FOLDERS = {"panel": "panels", "quiz": "quizzes", "scenario": "scenarios"}


def examples() -> list[tuple[str, str]]:
    tokens = MarkdownIt("commonmark").parse(DOC.read_text())
    return [
        (t.info.split()[1], t.content)
        for t in tokens
        if t.type == "fence" and len(t.info.split()) == 2 and t.info.split()[1] in (*FOLDERS, "lesson")
    ]


def test_every_kind_of_content_file_has_an_example() -> None:
    assert {kind for kind, _text in examples()} == {*FOLDERS, "lesson"}


def test_the_examples_pass_lesson_check(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(ROOT / "content", root)
    for kind, text in examples():
        if kind == "lesson":
            slug = yaml.safe_load(text.split("---")[1])["slug"]
            (root / "lessons" / f"99-{slug}.md").write_text(text)
        else:
            name = yaml.safe_load(text)["id"]
            (root / FOLDERS[kind] / f"{name}.yaml").write_text(text)
    report = check(root)
    assert [str(p) for p in report.problems] == []
    assert report.lessons == len(list((ROOT / "content" / "lessons").glob("*.md"))) + 1
