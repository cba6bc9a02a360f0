"""The content engine, on its own fixture content (tests/fixtures/content), and the shipped content,
checked for validity and completeness through ``lesson check`` rather than by its sentences: an author
can rewrite every paragraph and these tests stay green."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from lesson.content.check import SCHEMAS, check, schema_pointer
from lesson.content.course import ContentError, default_root, load_content, load_panels, load_yaml_model, messages
from lesson.content.models import Content, Lesson
from tests.facts import says
from tests.scenarios import load_scenarios

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"
REPO_CONTENT = Path(__file__).resolve().parents[1] / "content"
SHIPPED = default_root()  # the repository's content, or the copy LESSON_CONTENT_ROOT names


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content(FIXTURE)


def lesson_of(content: Content, slug: str) -> Lesson:
    lesson = content.lesson(slug)
    assert lesson is not None, f"no lesson {slug!r}"
    return lesson


# --- the engine ------------------------------------------------------------------------------------


def test_lessons_load_in_order_with_their_quizzes(content: Content) -> None:
    assert [lesson.meta.slug for lesson in content.lessons] == ["first", "second"]
    assert lesson_of(content, "first").meta.title == "Fixture one"
    assert set(content.quizzes) == {"first"} and content.quizzes.get("second") is None
    assert content.lesson("nope") is None


def test_sections_get_anchor_ids_in_order(content: Content) -> None:
    lesson = lesson_of(content, "first")
    assert [(t.id, t.title) for t in lesson.toc] == [
        ("start-here", "Start here"),
        ("try-it", "Try it"),
        ("check", "Check"),
    ]
    html = "".join(b.html for b in lesson.blocks)
    assert re.findall(r'<h2 id="([^"]+)">', html) == ["start-here", "try-it", "check"]


def test_widgets_sit_where_their_lines_are(content: Content) -> None:
    lesson = lesson_of(content, "first")
    assert lesson.widgets == ["lights", "quiz"]
    kinds = [(b.kind, b.name) for b in lesson.blocks]
    assert kinds == [("html", ""), ("widget", "lights"), ("html", ""), ("widget", "quiz")]
    assert 'id="try-it"' in lesson.blocks[0].html and 'id="check"' in lesson.blocks[2].html
    assert lesson_of(content, "second").widgets == ["story", "lab"]
    assert not any(":::" in b.html for lesson in content.lessons for b in lesson.blocks)


def test_a_widget_right_under_a_heading_knows_that_heading(content: Content) -> None:
    """A panel right under a level-2 heading may leave its own title undrawn when it says the same;
    with text between them, the widget has no heading."""
    widgets = {b.name: b.heading for b in lesson_of(content, "first").blocks if b.kind == "widget"}
    assert widgets["lights"] is not None and (widgets["lights"].id, widgets["lights"].title) == ("try-it", "Try it")
    assert widgets["quiz"] is None  # a paragraph sits between "Check" and the quiz
    second = {b.name: b.heading for b in lesson_of(content, "second").blocks if b.kind == "widget"}
    assert second["story"].title == "The story" and second["lab"].title == "Restarts"


def test_message_pairs_render_side_by_side(content: Content) -> None:
    lesson = lesson_of(content, "first")
    assert [(era, name) for era, name, _data, _line in messages(lesson)] == [
        ("legacy", "ToolListChangedNotification"),
        ("modern", "ToolListChangedNotification"),
    ]
    html = "".join(b.html for b in lesson.blocks)
    assert html.count('<div class="message-pair">') == 1
    assert '<figure class="message message--legacy">' in html and "Modern (2026-07-28)" in html
    lines = lesson.source.read_text().splitlines()
    for era, def_name, _message, line in messages(lesson):
        assert lines[line - 1] == f"```json {era} {def_name}"


def test_a_message_is_drawn_a_line_at_a_time_and_reads_as_its_json(content: Content) -> None:
    """Each line of a message is its own box, its indent apart (so a narrow screen can wrap the line
    under its indent); stripped of tags, the block is the message's JSON, escaped."""
    html = "".join(b.html for b in lesson_of(content, "first").blocks)
    body = re.search(r'<pre><code class="language-json">(.*?)</code></pre>', html, re.S).group(1)
    lines = body.split("\n")
    assert all(line.startswith('<span class="ln') and line.endswith("</span>") for line in lines)
    assert '<span class="ln i2"><span class="ind">  </span>' in body
    text = unescape(re.sub(r"<[^>]+>", "", body))
    assert json.loads(text) == messages(lesson_of(content, "first"))[0][2]


