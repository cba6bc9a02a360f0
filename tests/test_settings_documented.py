"""Every setting an operator can set is named where operators look: the README's table, or a page of docs/."""

from __future__ import annotations

from pathlib import Path

from lesson.settings import PREFIX, Settings

REPO = Path(__file__).resolve().parents[1]


def test_every_setting_is_named_in_the_readme_or_the_docs():
    text = (REPO / "README.md").read_text() + "".join(p.read_text() for p in sorted((REPO / "docs").glob("*.md")))
    unnamed = [f"{PREFIX}{name}" for name in Settings.model_fields if f"`{PREFIX}{name}`" not in text]
    assert not unnamed, f"settings no operator can read about: {unnamed}"
