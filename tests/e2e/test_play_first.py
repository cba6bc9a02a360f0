"""Words before the first widget: lesson 1 says who's who (MCP, host, client, server, model, the two eras,
each linked to its glossary entry) and lesson 2 its short answer before their first playground; lesson 1
stays short by default, and everything behind a disclosure is one click away."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import CHURN, LESSON_2, OUTAGE, message, panel

pytestmark = pytest.mark.e2e

FIRST_PLAYGROUND = [(OUTAGE, "Play out an outage"), (LESSON_2, "Misbehaving servers")]
WHOS_WHO = ["mcp", "host", "client", "server", "model", "legacy", "modern"]


@pytest.fixture
def desktop(page: Page) -> Page:
    page.set_viewport_size({"width": 1280, "height": 800})
    return page


def before(page: Page, first: str, second: str) -> bool:
    """Whether the element `first` (a CSS selector) comes before `second` in the page."""
    return page.evaluate(
        "([a, b]) => !!(document.querySelector(a).compareDocumentPosition(document.querySelector(b))"
        " & Node.DOCUMENT_POSITION_FOLLOWING)",
        [first, second],
    )


def test_lesson_1_says_whos_who_before_its_first_playground(desktop: Page) -> None:
    desktop.goto(CHURN)
    expect(desktop.get_by_role("heading", name="Who's who", level=2)).to_be_in_viewport()
    for term in WHOS_WHO:
        link = desktop.locator(f'article a[href="/glossary#{term}"]').first
        expect(link).to_be_visible()
        assert before(desktop, f'article a[href="/glossary#{term}"]', "[data-panel-id]"), term
    # A term's link is a real link: the keyboard reaches it, and it leads to the definition.
    desktop.locator('article a[href="/glossary#host"]').first.focus()
    desktop.keyboard.press("Enter")
    expect(desktop).to_have_url(re.compile(r"/glossary#host$"))
    expect(desktop.locator("dt#host")).to_be_in_viewport()
    expect(desktop.locator("dt#host + dd")).to_contain_text("conversation")


@pytest.mark.parametrize(("path", "title"), FIRST_PLAYGROUND)
def test_the_first_playground_follows_the_words_that_define_it(desktop: Page, path: str, title: str) -> None:
    desktop.goto(path)
    section = panel(desktop, title)
    first = section.get_by_role("group", name="Events").get_by_role("button").first
    expect(first).to_be_enabled()
    # The outage lesson's opening words link the host and the turn it plays out.
    words = 'article a[href="/glossary#host"]' if path == OUTAGE else "#the-short-answer"
    assert before(desktop, words, "section[data-panel-id]")
    # Close by: its first button is within two screens of the top, with every disclosure closed.
    assert first.bounding_box()["y"] < 2 * 800


def test_lesson_1_is_short_by_default(desktop: Page) -> None:
    desktop.goto(OUTAGE)
    expect(panel(desktop, "Play out an outage").get_by_role("status")).to_have_text(message("playground.ready"))
    # innerText holds only rendered text: what sits in a closed disclosure is not counted.
    words = desktop.evaluate("document.body.innerText.split(/\\s+/).filter(Boolean).length")
    height = desktop.evaluate("document.documentElement.scrollHeight")
    assert 0 < words <= 2500, words
    assert height <= 9300, height  # who's who, before the first playground, takes its part of a screen
    # The text is really there, one click away: opening every disclosure shows much more of it.
    summaries = desktop.locator("article details > summary").filter(visible=True)
    for n in range(summaries.count()):
        summaries.nth(n).click()
    more = desktop.evaluate("document.body.innerText.split(/\\s+/).filter(Boolean).length")
    assert more > words, (words, more)


@pytest.mark.parametrize(("path", "least"), [(OUTAGE, 1), (LESSON_2, 3)])
def test_every_disclosure_opens(desktop: Page, path: str, least: int) -> None:
    desktop.goto(path)
    disclosures = desktop.locator("article details.more")
    count = disclosures.count()
    assert count >= least, count
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
    desktop.goto(OUTAGE)
    result = desktop.get_by_role("figure").filter(has_text="CallToolResult")
    expect(result.first).to_be_hidden()
    desktop.get_by_text("Show the host-built tool result, in both eras").click()
    expect(result).to_have_count(2)
    expect(result.first).to_be_visible()
    expect(result.first).to_contain_text('"isError": true')


def test_lesson_2_shows_its_json_behind_one_disclosure(desktop: Page) -> None:
    desktop.goto(LESSON_2)
    figures = desktop.locator("article figure.message")
    expect(figures).to_have_count(10)  # five messages, each in both eras
    expect(figures.first).to_be_hidden()
    # All ten sit in one disclosure.
    disclosure = desktop.locator("article details.more").filter(has=desktop.locator("figure.message"))
    expect(disclosure).to_have_count(1)
    expect(disclosure.locator("figure.message")).to_have_count(10)
    disclosure.locator("> summary").click()
    for n in range(10):
        expect(figures.nth(n)).to_be_visible()
