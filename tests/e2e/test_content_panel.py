"""A new panel written as YAML only (no Python, no template) appears in the lesson and works, and a new
scenario file for it is offered beside it. A copy of the fixture content, served by its own server."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .helpers import expect_status, log_labels, message, open_playground, press, prompt, step_label

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "content"

PANEL = """\
id: beacon
kind: playground
title: Beacon playground
start: {name: outage, era: legacy}
era_choice: true
buttons:
  - {id: deploy, label: "Beacon deploy on B", event: {kind: deploy_tool, server: B}}
  - {id: turn, label: "Beacon turn", event: {kind: take_turn}}
shows: [servers, prompt, log]
"""

SCENARIO = """\
id: beacon-run
title: Beacon run
panel: beacon
steps:
  - press: deploy
    title: "Beacon step one"
    narration: "Beacon narration one."
  - press: turn
    title: "Beacon step two"
    narration: "Beacon narration two."
"""


@pytest.fixture
def content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    (root / "panels" / "beacon.yaml").write_text(PANEL)
    (root / "scenarios" / "beacon-run.yaml").write_text(SCENARIO)
    lesson = root / "lessons" / "01-first.md"
    lesson.write_text(lesson.read_text() + "\n## Beacon\n\n::: beacon\n")
    return root


def test_a_panel_added_as_yaml_appears_and_works(page: Page, serve_app, content: Path) -> None:
    base = serve_app(CONTENT_ROOT=str(content))
    beacon = open_playground(page, base + "/lessons/first", "Beacon playground")
    expect(beacon.get_by_role("radio", name=re.compile("^Legacy"))).to_be_checked()
    expect_status(beacon, "B", "connected")
    press(beacon, "Beacon deploy on B", 1)
    press(beacon, "Beacon turn", 2)
    expect(prompt(beacon)).to_contain_text("close_ticket")

    beacon.get_by_role("button", name="Walk me through it: Beacon run").click()
    narration = beacon.get_by_role("region", name="Scenario: Beacon run").get_by_role("status")
    expect(narration).to_contain_text(message("moment", n=1, total=2, title="Beacon step one"))
    expect(narration).to_contain_text("Beacon narration one.")
    expect(log_labels(beacon).last).to_have_text(step_label(1))


PREMISE_PANEL = """\
id: premise
kind: playground
title: Premise playground
start: {name: outage, era: modern}
era_choice: false
buttons:
  - {id: kill, label: "Premise kill A", event: {kind: server_dies, server: A}}
  - {id: revive, label: "Premise revive A", event: {kind: server_back, server: A}}
  - {id: turn, label: "Premise turn", event: {kind: take_turn}}
shows: [servers, prompt, log]
predictions:
  - button: turn
    when: {path: "servers[name=A].status", equals: connected}
    question: "Premise question: with A up, whose tools does the next turn offer?"
    choices:
      - {id: both, text: "Both A's and B's tools"}
      - {id: only-b, text: "Only B's tools"}
    answer: both
    explanation: "A is up, so its tools are in the prompt beside B's."
"""


def test_a_question_asked_from_the_start_comes_back_when_its_premise_holds_again(
    page: Page, serve_app, content: Path
) -> None:
    """Its premise (A is up) fails while A is down, and the question is put away; A's return asks it again."""
    (content / "panels" / "premise.yaml").write_text(PREMISE_PANEL)
    lesson = content / "lessons" / "01-first.md"
    lesson.write_text(lesson.read_text() + "\n## Premise\n\n::: premise\n")
    base = serve_app(CONTENT_ROOT=str(content))
    section = open_playground(page, base + "/lessons/first", "Premise playground")
    question = section.get_by_role("group", name=re.compile("Premise question"))
    expect(question).to_be_visible()
    press(section, "Premise kill A", 1)
    expect(question).to_be_hidden()
    press(section, "Premise revive A", 2)
    expect(question).to_be_visible()
