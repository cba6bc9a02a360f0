"""The guided path's facts the server and the content decide, checked without a browser: each
playground's walk-through exists, asks every central prediction before the press that answers it, and
reaches the restart's cost; a playground without one reaches its goal by its hints' presses. The browser
test (tests/e2e/test_guided_path.py) walks each playground once to check what a learner sees."""

from __future__ import annotations

import json

import pytest

from lesson.content.course import default_root, load_panels
from lesson.content.panels import PlaygroundPanel
from lesson.content.scenarios import presses
from lesson.playground.service import Service
from tests.guided_path import GOAL_PRESSES, WALKS
from tests.scenarios import load_scenarios

from .pageclient import PageClient

PANELS = load_panels(default_root())
SCRIPTS = list(load_scenarios(default_root()).values())


def walk(panel_id: str):
    found = [s for s in SCRIPTS if s.panel == panel_id and s.title.startswith(WALKS[panel_id])]
    assert len(found) == 1, f"{panel_id}: {len(found)} walk-throughs titled {WALKS[panel_id]!r}"
    return found[0]


def page(panel_id: str) -> PageClient:
    service = Service(PANELS)
    client = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), panel_id)
    client.open()
    return client


@pytest.mark.parametrize("panel_id", list(WALKS))
def test_a_walk_through_asks_each_prediction_before_the_press_that_answers_it(panel_id: str) -> None:
    pg = PANELS[panel_id]
    assert isinstance(pg, PlaygroundPanel)
    steps = [presses(step) for step in walk(panel_id).steps]
    for q in pg.predictions:
        answered = next((n for n, p in enumerate(steps) if q.button in p), None)
        assert answered is not None, f"the walk never presses {q.button}, whose prediction it should pass"
        if q.after is not None:
            asked = next((n for n, p in enumerate(steps) if q.after in p), None)
            assert asked is not None and asked < answered, f"{q.button} is pressed before {q.after} asks it"
        else:
            assert answered > 0, f"{q.button} is pressed on the first moment, before its question is read"
    # Every press of the walk is a button of its playground, and the service answers each with a view.
    client = page(panel_id)
    for p in steps:
        for button_id in p:
            assert client.do("press", button=button_id)["type"] == "view", button_id


def test_the_outage_walk_reaches_the_restarts_cost() -> None:
    # The page shows the restart's cost, era by era, once A is back: the walk must bring it back.
    assert any("a-back" in presses(step) for step in walk("outage").steps)


@pytest.mark.parametrize("panel_id", list(GOAL_PRESSES))
def test_a_goals_presses_reach_it(panel_id: str) -> None:
    client = page(panel_id)
    assert client.last["goal"] == {"met": False}
    for button_id in GOAL_PRESSES[panel_id]:
        answer = client.do("press", button=button_id)
    assert answer["goal"] == {"met": True}


def test_the_eras_goal_needs_a_host_that_speaks_both_eras() -> None:
    """The eras playground has no walk-through: its goal is met by the variant its hints name, and
    not by the same presses on a host of one era (where M refuses the opening its prediction asks about)."""
    one = page("eras")
    for button_id in ("add-l", "add-m"):
        answer = one.do("press", button=button_id)
    assert answer["goal"] == {"met": False}
    both = page("eras")
    assert both.do("reset", variant="dual-era")["variant"] == "dual-era"
    for button_id in ("add-l", "add-m"):
        answer = both.do("press", button=button_id)
    assert answer["goal"] == {"met": True}
