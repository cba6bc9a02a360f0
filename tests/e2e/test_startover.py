"""Start over: after a confirmation in a dialog, the lesson's playgrounds and quiz answers are gone and
the lesson loads fresh, presses a walk-through set aside too; cancelling keeps everything; the theme
stays."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from .helpers import OUTAGE, log_labels, message, open_playground, press, quiz_score, score_pattern, step_label

pytestmark = pytest.mark.e2e


def answer_first_question(page: Page) -> None:
    quiz = page.get_by_role("region", name="Quick check questions")
    quiz.get_by_role("radio").first.check()
    quiz.get_by_role("button", name="Check answer").first.click()
    expect(quiz.get_by_role("status").first).to_have_text(score_pattern(answered=1))


def test_start_over_clears_progress_after_confirmation(page: Page) -> None:
    outage = open_playground(page, OUTAGE, "Play out an outage")
    # The lesson's own address offers presenter mode (a portal frame does not: the test below).
    expect(page.get_by_role("link", name="Present this lesson")).to_be_visible()
    page.get_by_role("radio", name="Dark").check()
    press(outage, "B deploys a new tool", 1)
    press(outage, "A dies", 2)
    press(outage, "Take a model turn", 3)  # the playground's goal, kept with the lesson's progress
    expect(outage.locator('[data-role="goal"]')).to_contain_text(message("goal.done"))
    answer_first_question(page)

    # Cancel keeps everything.
    start_over = page.get_by_role("button", name="Start over")
    start_over.click()
    dialog = page.get_by_role("dialog", name="Start this lesson over?")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Keep my progress")).to_be_focused()
    expect(dialog).to_have_accessible_description(re.compile(re.escape(message("startover.theme")) + "$"))
    result = Axe().run(page)
    assert result.violations_count == 0, result.generate_report()
    dialog.get_by_role("button", name="Keep my progress").click()
    expect(dialog).to_be_hidden()
    expect(start_over).to_be_focused()
    page.reload()
    outage.scroll_into_view_if_needed()  # the reload keeps the page at Start over, far below
    expect(log_labels(outage).last).to_have_text(step_label(3))

    # Escape closes it too (once it is open: its code comes at the first press after a load).
    start_over.click()
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # A walk-through sets the learner's presses aside, to bring back later: start over forgets them too.
    outage.get_by_role("button", name=re.compile("^" + re.escape(message("scenario.play", title="")))).first.click()
    three = message("count.press.many", n=3)
    bring_back = outage.get_by_role("button", name=message("playground.bring_back", presses=three))
    expect(bring_back).to_be_visible()

    start_over.click()
    with page.expect_event("load"):  # the page loads afresh; a locator read before then finds the old one
        dialog.get_by_role("button", name="Clear and start over").click()
    # No scenario box, the playground at its start, nothing set aside.
    outage.scroll_into_view_if_needed()  # its code is fetched as it nears the screen
    expect(outage.get_by_role("region", name=re.compile("^Scenario: "))).to_have_count(0)
    expect(bring_back).to_have_count(0)
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    expect(outage.get_by_role("status")).to_have_text(message("playground.ready"))
    expect(log_labels(outage)).to_have_count(1)
    quiz = page.get_by_role("region", name="Quick check questions")
    expect(quiz_score(page)).to_have_text(score_pattern(correct=0, answered=0))
    expect(quiz.get_by_role("radio", checked=True)).to_have_count(0)
    expect(page.get_by_role("radio", name="Dark")).to_be_checked()
    # Nothing comes back on a further reload.
    page.reload()
    outage.scroll_into_view_if_needed()
    expect(outage.get_by_role("status")).to_have_text(message("playground.ready"))
    expect(quiz_score(page)).to_have_text(score_pattern(correct=0, answered=0))
    # The progress file has no goal reached any more.
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my progress").click()
    assert json.loads(Path(download.value.path()).read_text())["goals"] == []


def test_start_over_is_offered_in_a_portal_frame_too(page: Page) -> None:
    """The embedded address (/embed/<slug>) offers Start over as the lesson's own address does, and
    leaves out presenter mode, whose bar would sit at the foot of a frame as tall as the lesson."""
    page.goto("/embed/an-outage")
    expect(page.get_by_role("link", name="Present this lesson")).to_have_count(0)
    answer_first_question(page)
    start_over = page.get_by_role("button", name="Start over", exact=True)
    start_over.click()
    # In a frame as tall as the lesson a modal would open mid-frame, far away: it opens under the button.
    dialog = page.get_by_role("dialog", name="Start this lesson over?")
    expect(dialog.get_by_role("button", name="Keep my progress")).to_be_focused()
    # A frame has no theme control, so the dialog does not speak of one.
    expect(dialog).to_have_accessible_description(message("startover.text"))
    expect(dialog).not_to_have_accessible_description(re.compile("theme", re.I))
    below, button = dialog.bounding_box(), start_over.bounding_box()
    assert 0 <= below["y"] - (button["y"] + button["height"]) < 200, (button, below)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    start_over.click()
    dialog.get_by_role("button", name="Start over").click()
    expect(quiz_score(page)).to_have_text(score_pattern(correct=0, answered=0))
