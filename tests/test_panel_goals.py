"""Goals are challenges: what a playground asks for, its hints and its button labels."""

from __future__ import annotations

import pytest

from lesson.content import default_root
from lesson.panels import PlaygroundPanel, load_panels

PLAYGROUNDS = [p for p in load_panels(default_root()).values() if isinstance(p, PlaygroundPanel)]


def test_no_goal_names_a_button_and_no_label_holds_an_answer() -> None:
    """A goal states an outcome: it quotes none of its panel's button labels, and only a hint's last stage
    (the solution) may. A label says what happens, not what it teaches (no aside in brackets)."""
    for p in PLAYGROUNDS:
        labels = [b.label for b in p.buttons]
        assert all("(" not in label for label in labels), p.id
        if p.goal:
            assert not any(label in p.goal.text for label in labels), (p.id, p.goal.text)
        for nudge in p.hints[:-1]:
            assert not any(f'"{label}"' in nudge for label in labels), (p.id, nudge)


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
