"""Live mode speaks the page's language (docs/live.md): what the real host did comes as ``live.*`` codes of
the message catalogue with their sentences in the open frame's locale, and so do the simulated lines beside
them; a locale with no catalogue is refused before any process starts."""

from __future__ import annotations

import json

import psutil
import pytest
import websocket

from lesson.i18n import catalogue

from .conftest import live_children, live_outage

WAIT = 60  # seconds: a live playground's start imports the SDK in each server process


def test_a_locale_with_no_catalogue_is_refused_and_starts_nothing(serve_app):
    url = serve_app(LIVE=True)
    ws = websocket.create_connection(url.replace("http://", "ws://") + "/live", timeout=WAIT, origin=url)
    try:
        ws.send(json.dumps({"type": "open", "panel": "outage", "era": "modern", "lang": "xx-nowhere"}))
        answer = json.loads(ws.recv())
    finally:
        ws.close()
    assert (answer["type"], answer["code"]) == ("error", "unknown_locale")
    assert "xx-nowhere" in answer["message"]
    assert not live_children(psutil.Process())


@pytest.fixture
def pseudo_playground():
    """The outage playground live, in the pseudo-locale (every catalogue sentence wrapped in ⟦…⟧)."""
    with live_outage("modern", "pseudo") as pg:
        yield pg


def test_the_real_hosts_lines_and_the_simulated_ones_come_in_the_pages_locale(pseudo_playground):
    pseudo = catalogue("pseudo")
    deploy = pseudo_playground.press("deploy")
    dies = pseudo_playground.press("a-dies")
    assert [line["code"] for line in deploy["lines"]] == ["live.deployed"]
    assert [line["code"] for line in dies["lines"]] == ["live.killed"]
    for answer in (deploy, dies):
        for line in answer["lines"]:
            assert line["code"] in pseudo and line["text"].startswith("⟦") and line["text"].endswith("⟧"), line
        assert answer["sim"]["lines"], "the simulated lines of the same press"
        assert all(line["text"].startswith("⟦") for line in answer["sim"]["lines"]), answer["sim"]["lines"]
    assert "A" in dies["lines"][0]["text"]  # the values fill the sentence: the server that was killed


def test_the_real_wires_notes_come_in_the_pages_locale(pseudo_playground):
    pseudo_playground.press("call-a")
    dies = pseudo_playground.press("a-dies")
    notes = [frame["note"] for frame in dies["wire"] if frame["note"]]
    assert notes, "the call cut short, and the stream the host listened on, end with a note each"
    assert all(note.startswith("⟦") and note.endswith("⟧") for note in notes), notes
