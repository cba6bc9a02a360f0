"""Words before the first widget: lesson 1 says who's who (MCP, host, client, server, model, the two eras,
each linked to its glossary entry) and lesson 2 its short answer before their first playground; lesson 1
stays short by default, and everything behind a disclosure is one click away."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import CHURN, LESSON_2, OUTAGE, message, panel

pytestmark = pytest.mark.e2e

WHOS_WHO = ["mcp", "host", "client", "server", "model", "legacy", "modern"]
# The order of words, links and playgrounds, and where the JSON examples sit, are read from the served HTML
# in tests/web/test_lesson_openings.py; here what a learner sees and does.


@pytest.fixture
def desktop(page: Page) -> Page:
    page.set_viewport_size({"width": 1280, "height": 800})
    return page


def expect_first_button_close(page: Page, title: str) -> None:
    """The playground's first button is within two screens of the top, with every disclosure closed."""
    first = panel(page, title).get_by_role("group", name="Events").get_by_role("button").first
    expect(first).to_be_enabled()
    assert page.locator("article details[open]").count() == 0
    assert first.bounding_box()["y"] < 2 * 800


def test_lesson_1_says_whos_who_before_its_first_playground(desktop: Page) -> None:
    desktop.goto(CHURN)
    expect(desktop.get_by_role("heading", name="Who's who", level=2)).to_be_in_viewport()
    for term in WHOS_WHO:
        expect(desktop.locator(f'article a[href="/glossary#{term}"]').first).to_be_visible()
    # A term's link is a real link: the keyboard reaches it, and it leads to the definition.
    desktop.locator('article a[href="/glossary#host"]').first.focus()
    desktop.keyboard.press("Enter")
    expect(desktop).to_have_url(re.compile(r"/glossary#host$"))
    expect(desktop.locator("dt#host")).to_be_in_viewport()
    expect(desktop.locator("dt#host + dd")).to_contain_text("conversation")


def test_the_outage_lesson_is_short_by_default(desktop: Page) -> None:
    desktop.goto(OUTAGE)
    expect(panel(desktop, "Play out an outage").get_by_role("status")).to_have_text(message("playground.ready"))
    expect_first_button_close(desktop, "Play out an outage")
    # innerText holds only rendered text: what sits in a closed disclosure is not counted.
    words = desktop.evaluate("document.body.innerText.split(/\\s+/).filter(Boolean).length")
    height = desktop.evaluate("document.documentElement.scrollHeight")
    assert 0 < words <= 2500, words
    assert height <= 9300, height
    # The text is really there, one click away: opening every disclosure shows much more of it.
    summaries = desktop.locator("article details > summary").filter(visible=True)
    for n in range(summaries.count()):
        summaries.nth(n).click()
    more = desktop.evaluate("document.body.innerText.split(/\\s+/).filter(Boolean).length")
    assert more > words, (words, more)


@pytest.mark.parametrize(
    ("path", "title", "least"), [(OUTAGE, "Play out an outage", 1), (LESSON_2, "Misbehaving servers", 3)]
)
def test_every_disclosure_opens(desktop: Page, path: str, title: str, least: int) -> None:
    """Everything behind a disclosure is one click away: its body hidden, then shown; its JSON examples
    (the outage's host-built result, lesson 2's ten messages) shown whole once it is open."""
    desktop.goto(path)
    expect_first_button_close(desktop, title)
    disclosures = desktop.locator("article details.more")
    count = disclosures.count()
    assert count >= least, count
    figures = desktop.locator("article figure.message")
    expect(figures.first).to_be_hidden()
    for n in range(count):
        item = disclosures.nth(n)
        summary = item.locator("> summary")
        expect(summary).to_have_text(re.compile(r"\w"))
        body = item.locator("> :not(summary)").first
        expect(body).to_be_hidden()
        summary.click()
        expect(item).to_have_attribute("open", "")
        expect(body).to_be_visible()
    assert figures.count() >= 2
    for n in range(figures.count()):
        expect(figures.nth(n)).to_be_visible()
