"""What a lesson's served page says before its first playground, and what it keeps behind a disclosure,
read from the HTML as the server sends it: the order of the words and the widget, and where the JSON
examples sit. (Opening the disclosures, the keyboard and the layout: tests/e2e/test_play_first.py.)"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from ..e2e.helpers import CHURN, LESSON_2, OUTAGE

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Lesson 1's who's who: each term links to its glossary entry before the first playground.
WHOS_WHO = ["mcp", "host", "client", "server", "model", "legacy", "modern"]


@pytest.fixture(scope="module")
def client():
    """One app for the module: its tests only read served pages (the conftest's client is per test)."""
    from lesson.web import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "test"}).test_client()


class Outline(HTMLParser):
    """The article's elements in document order (a running number each), the first panel's number, and
    every JSON example (figure.message) with its text and the disclosure (details.more) holding it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.n = 0
        self.stack: list[tuple[str, int | None]] = []  # (tag, the number of a details.more it opens)
        self.links: dict[str, int] = {}  # first occurrence of each href in the article
        self.ids: dict[str, int] = {}
        self.first_panel: int | None = None
        self.in_article = 0
        self.figures: list[dict] = []  # {"text", "details"}
        self.disclosures = 0
        self.open_figure: dict | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.n += 1
        classes = (a.get("class") or "").split()
        if a.get("data-panel-id") and self.first_panel is None:
            self.first_panel = self.n
        if tag == "article":
            self.in_article += 1
        if self.in_article:
            if tag == "a" and a.get("href"):
                self.links.setdefault(a["href"], self.n)
            if a.get("id"):
                self.ids.setdefault(a["id"], self.n)
            if tag == "figure" and "message" in classes:
                holder = next((d for _, d in reversed(self.stack) if d is not None), None)
                self.open_figure = {"text": "", "details": holder}
                self.figures.append(self.open_figure)
        if tag in VOID:
            return
        more = None
        if tag == "details" and "more" in classes and self.in_article:
            self.disclosures += 1
            more = self.disclosures
        self.stack.append((tag, more))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if tag == "figure":
            self.open_figure = None
        if tag == "article":
            self.in_article -= 1

    def handle_data(self, data: str) -> None:
        if self.open_figure is not None:
            self.open_figure["text"] += data


def outline(client, path: str) -> Outline:
    page = client.get(path)
    assert page.status_code == 200
    found = Outline()
    found.feed(page.get_data(as_text=True))
    assert found.first_panel is not None, f"{path} shows no playground"
    return found


def test_lesson_1_links_whos_who_before_its_first_playground(client) -> None:
    page = outline(client, CHURN)
    for term in WHOS_WHO:
        at = page.links.get(f"/glossary#{term}")
        assert at is not None and at < page.first_panel, term


@pytest.mark.parametrize(("path", "words"), [(OUTAGE, "/glossary#host"), (LESSON_2, "the-short-answer")])
def test_the_first_playground_follows_the_words_that_define_it(client, path: str, words: str) -> None:
    # The outage lesson's opening words link the host; lesson 2 gives its short answer first.
    page = outline(client, path)
    at = page.links.get(words) if words.startswith("/") else page.ids.get(words)
    assert at is not None and at < page.first_panel, words


def test_the_outages_json_examples_wait_behind_a_disclosure(client) -> None:
    # The host-built tool result, in both eras, in one disclosure.
    results = [f for f in outline(client, OUTAGE).figures if "CallToolResult" in f["text"]]
    assert len(results) == 2
    assert all(f["details"] is not None for f in results)
    assert results[0]["details"] == results[1]["details"]
    assert all('"isError": true' in f["text"] for f in results)


def test_lesson_2_shows_its_json_behind_one_disclosure(client) -> None:
    figures = outline(client, LESSON_2).figures
    assert figures and len(figures) % 2 == 0  # each message in both eras
    assert len({f["details"] for f in figures}) == 1 and figures[0]["details"] is not None
