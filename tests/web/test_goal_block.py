"""A playground's goal as the server renders it, before any script runs: the goal's text, its state
"not reached yet", and its hints in stages, all hidden, behind one button. (Opening the stages one press
at a time is the browser's part: tests/e2e/test_goals_predict.py.)"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from lesson.content.course import default_root, load_panels
from lesson.content.panels import PlaygroundPanel
from lesson.i18n import translate

from ..e2e.helpers import lesson_holding

PANELS = load_panels(default_root())
WITH_GOALS = sorted(k for k, p in PANELS.items() if isinstance(p, PlaygroundPanel) and p.goal is not None)


@pytest.fixture(scope="module")
def client():
    """One app for the module: its tests only read served pages (the conftest's client is per test)."""
    from lesson.web import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "test"}).test_client()


class GoalBlock(HTMLParser):
    """The goal block of one panel: its goal text, its state line, its hint stages, its buttons."""

    def __init__(self, panel_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.panel_id = panel_id
        self.in_panel = False
        self.depth = 0  # open elements inside the goal block; 0 outside it
        self.goal_text: str | None = None
        self.state = ""
        self.stages: list[bool] = []  # hidden or not, one per stage
        self.buttons: list[str] = []
        self.reading: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("data-panel-id") == self.panel_id:
            self.in_panel = True
        if self.depth:
            if tag not in ("br", "input", "img"):
                self.depth += 1
            if a.get("data-role") == "goal-state":
                self.reading = "state"
            elif tag == "li":
                self.stages.append("hidden" in a)
            elif tag == "button":
                self.buttons.append("")
                self.reading = "button"
        elif self.in_panel and a.get("data-role") == "goal" and self.goal_text is None:
            self.goal_text = a.get("data-goal-text")
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            self.reading = None

    def handle_data(self, data: str) -> None:
        if self.reading == "state":
            self.state += data
        elif self.reading == "button":
            self.buttons[-1] += data


def test_the_course_has_playgrounds_with_goals() -> None:
    assert len(WITH_GOALS) >= 2, WITH_GOALS


@pytest.mark.parametrize("panel_id", WITH_GOALS)
def test_a_goal_is_served_with_its_text_state_and_hidden_hint_stages(client, panel_id: str) -> None:
    pg = PANELS[panel_id]
    assert pg.goal is not None
    page = client.get(lesson_holding(panel_id))
    assert page.status_code == 200
    block = GoalBlock(panel_id)
    block.feed(page.get_data(as_text=True))
    assert block.goal_text == pg.goal.text
    assert block.state.strip() == translate("en", "playground.goal.open")
    # One stage per hint, every one hidden until asked for, and one button to ask.
    assert pg.hints and block.stages == [True] * len(pg.hints)
    ask = "playground.hint" if len(pg.hints) > 1 else "playground.hint.solution"
    assert [b.strip() for b in block.buttons] == [translate("en", ask)]
