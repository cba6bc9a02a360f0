"""``lesson serve --reload`` (CONTENT_RELOAD) and debug mode pick up content edits on the next page load."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from lesson.content.yamlfile import ContentError
from lesson.web import create_app
from tests.facts import says

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "content"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "content")
    return tmp_path / "content"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    stat = path.stat()  # make the change visible even on a file system with coarse timestamps
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_edits_show_on_the_next_page_load(root: Path) -> None:
    client = create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root), "CONTENT_RELOAD": True}).test_client()
    assert "An opening paragraph." in client.get("/lessons/first").get_data(as_text=True)
    edit(root / "lessons" / "01-first.md", "An opening paragraph.", "A rewritten opening.")
    edit(root / "panels" / "lights.yaml", "Fixture kill A", "Stop A")
    page = client.get("/lessons/first").get_data(as_text=True)
    assert "A rewritten opening." in page and ">Stop A</button>" in page
    # The playground service plays the new panel too.
    opened = client.post("/api/frame", json={"v": 2, "type": "open", "panel": "lights"}).get_json()
    assert opened["type"] == "view"


def test_a_broken_edit_names_the_problem_and_keeps_the_last_good_content(root: Path) -> None:
    client = create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root), "CONTENT_RELOAD": True}).test_client()
    edit(root / "quizzes" / "first.yaml", "answer: b", "answer: q")
    resp = client.get("/lessons/first")
    assert resp.status_code == 500
    says(resp.get_data(as_text=True), "quizzes/first.yaml:8", "questions[0].answer", "&#39;q&#39;")
    frame = client.post("/api/frame", json={"v": 2, "type": "open", "panel": "lights"}).get_json()
    assert frame["type"] == "view"  # the playgrounds carry on with the last good content
    assert client.get("/healthz").get_json()["ok"] is True  # so a health check does not restart it
    edit(root / "quizzes" / "first.yaml", "answer: q", "answer: b")
    assert client.get("/lessons/first").status_code == 200


def test_a_broken_scenario_is_named_too(root: Path) -> None:
    """A scenario that does not load is broken content like any other: the page names it (its walk-through
    is not just left out), and the app does not start on it."""
    client = create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root), "CONTENT_RELOAD": True}).test_client()
    edit(root / "scenarios" / "story.yaml", "  - press: turn\n", "  - press: trun\n")
    resp = client.get("/lessons/first")
    assert resp.status_code == 500
    says(resp.get_data(as_text=True), "scenarios/story.yaml", "&#39;trun&#39;")
    with pytest.raises(ContentError) as err:
        create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root)})
    assert err.value.path.name == "story.yaml"


def test_without_reload_the_content_stays_as_loaded(root: Path) -> None:
    client = create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root)}).test_client()
    edit(root / "lessons" / "01-first.md", "An opening paragraph.", "A rewritten opening.")
    assert "An opening paragraph." in client.get("/lessons/first").get_data(as_text=True)


def test_debug_mode_reloads_too(root: Path) -> None:
    app = create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root), "DEBUG": True})
    app.debug = True
    client = app.test_client()
    client.get("/lessons/first")
    edit(root / "lessons" / "01-first.md", "An opening paragraph.", "A rewritten opening.")
    assert "A rewritten opening." in client.get("/lessons/first").get_data(as_text=True)


def test_an_edited_catalogue_reloads_with_the_content(root: Path, tmp_path: Path, monkeypatch) -> None:
    """The catalogues are an author's files too: a page's words and a stepper's moments, which are written in
    the catalogue's narration, change on the next page load, as a content edit does."""
    import re

    from lesson import i18n

    messages = tmp_path / "messages"
    shutil.copytree(i18n.HERE, messages)
    monkeypatch.setattr(i18n, "HERE", messages)
    i18n.reload()
    try:
        client = create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root), "CONTENT_RELOAD": True}).test_client()

        def moments() -> str:
            page = client.get("/lessons/second").get_data(as_text=True)
            return client.get(re.search(r'data-steps="([^"]+)"', page).group(1)).get_data(as_text=True)

        # A narration message the moments use, and a page word, each given words of an author's own.
        turn, every = i18n.translate("en", "narration.event.take_turn"), i18n.translate("en", "lesson.all")
        assert turn in moments()
        edit(messages / "en.json", json.dumps(turn), '"Edited turn heading"')
        edit(messages / "en.json", json.dumps(every), '"Edited link to every lesson"')
        assert "Edited turn heading" in moments()
        assert "Edited link to every lesson" in client.get("/lessons/first").get_data(as_text=True)
    finally:
        monkeypatch.undo()
        i18n.reload()
