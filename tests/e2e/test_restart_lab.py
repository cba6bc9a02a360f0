"""The restart lab's honesty: a result says when it no longer matches the options, options that cannot
change the chosen situation are disabled (checked against the simulation itself), and the lesson's
summary after the lab is a real comparison table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from lesson.content.panels import load_panels
from lesson.content.restart_lab import restart_lab as run_lab

from .helpers import RESTARTS, restart_lab, takes_room

pytestmark = pytest.mark.e2e

PANEL = load_panels(Path(__file__).resolve().parents[2] / "content")["restarts"]
NOT_IDEMPOTENT = "The call in flight is not idempotent (send_alert)"
STALE = "Out of date — run again."


@pytest.fixture
def lab(page: Page) -> Locator:
    page.goto(RESTARTS)
    section = restart_lab(page)
    expect(section.get_by_role("button", name="Restart the server")).to_be_enabled()
    return section


def run(lab: Locator, situation: str) -> None:
    lab.get_by_role("radio", name=situation, exact=True).check()
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(f"Restarted while {situation}: both eras shown.")
    assert not takes_room(lab.get_by_role("status"))  # announced; the result line shows it already


def test_a_result_goes_stale_when_an_option_changes(lab: Locator) -> None:
    expect(lab.get_by_text(STALE)).to_be_hidden()
    run(lab, "idle")
    expect(lab.get_by_text("Result for a restart while idle; options: none.")).to_be_visible()
    expect(lab.get_by_text(STALE)).to_be_hidden()

    lab.get_by_role("checkbox", name="The server runs over stdio (the host launches it)").check()
    expect(lab.get_by_text(STALE)).to_be_visible()
    expect(lab.get_by_role("status")).to_have_text(re.compile("out of date"))
    # Putting the option back makes the result true again.
    lab.get_by_role("checkbox", name="The server runs over stdio (the host launches it)").uncheck()
    expect(lab.get_by_text(STALE)).to_be_hidden()

    lab.get_by_role("radio", name="a call is in flight").check()
    expect(lab.get_by_text(STALE)).to_be_visible()
    lab.get_by_role("button", name="Run again").focus()
    lab.page.keyboard.press("Enter")
    expect(lab.get_by_role("status")).to_have_text(re.compile("in flight"))
    expect(lab.get_by_text(STALE)).to_be_hidden()
    result_line = lab.get_by_text("Result for a restart while a call is in flight; options: none.")
    expect(result_line).to_be_visible()
    expect(result_line).to_be_focused()  # "Run again" is gone; the focus lands on what replaced it


def test_options_that_cannot_apply_are_disabled_with_a_reason(lab: Locator) -> None:
    box = lab.get_by_role("checkbox", name=NOT_IDEMPOTENT)
    expect(lab.get_by_role("radio", name="idle")).to_be_checked()
    expect(box).to_be_disabled()
    expect(box).to_have_accessible_description("Only when the server restarts while a call is in flight.")
    lab.get_by_role("radio", name="a call is in flight").check()
    expect(box).to_be_enabled()
    box.check()
    # Back to a situation where it cannot apply: unticked as well as disabled, so nothing claims otherwise.
    lab.get_by_role("radio", name="waiting for user input").check()
    expect(box).to_be_disabled()
    expect(box).not_to_be_checked()


def outcome(situation: str, variants: list[str]) -> list:
    """What a learner reads in each era: the lines of every step and the servers' status afterwards."""
    result = run_lab(PANEL, situation, variants)
    return [
        (
            [[line["text"] for line in step["lines"]] for step in side.steps],
            [(r.status, r.last_error) for r in side.view.servers],
        )
        for side in result.sides
    ]


def test_disabled_options_are_exactly_those_the_simulation_ignores(lab: Locator) -> None:
    """Every situation in turn, on one page, as a learner goes through them."""
    for chosen in PANEL.situations:
        lab.get_by_role("radio", name=chosen.label, exact=True).check()
        base = outcome(chosen.id, [])
        for variant in PANEL.variants:
            changes = outcome(chosen.id, [variant.id]) != base
            box = lab.get_by_role("checkbox", name=variant.label, exact=True)
            if changes:
                expect(box, f"{variant.id} changes {chosen.id}").to_be_enabled()
            else:
                expect(box, f"{variant.id} changes nothing in {chosen.id}").to_be_disabled()


def test_the_whole_comparison_is_one_link_away_on_the_reference_page(lab: Locator, page: Page) -> None:
    """Every situation of both eras is reference material: the lesson links it, the reference page holds it."""
    page.get_by_role("link", name="reference page").click()
    expect(page).to_have_url(re.compile("/reference#restarts-every-situation$"))
    table = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="Legacy (2025-11-25)")).first
    expect(table.get_by_role("columnheader")).to_have_text(
        [re.compile("^When the server restarts"), "Legacy (2025-11-25)", "Modern (2026-07-28)"]
    )
    expect(table.get_by_role("row").nth(1)).to_contain_text("idle")
