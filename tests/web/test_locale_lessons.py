"""Lessons translated per locale (``content/locales/<locale>/lessons/``) fall back to English page by page:
``?lang=fr`` shows the French lesson where there is one, the English one elsewhere, and a French lesson
that does not load is served in English (logged), while ``lesson check`` reports it at its line."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from lesson import i18n
from lesson.content.check import check
from lesson.web import create_app

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "content"
FRENCH = "Une leçon traduite pour les tests."
LEGACY_FR = "Ère ancienne (2025-11-25)"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    english = (content / "lessons" / "01-first.md").read_text()
    french = english.replace('title: "Fixture one"', 'title: "Leçon un"').replace(
        "An opening paragraph.", FRENCH + " An opening paragraph."
    )
    folder = content / "locales" / "fr" / "lessons"
    folder.mkdir(parents=True)
    (folder / "01-first.md").write_text(french)
    messages = tmp_path / "messages"
    messages.mkdir()
    shutil.copy(i18n.HERE / "en.json", messages / "en.json")
    (messages / "fr.json").write_text(json.dumps({"index.lessons": "Leçons", "js.era.legacy": LEGACY_FR}))
    monkeypatch.setattr(i18n, "HERE", messages)
    i18n.reload()
    yield content
    i18n.reload()


def _client(root: Path, **config):
    return create_app({"TESTING": True, "SECRET_KEY": "t", "CONTENT_ROOT": str(root), **config}).test_client()


def test_a_translated_lesson_is_shown_and_the_others_stay_english(root: Path) -> None:
    client = _client(root)
    first = client.get("/lessons/first?lang=fr").get_data(as_text=True)
    assert FRENCH in first and "Leçon un" in first and '<html lang="fr"' in first
    second = client.get("/lessons/second?lang=fr")
    assert second.status_code == 200 and "Fixture two" in second.get_data(as_text=True)
    index = client.get("/?lang=fr").get_data(as_text=True)
    assert "Leçon un" in index and "Fixture two" in index
    english = client.get("/lessons/first").get_data(as_text=True)
    assert FRENCH not in english and "Fixture one" in english


def test_a_wire_figure_names_its_era_in_the_lesson_s_language(root: Path) -> None:
    """The era over a wire message is the catalogue's label, in the language the lesson is written in;
    an era the translation leaves out is the English label."""
    english = i18n.translate("en", "js.era.legacy")
    client = _client(root)
    first = client.get("/lessons/first?lang=fr").get_data(as_text=True)
    assert f'<span class="message__era">{LEGACY_FR}</span>' in first
    modern = i18n.translate("en", "js.era.modern")
    assert f'<span class="message__era">{modern}</span>' in first
    page = client.get("/lessons/first").get_data(as_text=True)
    assert f'<span class="message__era">{english}</span>' in page and LEGACY_FR not in page


def test_the_shipped_check_passes_with_a_good_translation(root: Path) -> None:
    report = check(root)
    assert report.ok, [str(p) for p in report.problems]


def test_a_broken_translation_is_served_in_english_and_reported_at_its_line(root: Path, caplog) -> None:
    french = root / "locales" / "fr" / "lessons" / "01-first.md"
    text = french.read_text()
    french.write_text(text.replace("slug: first", "slug: frist"))
    with caplog.at_level(logging.ERROR):
        page = _client(root).get("/lessons/first?lang=fr")
    assert page.status_code == 200 and FRENCH not in page.get_data(as_text=True)
    assert any("frist" in r.getMessage() for r in caplog.records)
    found = [p for p in check(root).problems if p.path == french]
    assert [p.line for p in found] == [2]
    assert "'frist'" in found[0].message and "did you mean 'first'" in found[0].message


def test_a_translation_must_show_the_same_panels(root: Path) -> None:
    french = root / "locales" / "fr" / "lessons" / "01-first.md"
    french.write_text(french.read_text().replace("::: lights\n", ""))
    found = [p for p in check(root).problems if p.path == french]
    assert found and "lights" in found[0].message


def test_a_translation_is_read_again_under_reload(root: Path) -> None:
    client = _client(root, CONTENT_RELOAD=True)
    assert FRENCH in client.get("/lessons/first?lang=fr").get_data(as_text=True)
    french = root / "locales" / "fr" / "lessons" / "01-first.md"
    french.write_text(french.read_text().replace(FRENCH, "Une leçon revue."))
    page = client.get("/lessons/first?lang=fr").get_data(as_text=True)
    assert "Une leçon revue." in page and FRENCH not in page
