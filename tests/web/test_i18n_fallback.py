"""No catalogue mistake fails a page: a translated message with a wrong placeholder, or a translation that is
not JSON at all, is shown in English and logged; ``<html lang>`` follows the page's locale; and under
``--reload`` an edited catalogue is read again on the next page load."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import pytest

from lesson import i18n
from lesson.web import create_app

FOOTER_EN = "Protocol versions taught"


@pytest.fixture
def messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "messages"
    folder.mkdir()
    shutil.copy(i18n.HERE / "en.json", folder / "en.json")
    monkeypatch.setattr(i18n, "HERE", folder)
    i18n.reload()
    yield folder
    i18n.reload()


def _client(**config):
    return create_app({"TESTING": True, "SECRET_KEY": "test", **config}).test_client()


def test_a_wrong_placeholder_falls_back_to_english_and_is_logged(messages: Path, caplog) -> None:
    (messages / "fr.json").write_text(
        json.dumps({"site.footer": "Versions : {mauvais_legacy} et {modern}.", "index.lessons": "Leçons"}),
        encoding="utf-8",
    )
    with caplog.at_level(logging.ERROR):
        page = _client().get("/?lang=fr")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<html lang="fr"' in html
    assert "Leçons" in html  # the good translation is used
    assert FOOTER_EN in html and "mauvais_legacy" not in html
    assert any("site.footer" in r.getMessage() and "fr.json" in r.getMessage() for r in caplog.records)


def test_a_catalogue_that_is_not_json_serves_english(messages: Path, caplog) -> None:
    (messages / "de.json").write_text('{"index.lessons": "Lektionen",', encoding="utf-8")
    with caplog.at_level(logging.ERROR):
        page = _client().get("/?lang=de")
    assert page.status_code == 200
    assert FOOTER_EN in page.get_data(as_text=True)
    assert any("de.json" in r.getMessage() for r in caplog.records)


def test_a_catalogue_that_is_not_utf8_serves_english(messages: Path, caplog) -> None:
    (messages / "de.json").write_bytes('{"index.lessons": "Lektionen für alle"}'.encode("latin-1"))
    with caplog.at_level(logging.ERROR):
        page = _client().get("/?lang=de")
    assert page.status_code == 200
    assert FOOTER_EN in page.get_data(as_text=True)
    assert any("de.json" in r.getMessage() and "UTF-8" in r.getMessage() for r in caplog.records)


def test_html_lang_is_english_without_a_choice(client) -> None:
    assert '<html lang="en"' in client.get("/").get_data(as_text=True)


def test_an_edited_catalogue_is_read_again_under_reload(messages: Path) -> None:
    fr = messages / "fr.json"
    fr.write_text(json.dumps({"index.lessons": "Leçons"}), encoding="utf-8")
    client = _client(CONTENT_RELOAD=True)
    assert "Leçons" in client.get("/?lang=fr").get_data(as_text=True)
    fr.write_text(json.dumps({"index.lessons": "Les leçons du cours"}), encoding="utf-8")

    stat = fr.stat()
    os.utime(fr, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a coarse clock still sees the edit
    page = client.get("/?lang=fr").get_data(as_text=True)
    assert "Les leçons du cours" in page
