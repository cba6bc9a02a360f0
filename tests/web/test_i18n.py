"""UI strings come from the message catalogue: every page rendered in the pseudo-locale (each message
wrapped in ⟦…⟧) has no UI text outside a message, in the whole of its header, main part and footer.

Excluded, because it is content data and not UI text: what comes from content files (lesson prose,
titles, summaries, panel titles, button and variant labels, goals, hints, prediction questions and
choices), marked ``data-content`` on its element or, for lesson prose, between ``<!--content-->`` and
``<!--/content-->`` comments (a wrapper element would break the prose styles); and ``<code>``, scripts
and styles.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import brotli
import pytest
from markupsafe import escape

from lesson.i18n import catalogue, script_messages, translate
from lesson.web.strings import LATER_GROUPS, split_messages

WRAPPED = re.compile(r"⟦[^⟦⟧]*⟧")
NEUTRAL = re.compile(r"^[\s\d·.,:;()\-–—…/]*$")
SKIP_TAGS = {"script", "style", "code"}
VOID = {"meta", "link", "input", "br", "img", "hr", "source", "wbr"}
LABELS = ("aria-label", "title", "placeholder")


def unwrapped(text: str) -> str:
    while WRAPPED.search(text):
        text = WRAPPED.sub("", text)
    return text


class Finder(HTMLParser):
    """Collects text (and labels) outside messages, inside the checked scope of a page. Text runs on
    across inline elements, so a message holding a ``<code>`` value is read as one."""

    def __init__(self, scope_tags: tuple[str, ...] = ("main", "title")) -> None:
        super().__init__(convert_charrefs=True)
        self.scope_tags = scope_tags
        self.stack: list[tuple[str, bool, bool]] = []  # (tag, in scope, skipped)
        self.in_content = False  # between <!--content--> and <!--/content-->
        self.runs: list[str] = [""]
        self.labels: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        scope, skip = (self.stack[-1][1], self.stack[-1][2]) if self.stack else (False, False)
        if {"site-header", "site-footer", "skip-link"} & set(classes):
            scope = True
        if tag in self.scope_tags:
            scope = True
        if "data-content" in a or tag in SKIP_TAGS or self.in_content:
            skip = True
        if scope and not skip:
            for name in LABELS:
                if a.get(name) and not NEUTRAL.match(unwrapped(a[name])):
                    self.labels.append(f"<{tag} {name}={a[name]!r}>")
        if tag not in VOID:
            self.stack.append((tag, scope, skip))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_comment(self, data: str) -> None:
        if data.strip() in ("content", "/content"):
            self.in_content = data.strip() == "content"
            self.runs.append("")

    def handle_data(self, data: str) -> None:
        scope, skip = (self.stack[-1][1], self.stack[-1][2]) if self.stack else (False, False)
        if not scope or self.in_content:
            self.runs.append("")
        elif not skip:
            self.runs[-1] += data

    @property
    def found(self) -> list[str]:
        left = [unwrapped(run) for run in self.runs]
        return self.labels + [" ".join(run.split()) for run in left if not NEUTRAL.match(run)]


def untranslated(html: str, scope_tags: tuple[str, ...] = ("main", "title")) -> list[str]:
    finder = Finder(scope_tags)
    finder.feed(html)
    return finder.found


def pages(app) -> list[str]:
    from lesson.web import lesson_state

    with app.app_context():
        slugs = [lesson.meta.slug for lesson in lesson_state().content.lessons]
    # The reference page and a former lesson's address (which lists where its parts went) too.
    extra = ["/", "/lessons/none-such", "/reference", "/lessons/hot-swapping", "/embed/hot-swapping"]
    return extra + [f"/lessons/{s}" for s in slugs] + [f"/lessons/{s}?embed=1" for s in slugs]


def test_every_page_in_the_pseudo_locale_has_no_untranslated_ui_string(app, client) -> None:
    checked = 0
    for path in pages(app):
        html = client.get(path + ("&" if "?" in path else "?") + "lang=pseudo").get_data(as_text=True)
        assert "⟦" in html, path
        assert untranslated(html) == [], path
        checked += 1
    assert checked >= 4


def test_the_finder_catches_a_string_outside_the_catalogue(app, client) -> None:
    html = client.get("/lessons/restarts?lang=pseudo").get_data(as_text=True)
    assert 'data-panel="restarts"' in html and "data-quiz" in html
    broken = html.replace("<legend>⟦", "<legend>Hard-coded ⟦", 1)
    assert untranslated(broken) == ["Hard-coded"]
    broken = html.replace('aria-label="⟦Quick check questions⟧"', 'aria-label="Quick check"', 1)
    assert untranslated(broken) == ["<section aria-label='Quick check'>"]
    # In English nothing is wrapped, so everything in scope is found.
    assert "The course" in " ".join(untranslated(client.get("/").get_data(as_text=True)))


def test_every_widget_kind_is_on_the_pages_checked(client) -> None:
    html = " ".join(
        client.get(f"/lessons/{slug}?lang=pseudo").get_data(as_text=True)
        for slug in ("servers-come-and-go", "an-outage", "restarts")
    )
    for marker in ("data-quiz", 'data-panel="stepper"', 'data-panel="restarts"', 'data-panel="playground"'):
        assert marker in html


def test_the_finder_reads_playgrounds_and_skips_only_content(app, client) -> None:
    html = client.get("/lessons/an-outage?lang=pseudo").get_data(as_text=True)
    broken = html.replace(">⟦Undo⟧<", ">Undo<", 1)
    assert untranslated(broken) == ["Undo"]
    broken = html.replace('<summary class="toc-title">⟦', '<summary class="toc-title">Sections ⟦', 1)
    assert untranslated(broken) == ["Sections"]
    # Lesson prose is skipped only between its comments.
    broken = html.replace("<!--/content-->", "<!--/content--><p>Loose prose</p>", 1)
    assert untranslated(broken) == ["Loose prose"]


def test_the_scripts_get_their_messages_from_a_cached_asset_named_by_the_page(client) -> None:
    html = client.get("/?lang=pseudo").get_data(as_text=True)
    found = re.search(r'<html[^>]* data-messages="(/data/[0-9a-f]{12}/messages-pseudo\.json)"', html)
    assert found, "the page does not name its messages asset"
    url = found.group(1)
    assert f'<link rel="preload" href="{url}" as="fetch" crossorigin>' in html
    resp = client.get(url, headers={"Accept-Encoding": "br"})
    assert resp.status_code == 200 and "immutable" in resp.headers["Cache-Control"]
    assert resp.headers["Content-Encoding"] == "br"
    table = json.loads(brotli.decompress(resp.get_data()))
    # The groups only a module fetched later uses are documents beside it (lesson/web/strings.py).
    for group in LATER_GROUPS:
        part = client.get(url.replace(".json", f"-{group}.json")).get_json()
        assert part and all(k.startswith(group + ".") for k in part)
        table |= part
    assert table == script_messages("pseudo")
    assert all(v.startswith("⟦") and v.endswith("⟧") for v in table.values())
    # Every page in a language names the same asset; English pages name the English one.
    assert url in client.get("/lessons/an-outage?lang=pseudo").get_data(as_text=True)
    english = re.search(r'data-messages="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    assert english.endswith("/messages-en.json")
    assert client.get(english).get_json() == split_messages(script_messages("en"))[""]


def test_the_storage_notice_comes_from_the_catalogue(client) -> None:
    html = client.get("/lessons/an-outage?lang=pseudo").get_data(as_text=True)
    notice = re.search(r'<p class="storage-notice" data-storage-notice="([^"]*)"', html)
    assert notice and notice.group(1) == str(escape(translate("pseudo", "site.storage_refused")))
    assert notice.group(1).startswith("⟦")


def test_catalogue_fills_placeholders_and_rejects_unknown_keys() -> None:
    assert translate("en", "quiz.qnum", n=2, total=5) == "Question 2 of 5."
    assert translate("pseudo", "quiz.qnum", n=2, total=5) == "⟦Question 2 of 5.⟧"
    with pytest.raises(KeyError):
        translate("en", "no.such.key")
    with pytest.raises(KeyError):
        catalogue("xx")


def test_an_unknown_locale_stops_start_up() -> None:
    from lesson.settings import SettingsError
    from lesson.web import create_app

    with pytest.raises(SettingsError, match="LESSON_LOCALE='xx' has no message catalogue"):
        create_app({"LOCALE": "xx"})


def test_the_locale_setting_renders_every_page_in_it() -> None:
    from lesson.web import create_app

    client = create_app({"LOCALE": "pseudo", "SECRET_KEY": "t"}).test_client()
    assert "⟦The course⟧" in client.get("/").get_data(as_text=True)
    assert "<h2>The course</h2>" in create_app({"SECRET_KEY": "t"}).test_client().get("/").get_data(as_text=True)


def test_every_message_used_in_the_converted_files_exists() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    known = catalogue("en")
    used: set[str] = set()
    for path in (root / "templates").rglob("*.html"):
        used |= set(re.findall(r"""_\(["']([\w.]*\w)["']""", path.read_text()))  # not a prefix joined to a name
    for path in (root / "static" / "js").glob("*.js"):
        used |= {"js." + k for k in re.findall(r"""\bt\(["'`]([\w.]+)["'`]""", path.read_text())}
    missing = sorted(k for k in used if k not in known)
    assert missing == []
    assert len(used) > 60


# --- the SCORM launch page: rendered by lesson.portal.scorm, outside the web app --------------------------


def scorm_files(locale: str, title: str = "Hot-swapping") -> dict[str, str]:
    import io
    import zipfile

    from lesson.portal import scorm

    data = scorm.build_package("an-outage", title, "https://lab.example/mcp", locale=locale)
    zf = zipfile.ZipFile(io.BytesIO(data))
    return {name: zf.read(name).decode() for name in zf.namelist()}


def test_the_scorm_launch_page_in_the_pseudo_locale_has_no_untranslated_ui_string() -> None:
    files = scorm_files("pseudo")
    page = files["index.html"]
    # The whole page is read (it has no site header or footer): title, header, frame and noscript.
    assert untranslated(page, ("html",)) == []
    assert "⟦Connecting to the learning platform…⟧" in page
    # The lines scorm.js writes reach it from the catalogue, as data attributes; the script has no text.
    for key in ("scorm.recorded", "scorm.unrecorded"):
        assert f'="{translate("pseudo", key)}"' in page
        assert translate("en", key) not in files["scorm.js"]
    # The LMS shows the course by the organization's title: the site's name, from the catalogue.
    assert "<title>⟦MCP Churn Lab⟧</title>" in files["imsmanifest.xml"]


def test_the_finder_reads_the_whole_scorm_page() -> None:
    page = scorm_files("pseudo", title="Lesson title from content")
    assert "Lesson title from content" in page["index.html"]  # content, so not reported
    broken = page["index.html"].replace("<main>", "<main><p>Hard-coded</p>", 1)
    assert untranslated(broken, ("html",)) == ["Hard-coded"]
    broken = page["index.html"].replace(">⟦Open the lesson⟧<", ">Open the lesson<", 1)
    assert untranslated(broken, ("html",)) == ["Open the lesson"]
    # In English nothing is wrapped: every UI string of the page is found.
    found = " ".join(untranslated(scorm_files("en")["index.html"], ("html",)))
    assert "Connecting to the learning platform" in found and "Lesson title" not in found
