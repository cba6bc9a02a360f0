"""Hints come in stages. (That goals, hints and labels give no answer away is a rule of ``lesson check``:
tests/test_check_rules.py.)"""

from __future__ import annotations

import pytest

from lesson.content.panels import PlaygroundPanel


def test_hints_come_in_at_most_three_stages() -> None:
    data = {
        "id": "x",
        "kind": "playground",
        "title": "X",
        "start": {"name": "outage", "era": "modern"},
        "buttons": [{"id": "turn", "label": "Take a model turn", "event": {"kind": "take_turn"}}],
        "hints": ["a", "b", "c", "d"],
    }
    with pytest.raises(ValueError, match="at most 3"):
        PlaygroundPanel.model_validate(data)
