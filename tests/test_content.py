"""The lesson content: it loads, it has the agreed shape, every wire message it shows is schema-valid, and
broken content is reported with the file and line to fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from lesson.content import (
    Content,
    ContentError,
    Lesson,
    default_root,
    load_content,
    load_yaml_model,
    messages,
)
from tests.schemas import errors

CONTENT = Path(__file__).resolve().parents[1] / "content"

SECTIONS = {
    "hot-swapping": [
        "What you will be able to do",
        "A session with churn",
        "The five rules",
        "The messages, era by era",
        "Play out an outage",
        "Restarts, era by era",
        "The gateway pattern",
        "Explicit state handles",
        "Quick check",
        "Recap",
    ],
    "list-changed": [
        "The short answer",
        "An example: a project-management server",
        "Before a server sends it",
        "When a server never needs it",
        "Misbehaving servers",
        "Quick check",
    ],
}

WIDGET_SECTIONS = {
    "hot-swapping": {
        "churn": "A session with churn",
        "outage": "Play out an outage",
        "restarts": "Restarts, era by era",
        "gateway": "The gateway pattern",
        "handles": "Explicit state handles",
        "quiz": "Quick check",
    },
    "list-changed": {"guide": "Misbehaving servers", "quiz": "Quick check"},
}

# A legacy JSONRPCResultResponse only checks the envelope; check its result against the specific result too.
LEGACY_RESULTS = {
    "protocolVersion": "InitializeResult",
    "tools": "ListToolsResult",
    "action": "ElicitResult",
    "content": "CallToolResult",
}


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content(CONTENT)


def lesson_of(content: Content, slug: str) -> Lesson:
    lesson = content.lesson(slug)
    assert lesson is not None, f"no lesson {slug!r}"
    return lesson


def all_messages() -> list[tuple[str, str, str, object, int]]:
    return [(lesson.meta.slug, *m) for lesson in load_content(CONTENT).lessons for m in messages(lesson)]


# --- the real content ------------------------------------------------------------------------------


def test_real_content_loads(content: Content) -> None:
    assert [lesson.meta.slug for lesson in content.lessons] == ["hot-swapping", "list-changed"]
    assert [lesson.meta.order for lesson in content.lessons] == [1, 2]
    assert lesson_of(content, "hot-swapping").meta.title == "Hot-swapping servers: churn, outages and restarts"
    assert lesson_of(content, "list-changed").meta.title == "tools/list_changed: what it is and when to send it"
    assert set(content.quizzes) == {"hot-swapping", "list-changed"}
    assert content.lesson("nope") is None
    for lesson in content.lessons:
        assert 1 <= lesson.meta.minutes <= 60
        assert lesson.meta.summary.endswith(".")


@pytest.mark.parametrize("slug", SECTIONS)
def test_sections_in_order(content: Content, slug: str) -> None:
    lesson = lesson_of(content, slug)
    assert [t.title for t in lesson.toc] == SECTIONS[slug]
    ids = [t.id for t in lesson.toc]
    assert len(set(ids)) == len(ids)
    html = "".join(b.html for b in lesson.blocks)
    assert re.findall(r'<h2 id="([^"]+)">', html) == ids


@pytest.mark.parametrize("slug", WIDGET_SECTIONS)
def test_widgets_sit_in_their_sections(content: Content, slug: str) -> None:
    lesson = lesson_of(content, slug)
    titles = {t.id: t.title for t in lesson.toc}
    section = None
    placed: dict[str, str | None] = {}
    for block in lesson.blocks:
        if block.kind == "html":
            headings = re.findall(r'<h2 id="([^"]+)">', block.html)
            if headings:
                section = titles[headings[-1]]
        else:
            placed[block.name] = section
    assert placed == WIDGET_SECTIONS[slug]
    assert lesson.widgets == list(WIDGET_SECTIONS[slug])


def test_widget_lines_are_not_rendered_as_text(content: Content) -> None:
    for lesson in content.lessons:
        assert not any(":::" in b.html for b in lesson.blocks)


@pytest.mark.parametrize(("slug", "era", "def_name", "message", "line"), all_messages())
def test_every_message_block_is_schema_valid(slug: str, era: str, def_name: str, message: object, line: int) -> None:
    assert errors(message, era, def_name) == [], f"{slug} line {line}"
    if era == "legacy" and def_name == "JSONRPCResultResponse":
        assert isinstance(message, dict)
        kinds = [LEGACY_RESULTS[k] for k in message["result"] if k in LEGACY_RESULTS]
        assert kinds, f"{slug} line {line}: cannot tell which result this is"
        assert errors(message, era, kinds[0], "/result") == [], f"{slug} line {line}"


def test_message_lines_point_at_their_blocks(content: Content) -> None:
    for lesson in content.lessons:
        lines = lesson.source.read_text().splitlines()
        for era, def_name, _message, line in messages(lesson):
            assert lines[line - 1] == f"```json {era} {def_name}"


@pytest.mark.parametrize("slug", SECTIONS)
def test_each_lesson_shows_both_eras_in_pairs(content: Content, slug: str) -> None:
    lesson = lesson_of(content, slug)
    eras = [m[0] for m in messages(lesson)]
    assert "legacy" in eras and "modern" in eras
    assert eras == ["legacy", "modern"] * (len(eras) // 2)
    html = "".join(b.html for b in lesson.blocks)
    assert html.count('<div class="message-pair">') == len(eras) // 2
    assert html.count('<figure class="message message--legacy">') == eras.count("legacy")
    assert html.count('<figcaption><span class="message__era">Modern (2026-07-28)</span>') == eras.count("modern")


def test_modern_subscription_ids_match_the_listen_request(content: Content) -> None:
    shown = messages(lesson_of(content, "hot-swapping"))
    listen_ids = {m["id"] for _e, d, m, _l in shown if d == "SubscriptionsListenRequest"}  # type: ignore[index]
    sub_ids = {
        m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]  # type: ignore[index]
        for era, d, m, _l in shown
        if era == "modern" and d in ("ToolListChangedNotification", "SubscriptionsAcknowledgedNotification")
    }
    assert len(listen_ids) == 1 and sub_ids == listen_ids


def test_generated_html_has_no_scripts_or_styles(content: Content) -> None:
    for lesson in content.lessons:
        for block in lesson.blocks:
            assert not re.search(r"<script|<style|\sstyle=|\son[a-z]+=", block.html, re.IGNORECASE)


def test_a_minimal_lesson_renders_safely(tmp_path: Path) -> None:
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "x.md").write_text(
        "---\nslug: x\ntitle: X\norder: 1\nsummary: S.\nminutes: 1\n---\n\n## One\n\n"
        "| a | b |\n|:--|--:|\n| 1 | 2 |\n\n<script>alert(1)</script>\n\n[link](javascript:alert(1))\n"
    )
    lesson = load_content(tmp_path).lessons[0]
    html = lesson.blocks[0].html
    assert '<th class="align-left">' in html and '<td class="align-right">' in html
    assert "<script" not in html and 'href="javascript' not in html and "style=" not in html
    assert lesson.toc[0].id == "one" and messages(lesson) == []


def test_each_quiz_widget_maps_to_its_quiz(content: Content) -> None:
    for lesson in content.lessons:
        if "quiz" in lesson.widgets:
            quiz = content.quiz(lesson.meta.slug)
            assert quiz is not None and quiz.id == lesson.meta.slug
    assert len(content.quizzes["hot-swapping"].questions) == 3
    assert len(content.quizzes["list-changed"].questions) >= 3


def test_quiz_answers_are_among_the_choices(content: Content) -> None:
    for quiz in content.quizzes.values():
        assert len({q.id for q in quiz.questions}) == len(quiz.questions)
        for question in quiz.questions:
            ids = [c.id for c in question.choices]
            assert 2 <= len(ids) <= 5 and len(set(ids)) == len(ids)
            assert question.answer in ids
            assert question.explanation.strip()


@pytest.mark.parametrize(
    ("slug", "claims"),
    [
        (
            "hot-swapping",
            [
                "404",
                "requestState",
                "Last-Event-ID",
                "subscriptions/listen",
                "notifications/subscriptions/acknowledged",
                "idempotent",
                "server/discover",
                "new id",
                "-32602",
                "wait for the acknowledgement",
                "tokens in memory",
                "issued a session id",
                "not replayed",
                "restarting the process first",
                "basket_id",
            ],
        ),
        (
            "list-changed",
            [
                "tools.listChanged",
                "delete_workspace",
                "create_ticket",
                "assign_ticket",
                "server/discover",
                "list_tables",
                "timer",
                "authorization",
            ],
        ),
    ],
)
def test_key_facts_stay_in_the_text(content: Content, slug: str, claims: list[str]) -> None:
    text = " ".join(lesson_of(content, slug).source.read_text().split())
    for claim in claims:
        assert claim in text, claim


def test_the_sources_wrong_wording_is_gone(content: Content) -> None:
    for lesson in content.lessons:
        text = lesson.source.read_text().lower()
        assert "ticket unexpired" not in text and "key is unchanged" not in text
    quiz_text = (CONTENT / "quizzes" / "hot-swapping.yaml").read_text()
    assert "initialize" in quiz_text  # the legacy contrast in the explanation


def test_default_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LESSON_CONTENT", raising=False)
    assert default_root() == CONTENT
    monkeypatch.setenv("LESSON_CONTENT", str(tmp_path))
    assert default_root() == tmp_path


# --- broken content --------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(CONTENT, tmp_path / "content")
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
    quiz = root / "quizzes" / "hot-swapping.yaml"
    line = line_of(quiz, "answer: b", 0)
    replace_line(quiz, line, "    answer: b: c")
    err = load_error(root)
    assert err.path == quiz and err.line == line
    assert str(err).startswith(f"{quiz}:{line}: YAML syntax error")


def test_quiz_answer_not_among_choices(root: Path) -> None:
    quiz = root / "quizzes" / "hot-swapping.yaml"
    line = line_of(quiz, "answer: b", 0)  # the second question's answer
    replace_line(quiz, line, "    answer: d")
    err = load_error(root)
    assert str(err) == f"{quiz}:{line}: questions[1].answer: 'd' is not one of the choices a, b, c"


def test_missing_front_matter_key(root: Path) -> None:
    lesson = root / "lessons" / "01-hot-swapping.md"
    replace_line(lesson, line_of(lesson, "minutes: 15"), None)
    err = load_error(root)
    assert str(err) == f"{lesson}:1: front matter: missing required key 'minutes'"


def test_unknown_front_matter_key(root: Path) -> None:
    lesson = root / "lessons" / "02-list-changed.md"
    replace_line(lesson, 3, "author: somebody\n" + lesson.read_text().splitlines()[2])
    err = load_error(root)
    assert str(err) == f"{lesson}:3: front matter: unknown key 'author'"


def test_wrongly_typed_front_matter_value(root: Path) -> None:
    lesson = root / "lessons" / "02-list-changed.md"
    line = line_of(lesson, "minutes: 7")
    replace_line(lesson, line, "minutes: eight")
    err = load_error(root)
    assert err.line == line and "minutes: Input should be a valid integer" in err.message


def test_unknown_widget(root: Path) -> None:
    lesson = root / "lessons" / "01-hot-swapping.md"
    line = line_of(lesson, "::: gateway")
    replace_line(lesson, line, "::: gateways")
    err = load_error(root)
    assert str(err).startswith(f"{lesson}:{line}: unknown widget 'gateways'")


def test_widget_line_must_stand_alone(root: Path) -> None:
    lesson = root / "lessons" / "01-hot-swapping.md"
    line = line_of(lesson, "::: gateway")
    replace_line(lesson, line + 1, "and some words right after it")
    err = load_error(root)
    assert err.line == line and "alone" in err.message


def test_json_block_that_does_not_parse(root: Path) -> None:
    lesson = root / "lessons" / "01-hot-swapping.md"
    fence = line_of(lesson, "```json modern ToolListChangedNotification")
    replace_line(lesson, fence + 2, '  "method": "notifications/tools/list_changed"')  # drop the comma
    err = load_error(root)
    assert err.path == lesson and err.line == fence
    assert "'json modern ToolListChangedNotification' block is not valid JSON" in err.message
    assert "line 3 of the block" in err.message


def test_bad_message_info_string(root: Path) -> None:
    lesson = root / "lessons" / "02-list-changed.md"
    fence = line_of(lesson, "```json legacy ListToolsRequest")
    replace_line(lesson, fence, "```json ancient ListToolsRequest")
    err = load_error(root)
    assert err.line == fence and "json legacy DefName" in err.message


def test_unpaired_message_block(root: Path) -> None:
    lesson = root / "lessons" / "02-list-changed.md"
    fence = line_of(lesson, "```json modern ListToolsRequest")
    lines = lesson.read_text().splitlines(keepends=True)
    end = next(n for n in range(fence, len(lines)) if lines[n].strip() == "```")
    lesson.write_text("".join(lines[: fence - 1] + lines[end + 1 :]))
    err = load_error(root)
    assert err.line == line_of(lesson, "```json legacy ListToolsRequest")
    assert "modern counterpart" in err.message


def test_lesson_with_quiz_widget_needs_its_quiz(root: Path) -> None:
    (root / "quizzes" / "list-changed.yaml").unlink()
    lesson = root / "lessons" / "02-list-changed.md"
    err = load_error(root)
    assert (
        str(err)
        == f"{lesson}:{line_of(lesson, '::: quiz')}: this lesson shows a quiz, but quizzes/list-changed.yaml is missing"
    )


def test_duplicate_slug(root: Path) -> None:
    lesson = root / "lessons" / "02-list-changed.md"
    replace_line(lesson, 2, "slug: hot-swapping")
    err = load_error(root)
    assert err.path == lesson and err.line == 2 and "slug 'hot-swapping' is also used" in err.message


def test_duplicate_yaml_key(root: Path) -> None:
    quiz = root / "quizzes" / "list-changed.yaml"
    quiz.write_text(quiz.read_text().replace("id: list-changed\n", "id: list-changed\nid: list-changed\n", 1))
    err = load_error(root)
    assert str(err) == f"{quiz}:2: key 'id' appears twice"


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
    assert info.value.line == 3 and info.value.message.startswith("size: Input should be a valid integer")


def test_content_error_without_a_line() -> None:
    assert str(ContentError(Path("x.yaml"), None, "broken")) == "x.yaml: broken"
    assert str(ContentError(Path("x.yaml"), 4, "broken")) == "x.yaml:4: broken"
