"""The restart-while-answering playground: it waits in lesson 1 behind the disclosure about the user's
answer, replays its scenario step by step with narration, can be left mid-way and played on from there,
and its goal is reached. (That the goal is met in either era is the service's answer, checked fast in
tests/web/test_answering_goal.py.)

Titles, narration and the goal's text are read from the content files or the catalogue, so a rewrite keeps
this green."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root
from lesson.content.panels import PlaygroundPanel, load_panel
from lesson.content.scenarios import Scenario, load_scenario

from .helpers import ANSWERING, expect_step, log_labels, message, panel, press, scenario_box, step_label

pytestmark = pytest.mark.e2e

# Kept for a person to look at, in a folder of their own: pytest-playwright empties test-results/ as
# each xdist worker starts, which could take a picture another worker just made.
SHOTS = Path(__file__).resolve().parents[2] / "screenshots" / "tests"


def content_panel() -> PlaygroundPanel:
    found = load_panel(default_root() / "panels" / "answering.yaml")[0]
    assert isinstance(found, PlaygroundPanel)
    return found


def script() -> Scenario:
    return load_scenario(default_root() / "scenarios" / "restart-answering.yaml")[0]


def label(button_id: str) -> str:
    return content_panel().button(button_id).label


def open_answering(page: Page) -> Locator:
    """The lesson on a question across a restart, its playground ready."""
    page.goto(ANSWERING)
    section = panel(page, content_panel().title)
    expect(section).to_be_visible()
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    expect(section.get_by_role("status").first).to_have_text(message("playground.ready"))
    return section


def goal_state(section: Locator) -> Locator:
    return section.locator('[data-role="goal-state"]')


def no_axe_violations(page: Page) -> None:
    result = Axe().run(page)
    assert result.violations_count == 0, result.generate_report()


def test_the_scenario_replays_in_the_page_plays_to_its_last_step_and_can_be_left_mid_way(page: Page) -> None:
    s = script()
    open_goal, done = message("goal.open"), message("goal.done")
    section = open_answering(page)
    expect(section.get_by_role("radio", name="Modern (2026-07-28)")).to_be_checked()
    expect(goal_state(section)).to_have_text(open_goal)
    walk = section.get_by_role("button", name=f"Walk me through it: {s.title}")

    # The learner chose the other storage: the scenario, written for the first, goes back to it.
    variants = section.get_by_role("group", name=content_panel().variants_legend).get_by_role("radio")
    variants.last.check()
    expect(log_labels(section)).to_have_count(1)
    press(section, label("turn"), 1)  # the replay starts from a fresh playground
    walk.click()
    scenario = scenario_box(section, s)
    expect(variants.first).to_be_checked()
    # Said in the box: the learner chose the other on purpose, and the moments speak of the first.
    first_label = content_panel().variants[0].label
    expect(scenario).to_contain_text(message("scenario.variant_switched", variant=first_label))
    for n in range(1, len(s.steps)):
        expect_step(section, s, n)
        if n >= 3:  # the answer sent after the restart is refused: what the goal asks for
            expect(section.get_by_text(message("counter.lost_answers", n=1))).to_be_visible()
            if n == 3:  # the step that lost it marks the counters, which moved for no other reason
                lost = section.locator("p.counters").get_by_text(message("counter.lost_answers", n=1))
                expect(lost).to_have_attribute("data-mark", "changed")  # that counter, not its neighbours
                unmoved = section.locator('p.counters [data-counter="refetches"]')
                expect(unmoved).not_to_have_attribute("data-mark", re.compile("."))
            # ...but a scenario's presses do not reach the learner's goal for them.
            expect(goal_state(section)).to_have_text(open_goal)
        scenario.get_by_role("button", name="Next moment").click()
    expect_step(section, s, len(s.steps))
    expect(scenario.get_by_role("button", name="Next moment")).to_be_disabled()
    expect(log_labels(section).last).to_have_text(step_label(len(s.steps)))
    expect(log_labels(section)).to_have_count(len(s.steps) + 1)  # the start, then one entry per step
    # Left where the scenario met the goal, a press of the learner's that changes nothing does not reach
    # it, and the goal says how they can.
    scenario.get_by_role("button", name="Leave the scenario").click()
    press(section, label("answer"), len(s.steps) + 1)  # refused: nobody is asking
    expect(goal_state(section)).to_have_text(message("goal.walked"))

    # Walked through again, from the start.
    walk.click()
    expect_step(section, s, 1)
    expect(log_labels(section).last).to_have_text(step_label(1))
    expect(log_labels(section)).to_have_count(2)
    expect(scenario.get_by_role("button", name="Next moment")).to_be_focused()
    no_axe_violations(page)

    scenario.get_by_role("button", name="Next moment").click()
    expect_step(section, s, 2)
    expect(log_labels(section).last).to_have_text(step_label(2))
    expect(goal_state(section)).to_have_text(open_goal)

    # Leave after the restart, before the user answers: the playground is the learner's from step 2.
    scenario.get_by_role("button", name="Leave the scenario").click()
    expect(scenario).to_have_count(0)
    expect(section.locator('[data-role="announce"]')).to_have_text(message("scenario.left", n=2))
    screenshots(page, section)
    press(section, label("answer"), 3)
    expect(goal_state(section)).to_have_text(done)
    # The modern retry carried a requestState the new process cannot verify.
    expect(section.get_by_text("-32602").first).to_be_attached()
    no_axe_violations(page)


def screenshots(page: Page, section: Locator) -> None:
    """Pictures of the playground after W asked and restarted, kept for a person to look at, at a desktop's
    and a phone's width; nothing on the page is wider than the screen."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        section.screenshot(path=str(SHOTS / f"answering-{width}.png"))
        # And one screen of it, from the panel's heading, as the learner first sees the playground.
        page.evaluate("document.querySelector('[data-panel-id=answering]').scrollIntoView()")
        page.screenshot(path=str(SHOTS / f"answering-{width}-screen.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.set_viewport_size(size)


def test_the_walk_through_starts_from_the_legacy_era_with_the_other_storage_chosen(page: Page) -> None:
    """The storage choices are the modern era's: off in legacy. From there, with the other one chosen, the
    walk-through goes back to its own era and its first storage choice and plays its first moment."""
    s = script()
    section = open_answering(page)
    variants = section.get_by_role("group", name=content_panel().variants_legend).get_by_role("radio")
    variants.last.check()
    expect(log_labels(section)).to_have_count(1)
    section.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect(variants.first).to_be_disabled()
    section.get_by_role("button", name=f"Walk me through it: {s.title}").click()
    expect_step(section, s, 1)
    expect(variants.first).to_be_checked()
    expect(section.get_by_role("radio", name="Modern (2026-07-28)")).to_be_checked()
    expect(scenario_box(section, s).get_by_role("button", name="Next moment")).to_be_enabled()
