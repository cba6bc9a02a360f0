"""Play first: each lesson opens with what the learner will be able to do and a playground in the first
screen; lesson 1 stays short by default, and everything behind a disclosure is one click away."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import LESSON_1, LESSON_2, message, panel

pytestmark = pytest.mark.e2e

FIRST_PLAYGROUND = [(LESSON_1, "Play out an outage"), (LESSON_2, "Misbehaving servers")]


@pytest.fixture
def desktop(page: Page) -> Page:
    page.set_viewport_size({"width": 1280, "height": 800})
    return page


@pytest.mark.parametrize(("path", "title"), FIRST_PLAYGROUND)
def test_the_first_playground_is_in_the_first_screen(desktop: Page, path: str, title: str) -> None:
    desktop.goto(path)
    expect(desktop.get_by_role("heading", name="What you will be able to do", level=2)).to_be_in_viewport()
    section = panel(desktop, title)
    # Its title, as drawn: the lesson's heading right above it (the panel's own is for screen readers).
    expect(desktop.get_by_role("heading", name=title, level=2)).to_be_in_viewport()
    first = section.get_by_role("group", name="Events").get_by_role("button").first
    expect(first).to_be_enabled()
    expect(first).to_be_in_viewport()
    # Nothing was scrolled to get there.
    assert desktop.evaluate("window.scrollY") == 0


def test_lesson_1_is_short_by_default(desktop: Page) -> None:
    desktop.goto(LESSON_1)
    expect(panel(desktop, "Play out an outage").get_by_role("status")).to_have_text(message("playground.ready"))
    # innerText holds only rendered text: what sits in a closed disclosure is not counted.
    words = desktop.evaluate("document.body.innerText.split(/\\s+/).filter(Boolean).length")
    height = desktop.evaluate("document.documentElement.scrollHeight")
    assert 0 < words <= 2500, words
    assert height <= 9000, height
    # The text is really there, one click away: opening every disclosure shows much more of it.
    summaries = desktop.locator("article details > summary")
    for n in range(summaries.count()):
        summaries.nth(n).click()
    more = desktop.evaluate("document.body.innerText.split(/\\s+/).filter(Boolean).length")
    assert more > words + 1000, (words, more)


@pytest.mark.parametrize("path", [LESSON_1, LESSON_2])
def test_every_disclosure_opens(desktop: Page, path: str) -> None:
    desktop.goto(path)
    disclosures = desktop.locator("article details.more")
    count = disclosures.count()
    assert count >= 3, count
    for n in range(count):
        item = disclosures.nth(n)
        summary = item.locator("> summary")
        expect(summary).to_have_text(re.compile(r"\w"))
        body = item.locator("> :not(summary)").first
        expect(body).to_be_hidden()
        summary.click()
        expect(item).to_have_attribute("open", "")
        expect(body).to_be_visible()


def test_json_examples_wait_behind_a_disclosure(desktop: Page) -> None:
    desktop.goto(LESSON_1)
    result = desktop.get_by_role("figure").filter(has_text="CallToolResult")
    expect(result.first).to_be_hidden()
    desktop.get_by_text("Show the host-built tool result, in both eras").click()
    expect(result).to_have_count(2)
    expect(result.first).to_be_visible()
    expect(result.first).to_contain_text('"isError": true')
