"""Predictions in panel files: the shipped one plays true to the simulation, and a broken one is named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from lesson.content.course import default_root, load_panels
from lesson.content.panels import PanelModel, PlaygroundPanel
from lesson.sim import advance, begin, view


def outage_data() -> dict:
    return yaml.safe_load((default_root() / "panels" / "outage.yaml").read_text())


def test_the_outage_prediction_matches_what_the_simulation_does() -> None:
    panel = load_panels(default_root())["outage"]
    assert isinstance(panel, PlaygroundPanel)
    q = next(p for p in panel.predictions if p.button == "a-dies")
    assert (q.after, q.button, q.answer) == ("call-a", "a-dies", "host-result")
    for era in ("legacy", "modern"):
        run = begin(panel.start_for(None, era))
        for button in (q.after, q.button):
            run = advance(run, panel.button(button).event)
        wire = view(run).wire
        # The model gets a result the host built, and nothing A sent.
        assert [m.kind for m in wire if m.receiver == "model"] == ["host_built"]
        assert not any(m.sender == "A" and m.kind != "stream_end" for m in wire)


def test_the_restart_cost_prediction_names_the_era_that_sends_more() -> None:
    """The right choice is the era in which the simulation puts more messages on the wire when A comes
    back, and the choice that has the modern client discover A again is wrong: it sends no
    server/discover then."""
    panel = load_panels(default_root())["outage"]
    assert isinstance(panel, PlaygroundPanel)
    q = next(p for p in panel.predictions if p.button == "a-back")
    wire = {}
    for era in ("legacy", "modern"):
        run = begin(panel.start_for(None, era))
        for button in ("call-a", "a-dies", "turn", "a-back"):
            run = advance(run, panel.button(button).event)
        wire[era] = view(run).wire
    assert len(wire["legacy"]) > len(wire["modern"]) > 0
    assert q.answer == "legacy-more"
    assert "server/discover" not in [(m.payload or {}).get("method") for m in wire["modern"]]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"answer": "nope"}, "answer 'nope' is not one of the choices"),
        ({"button": "no-such-button"}, "'no-such-button' is not a button"),
        ({"after": "a-dies"}, "cannot wait for the button that reveals it"),
        ({"choices": [{"id": "x", "text": "X"}, {"id": "x", "text": "Y"}], "answer": "x"}, "duplicate choice id"),
    ],
)
def test_a_broken_prediction_is_rejected(change: dict, words: str) -> None:
    data = outage_data()
    data["predictions"][0].update(change)
    with pytest.raises(ValidationError) as info:
        PanelModel.model_validate(data)
    assert words in str(info.value)


def test_two_predictions_on_one_button_are_rejected() -> None:
    data = outage_data()
    data["predictions"].append(dict(data["predictions"][0]))
    with pytest.raises(ValidationError, match="duplicate prediction button id 'a-dies'"):
        PanelModel.model_validate(data)


def test_lesson_check_names_the_file(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(default_root(), root)
    path = root / "panels" / "outage.yaml"
    path.write_text(path.read_text().replace("answer: host-result", "answer: host-made"))
    problems: list = []
    load_panels(root, problems)
    assert [p.path for p in problems] == [path]
    assert "host-made" in problems[0].message
