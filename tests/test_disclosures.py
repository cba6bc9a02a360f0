"""Disclosures in lesson Markdown: ``:::: details "Summary"`` ... ``::::`` renders as <details>, and a
badly formed one is reported with its file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lesson.content.course import ContentError, load_content

FIXTURE = Path(__file__).parent / "fixtures" / "content"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "content")
    return tmp_path / "content"


def add_text(root: Path, text: str) -> tuple[Path, int]:
    """Append text to the first lesson; return the file and the line the text starts on."""
    lesson = root / "lessons" / "01-first.md"
    before = lesson.read_text()
    lesson.write_text(before.rstrip("\n") + "\n\n" + text)
    return lesson, before.rstrip("\n").count("\n") + 3


def problems(root: Path) -> list[ContentError]:
    found: list[ContentError] = []
    load_content(root, found)
    return found


def test_a_disclosure_renders_as_details(root: Path) -> None:
    add_text(root, ':::: details "Show the <full> message"\n\nHidden *words*.\n\n::::\n\nAfter it.\n')
    lesson = load_content(root).lesson("first")
    assert lesson is not None
    html = "".join(b.html for b in lesson.blocks)
    assert '<details class="more">\n<summary>Show the &lt;full&gt; message</summary>' in html
    assert html.index("<p>Hidden <em>words</em>.</p>") < html.index("</details>") < html.index("<p>After it.</p>")


def test_a_disclosure_line_may_touch_the_text_around_it(root: Path) -> None:
    add_text(root, 'Before it.\n:::: details "Tight"\nHidden.\n::::\nAfter it.\n')
    lesson = load_content(root).lesson("first")
    assert lesson is not None
    html = "".join(b.html for b in lesson.blocks)
    assert '<p>Before it.</p>\n<details class="more">\n<summary>Tight</summary>\n<p>Hidden.</p>\n</details>' in html
    assert "<p>After it.</p>" in html


def test_a_message_pair_inside_a_disclosure_still_counts(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    text = lesson.read_text()
    start = text.index("```json legacy")
    end = text.index("```", text.index("```json modern") + 3) + 3
    lesson.write_text(text[:start] + ':::: details "Both eras"\n\n' + text[start:end] + "\n\n::::\n" + text[end:])
    loaded = load_content(root).lesson("first")
    assert loaded is not None and len(loaded.message_blocks) == 2
    assert '<div class="message-pair">' in "".join(b.html for b in loaded.blocks)


@pytest.mark.parametrize(
    ("text", "offset", "words"),
    [
        (':::: details "Never closed"\n\nText.\n', 0, "never closed"),
        ("::::\n", 0, "closes no disclosure"),
        (':::: details "One"\n\n:::: details "Two"\n\n::::\n', 2, "do not nest"),
        ('- A list\n\n  :::: details "In a list"\n\n  Text.\n\n  ::::\n', 2, "alone at the top level"),
        ("Text.\n\n:::: details Summary\n\n::::\n", 2, "alone at the top level"),
        (":::: details\n\n::::\n", 0, 'details "Summary"'),
        (':::: details "Holds a heading"\n\n## A section\n\n::::\n', 2, "level-2 heading"),
    ],
)
def test_bad_disclosures_name_the_line(root: Path, text: str, offset: int, words: str) -> None:
    lesson, line = add_text(root, text)
    found = problems(root)
    assert [(p.path, p.line) for p in found if words in p.message] == [(lesson, line + offset)], [str(p) for p in found]


def test_a_widget_can_wait_inside_a_disclosure(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    text = lesson.read_text()
    assert "\n::: lights\n" in text
    inside = '\n:::: details "Try it"\n\nBefore the panel.\n\n::: lights\n\nAfter it.\n\n::::\n'
    lesson.write_text(text.replace("\n::: lights\n", inside))
    assert problems(root) == []
    loaded = load_content(root).lesson("first")
    assert loaded is not None and "lights" in loaded.widgets
    # The page joins the blocks in order: the widget lands inside <details>, after its summary.
    at = [b.kind for b in loaded.blocks].index("widget")
    before = "".join(b.html for b in loaded.blocks[:at])
    after = "".join(b.html for b in loaded.blocks[at + 1 :])
    opened = before.rindex('<details class="more">\n<summary>Try it</summary>')
    assert opened < before.rindex("<p>Before the panel.</p>")
    assert "</details>" not in before[before.rindex("<details") :]
    assert after.index("<p>After it.</p>") < after.index("</details>")