def test_links_are_recorded_with_their_lines(content: Content) -> None:
    lesson = lesson_of(content, "first")
    lines = lesson.source.read_text().splitlines()
    assert [link.href for link in lesson.links] == ["#try-it", "/lessons/second#the-story", "#q-one"]
    for link in lesson.links:
        assert f"]({link.href})" in lines[link.line - 1]


def test_two_sections_of_one_title_get_two_anchors_and_a_heading_below_none(tmp_path: Path) -> None:
    """A link to a section lands on one heading: a second section of the same title gets its own id, and
    a heading below a section (###) is no entry of the contents."""
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "x.md").write_text(
        "---\nslug: x\ntitle: X\norder: 1\nsummary: S.\n---\n\n## Try it\n\nA.\n\n### Detail\n\nB.\n\n## Try it\n\nC.\n"
    )
    lesson = load_content(tmp_path).lessons[0]
    ids = [t.id for t in lesson.toc]
    assert len(ids) == 2 and len(set(ids)) == 2 and ids[0] == "try-it"
    html = "".join(b.html for b in lesson.blocks)
    assert re.findall(r'<h2 id="([^"]+)">', html) == ids and "<h3>Detail</h3>" in html


def test_a_minimal_lesson_renders_safely(tmp_path: Path) -> None:
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "x.md").write_text(
        "---\nslug: x\ntitle: X\norder: 1\nsummary: S.\n---\n\n## One\n\n"
        "| a | b |\n|:--|--:|\n| 1 | 2 |\n\n<script>alert(1)</script>\n\n[link](javascript:alert(1))\n"
    )
    lesson = load_content(tmp_path).lessons[0]
    html = lesson.blocks[0].html
    assert '<th class="align-left">' in html and '<td class="align-right">' in html
    assert "<script" not in html and 'href="javascript' not in html and "style=" not in html
    assert lesson.toc[0].id == "one" and messages(lesson) == []


def test_default_root_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LESSON_CONTENT_ROOT", raising=False)
    monkeypatch.delenv("LESSON_CONTENT", raising=False)
    assert default_root() == REPO_CONTENT
    monkeypatch.setenv("LESSON_CONTENT", str(tmp_path / "old"))
    assert default_root() == tmp_path / "old"
    monkeypatch.setenv("LESSON_CONTENT_ROOT", str(tmp_path))
    assert default_root() == tmp_path


# --- the shipped content: valid and complete, whatever its sentences say -----------------------------


def test_shipped_content_passes_lesson_check() -> None:
    report = check(SHIPPED)
    assert [str(p) for p in report.problems] == []
    assert report.lessons >= 1 and report.questions >= 1 and report.panels >= 1


def test_every_shipped_panel_is_shown_and_every_widget_has_a_panel() -> None:
    content = load_content(SHIPPED)
    panels = load_panels(SHIPPED)
    shown = [w for lesson in content.lessons for w in lesson.widgets]
    assert sorted(set(shown) - {"quiz"}) == sorted(panels), "a panel file no lesson shows, or a widget without one"
    for lesson in content.lessons:
        assert lesson.toc, f"{lesson.meta.slug} has no sections"
        if "quiz" in lesson.widgets:
            assert content.quizzes.get(lesson.meta.slug) is not None


def test_shipped_scenarios_include_the_prepared_runs() -> None:
    # The four runs an instructor can replay in class (issue 11); their words are free to change.
    assert {"churn", "outage", "gateway", "restart-answering"} <= set(load_scenarios(SHIPPED))


def test_every_shipped_yaml_file_that_points_at_a_schema_points_at_its_own() -> None:
    """The pointer line is optional (docs/content.md): a file an author adds without it passes too."""
    pointers = {}
    for folder, name in SCHEMAS.items():
        for path in sorted((SHIPPED / folder).glob("*.yaml")):
            pointers[path] = schema_pointer(path)
            assert pointers[path] in (None, f"../schema/{name}.schema.json"), path
    assert any(pointers.values())  # the shipped files show the way


# --- broken content: the strict loader stops with the file and line --------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "content")
    return tmp_path / "content"


def line_of(path: Path, text: str, nth: int = 0) -> int:
    """1-based number of the nth line that equals ``text`` once stripped."""
    hits = [n for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip() == text]
    return hits[nth]


