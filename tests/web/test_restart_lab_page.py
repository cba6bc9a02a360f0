"""The restart lab as the server serves it, before any script runs: each option says in which
situations it applies (the page disables it elsewhere), and that list is exactly the situations whose
outcome the option changes in the simulation; the lesson links the reference page's table of every
situation. The lab's behaviour in the browser is tested in tests/e2e/test_restart_lab.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from lesson.content.course import default_root, load_panels
from lesson.content.restart_lab import restart_lab as run_lab
from lesson.i18n import translate

PANEL = load_panels(default_root())["restarts"]


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of every table cell in order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.cells: list[tuple[str, str]] = []  # (th|td, text)
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("th", "td"):
            self._cell, self._kind = [], tag

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            self.cells.append((self._kind, "".join(self._cell).strip()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parse(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    return tags


@pytest.fixture(scope="module")
def lesson(app) -> str:
    return app.test_client().get("/lessons/restarts").get_data(as_text=True)


@pytest.fixture(scope="module")
def app():
    from lesson.web import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "test"})


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


def test_each_option_applies_exactly_where_the_simulation_uses_it(lesson: str) -> None:
    boxes = {a["value"]: a for tag, a in parse(lesson).tags if tag == "input" and a.get("name") == "variant"}
    assert set(boxes) == {v.id for v in PANEL.variants}
    every = [s.id for s in PANEL.situations]
    for variant in PANEL.variants:
        changes = [s for s in every if outcome(s, [variant.id]) != outcome(s, [])]
        # An option that changes every situation carries no list: the page never disables it.
        applies = boxes[variant.id].get("data-applies", " ".join(every)).split()
        assert applies == changes, variant.id


def test_an_http_server_s_options_are_marked_exactly_where_stdio_makes_them_change_nothing(lesson: str) -> None:
    """The page disables an option marked HTTP-only while the stdio option is ticked: each one marked
    changes no situation over stdio, and each option left unmarked changes one there."""
    boxes = {a["value"]: a for tag, a in parse(lesson).tags if tag == "input" and a.get("name") == "variant"}
    [stdio] = [v for v, a in boxes.items() if "data-stdio" in a]
    for variant in PANEL.variants:
        if variant.id == stdio:
            continue
        changes = [s.id for s in PANEL.situations if outcome(s.id, [stdio, variant.id]) != outcome(s.id, [stdio])]
        assert ("data-http-only" in boxes[variant.id]) == (not changes), (variant.id, changes)
        if "data-http-only" in boxes[variant.id]:
            ids = boxes[variant.id]["aria-describedby"].split()
            said = [m[1] for i in ids if (m := re.search(rf'id="{i}">([^<]*)<', lesson))]
            assert len(said) == len(ids), f"a description that names nothing: {ids}"
            assert translate("en", "lab.http_only") in said, said
    # Said once on the page, however many options it describes.
    assert lesson.count(translate("en", "lab.http_only")) == 1


def test_an_option_that_applies_only_sometimes_says_when(lesson: str) -> None:
    box = next(a for t, a in parse(lesson).tags if t == "input" and a.get("value") == "unsafe-call")
    assert box["data-applies"] == "in-flight"
    why = re.search(rf'id="{box["aria-describedby"]}">([^<]*)<', lesson)
    assert why and why[1] == translate("en", "lab.only_when", situations="a call is in flight")


def test_the_lesson_links_the_reference_table_of_every_situation(app, lesson: str) -> None:
    assert '<a href="/reference#restarts-every-situation">reference page</a>' in lesson
    reference = app.test_client().get("/reference").get_data(as_text=True)
    start = reference.index('id="restarts-every-situation"')
    section = reference[start : reference.index("<h2", start)]
    cells = parse(section).cells
    headers = [text for kind, text in cells if kind == "th"]
    assert headers[0].startswith("When the server restarts")
    assert headers[1:3] == ["Legacy (2025-11-25)", "Modern (2026-07-28)"]
    rows = [text for kind, text in cells if kind == "td"]
    assert "idle" in rows[0]


def test_each_question_sets_up_options_that_apply_in_its_situation(lesson: str) -> None:
    """A question's button ticks options the page would not leave ticked (one that cannot change its
    situation, an HTTP server's option over stdio) only if the content got it wrong: none does. Its
    button is off until the lab's code is in, as the Restart button is."""
    tags = parse(lesson).tags
    situations = {a["value"] for tag, a in tags if tag == "input" and a.get("name") == "situation"}
    boxes = {a["value"]: a for tag, a in tags if tag == "input" and a.get("name") == "variant"}
    buttons = [a for tag, a in tags if tag == "button" and a.get("data-action") == "set-up"]
    assert len(buttons) == len(PANEL.questions) > 0
    for button, q in zip(buttons, PANEL.questions, strict=True):
        assert "disabled" in button
        assert button["data-situation"] == q.situation in situations
        ticks = button["data-variants"].split()
        assert ticks == q.variants
        for v in ticks:
            assert q.situation in boxes[v].get("data-applies", q.situation).split(), (q.question, v)
        over_stdio = any("data-stdio" in boxes[v] for v in ticks)
        assert not (over_stdio and any("data-http-only" in boxes[v] for v in ticks)), q.question