def replace_line(path: Path, line: int, new: str | None) -> None:
    lines = path.read_text().splitlines(keepends=True)
    if new is None:
        del lines[line - 1]
    else:
        lines[line - 1] = new + "\n"
    path.write_text("".join(lines))


def load_error(root: Path) -> ContentError:
    with pytest.raises(ContentError) as info:
        load_content(root)
    return info.value


def test_bad_yaml_syntax(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    line = line_of(quiz, "answer: b")
    replace_line(quiz, line, "    answer: b: c")
    err = load_error(root)
    assert err.path == quiz and err.line == line
    assert str(err).startswith(f"{quiz}:{line}: YAML syntax error")


def test_quiz_answer_not_among_choices(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    line = line_of(quiz, "answer: a")  # the second question's answer
    replace_line(quiz, line, "    answer: d")
    err = load_error(root)
    # Where, which field, the value and the choices it may take: the key facts, whatever the wording.
    message = str(err)
    assert message.startswith(f"{quiz}:{line}: questions[1].answer: ")
    assert "'d'" in message and "a, b, c" in message


def test_missing_front_matter_key(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    replace_line(lesson, line_of(lesson, 'summary: "A small lesson the engine tests use."'), None)
    err = load_error(root)
    assert str(err) == f"{lesson}:1: front matter: missing required key 'summary'"


def test_a_typed_time_estimate_is_refused_at_its_line(root: Path) -> None:
    # The estimate is computed from the lesson; a typed one would drift from it.
    lesson = root / "lessons" / "01-first.md"
    line = line_of(lesson, 'summary: "A small lesson the engine tests use."')
    replace_line(lesson, line, lesson.read_text().splitlines()[line - 1] + "\nminutes: 3")
    err = load_error(root)
    assert err.path == lesson and err.line == line + 1 and "minutes" in err.message and "computed" in err.message


def test_unknown_front_matter_key(root: Path) -> None:
    lesson = root / "lessons" / "02-second.md"
    replace_line(lesson, 3, "author: somebody\n" + lesson.read_text().splitlines()[2])
    err = load_error(root)
    assert str(err) == f"{lesson}:3: front matter: unknown key 'author'"


def test_wrongly_typed_front_matter_value(root: Path) -> None:
    lesson = root / "lessons" / "02-second.md"
    line = line_of(lesson, "order: 2")
    replace_line(lesson, line, "order: eight")
    err = load_error(root)
    assert err.line == line and "order: " in err.message and "whole number" in err.message


def test_widget_without_a_panel_file(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    line = line_of(lesson, "::: lights")
    replace_line(lesson, line, "::: light")
    err = load_error(root)
    message = str(err)
    assert message.startswith(f"{lesson}:{line}: ")
    assert "'light'" in message and "panels/light.yaml" in message


def test_widget_line_must_stand_alone(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    line = line_of(lesson, "::: lights")
    replace_line(lesson, line + 1, "and some words right after it")
    err = load_error(root)
    assert err.line == line and "alone" in err.message


def test_json_block_that_does_not_parse(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    fence = line_of(lesson, "```json modern ToolListChangedNotification")
    replace_line(lesson, fence + 2, '  "method": "notifications/tools/list_changed"')  # drop the comma
    err = load_error(root)
    assert err.path == lesson and err.line == fence
    says(err.message, "json modern ToolListChangedNotification", "not valid JSON", "line 3 of the block")


def test_bad_message_info_string(root: Path) -> None:
    lesson = root / "lessons" / "02-second.md"
    fence = line_of(lesson, "```json legacy ListToolsRequest")
    replace_line(lesson, fence, "```json ancient ListToolsRequest")
    err = load_error(root)
    assert err.line == fence and "json legacy DefName" in err.message


def test_unpaired_message_block(root: Path) -> None:
    lesson = root / "lessons" / "02-second.md"
    fence = line_of(lesson, "```json modern ListToolsRequest")
    lines = lesson.read_text().splitlines(keepends=True)
    end = next(n for n in range(fence, len(lines)) if lines[n].strip() == "```")
    lesson.write_text("".join(lines[: fence - 1] + lines[end + 1 :]))
    err = load_error(root)
    assert err.line == line_of(lesson, "```json legacy ListToolsRequest")
    assert "modern counterpart" in err.message


def test_lesson_with_quiz_widget_needs_its_quiz(root: Path) -> None:
    (root / "quizzes" / "first.yaml").unlink()
    lesson = root / "lessons" / "01-first.md"
    err = load_error(root)
    line = line_of(lesson, "::: quiz")
    message = str(err)
    assert message.startswith(f"{lesson}:{line}: ")
    assert "quizzes/first.yaml" in message


def test_duplicate_slug(root: Path) -> None:
    lesson = root / "lessons" / "02-second.md"
    replace_line(lesson, 2, "slug: first")
    err = load_error(root)
    assert err.path == lesson and err.line == 2 and "slug 'first' is also used" in err.message


def test_duplicate_yaml_key(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    quiz.write_text(quiz.read_text().replace("id: first\n", "id: first\nid: first\n", 1))
    err = load_error(root)
    assert str(err) == f"{quiz}:2: key 'id' appears twice"


def test_the_first_problem_carries_the_rest(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    quiz.write_text(quiz.read_text().replace("answer: b", "answer: x").replace("answer: a", "answer: y"))
    err = load_error(root)
    assert len(err.problems) == 2 and "1 more problem" in err.message
    assert [p.line for p in err.problems] == [line_of(quiz, "answer: x"), line_of(quiz, "answer: y")]


class _Tiny(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str
    size: int


def test_load_yaml_model_is_generic(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text("# a comment\nname: box\nsize: 3\n")
    assert load_yaml_model(path, _Tiny) == _Tiny(name="box", size=3)
    path.write_text("# a comment\nname: box\nsize: big\n")
    with pytest.raises(ContentError) as info:
        load_yaml_model(path, _Tiny)
    assert info.value.line == 3 and info.value.message.startswith("size: ") and "whole number" in info.value.message


def test_content_error_without_a_line() -> None:
    assert str(ContentError(Path("x.yaml"), None, "broken")) == "x.yaml: broken"
    assert str(ContentError(Path("x.yaml"), 4, "broken")) == "x.yaml:4: broken"


def test_a_panel_finds_its_buttons_and_stays_equal_to_a_fresh_load() -> None:
    pressed, fresh = load_panels(default_root())["outage"], load_panels(default_root())["outage"]
    assert pressed.button("a-dies") is not None and pressed.button("no-such-button") is None
    assert pressed == fresh  # looking a button up leaves nothing in the panel
    emptied = pressed.model_copy(update={"buttons": []})
    assert emptied.button("a-dies") is None and pressed.button("a-dies") is not None


# --- the course: a reference page, and the former lessons' addresses ----------------------------------
# (One idea a lesson, its word and panel budgets and the quick check closing it are rules of lesson check.)


@pytest.fixture(scope="module")
def shipped_client():
    from lesson.web import create_app

    return create_app({"TESTING": True}).test_client()


FORMER = [m.slug for m in load_content(SHIPPED).moved]


@pytest.mark.parametrize("embed", [False, True])
@pytest.mark.parametrize("slug", FORMER)
def test_a_former_lesson_shows_where_each_part_went(shipped_client, slug: str, embed: bool) -> None:
    shipped = load_content(SHIPPED)
    resp = shipped_client.get(f"/{'embed' if embed else 'lessons'}/{slug}")
    assert resp.status_code == 200
    page = unescape(resp.get_data(as_text=True))
    former = shipped.former(slug)
    assert former is not None
    for part in former.parts:
        assert f'id="{part.section}"' in page
        target = part.to
        if embed:
            target = target.replace("/lessons/", "/embed/").replace("/reference", "/reference?embed=1")
        assert f'href="{target}"' in page, target
    assert ("site-header" in page) is not embed
    assert shipped_client.get("/lessons/no-such-lesson").status_code == 404


def test_the_reference_page_holds_what_the_lessons_link_to(shipped_client) -> None:
    shipped = load_content(SHIPPED)
    page = shipped_client.get("/reference").get_data(as_text=True)
    wanted = {
        link.href.partition("#")[2]
        for lesson in shipped.lessons
        for link in lesson.links
        if link.href.startswith("/reference")
    }
    assert all(f'id="{anchor}"' in page for anchor in wanted)
    index = shipped_client.get("/").get_data(as_text=True)
    assert 'href="/reference"' in index
    assert all(f'href="/lessons/{lesson.meta.slug}"' in index for lesson in shipped.lessons)
