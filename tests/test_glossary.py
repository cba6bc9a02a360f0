"""The glossary and what ``lesson check`` asks of it: a term linked where the course first uses it, each
finding at its file and line; quiz feedback short and linked; the time estimate computed, not typed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from lesson.content.check import check
from lesson.content.course import load_content
from lesson.content.limits import estimate_minutes
from lesson.content.models import Glossary
from lesson.content.yamlfile import ContentError, load_yaml_model

from .facts import says

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"
ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = """terms:
  - id: listen-stream
    term: listen stream
    also: [subscriptions/listen]
    means: "A request the server keeps open to send change notices on."
  - id: mcp
    term: MCP
    means: "The Model Context Protocol."
  - id: mcp-session-id
    term: Mcp-Session-Id
    means: "The header that carries a legacy session id."
  - id: fixture-word
    term: fixture word
    means: "A word only the fixture's panel uses."
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "content")
    (tmp_path / "content" / "glossary.yaml").write_text(GLOSSARY)
    return tmp_path / "content"


def add_line(path: Path, after: str, text: str) -> int:
    """Put ``text`` on a line of its own (with blank lines around it) after the line ``after``; its line."""
    lines = path.read_text().splitlines()
    at = lines.index(after) + 1
    lines[at:at] = ["", text, ""]
    path.write_text("\n".join(lines) + "\n")
    return at + 2


def problems(root: Path) -> list[str]:
    return [str(p) for p in check(root).problems]


def test_the_fixture_with_a_glossary_it_never_uses_is_clean(root: Path) -> None:
    assert problems(root) == []


# Lines added to the fixture's lessons ((lesson, after the line, the text), in order) and the one finding they
# make: at the first added line, naming the facts.
FIRST, SECOND = "01-first.md", "02-second.md"
ONE_FINDING = [
    pytest.param(
        [
            (FIRST, "## Start here", "Every client opens a listen stream here."),
            (FIRST, "## Try it", "The [listen stream](/glossary#listen-stream) is defined only now."),
        ],
        ["'listen stream'", "/glossary#listen-stream"],
        id="a-term-used-before-its-link",
    ),
    pytest.param(
        [
            (FIRST, "## Try it", "Lesson one says listen stream first."),
            (SECOND, "## The story", "Only lesson two links the [listen stream](/glossary#listen-stream)."),
        ],
        ["'listen stream'"],
        id="a-later-lesson-does-not-define-a-term-for-an-earlier-one",
    ),
    pytest.param(
        # Mcp-Session-Id, not MCP as well; the JSON blocks' contents are not prose
        [(FIRST, "## Start here", "The `Mcp-Session-Id` header comes first.")],
        ["'Mcp-Session-Id'", "/glossary#mcp-session-id"],
        id="a-longer-term-is-one-use-and-code-blocks-do-not-count",
    ),
    pytest.param(
        [(FIRST, "## Start here", "A [ghost](/glossary#ghost) term.")],
        ["/glossary#ghost", "'ghost'"],
        id="a-link-to-a-term-the-glossary-lacks-is-broken",
    ),
]


@pytest.mark.parametrize(("added", "facts"), ONE_FINDING)
def test_a_finding_is_reported_once_at_its_line(
    root: Path, added: list[tuple[str, str, str]], facts: list[str]
) -> None:
    lines = [add_line(root / "lessons" / lesson, after, text) for lesson, after, text in added]
    (found,) = problems(root)
    assert found.startswith(f"{root / 'lessons' / added[0][0]}:{lines[0]}: ")
    says(found, *facts)


def test_a_link_first_makes_later_uses_and_later_lessons_fine(root: Path) -> None:
    first, second = root / "lessons" / "01-first.md", root / "lessons" / "02-second.md"
    add_line(first, "## Start here", "A [listen stream](/glossary#listen-stream) stays open.")
    add_line(first, "## Try it", "The LISTEN-STREAMS, and the subscriptions/listen request, are fine now.")
    add_line(second, "## The story", "Lesson two says listen stream without a link: lesson one linked it.")
    assert problems(root) == []


def test_a_panel_using_a_term_counts_where_the_lesson_places_it(root: Path) -> None:
    panel, lesson = root / "panels" / "lights.yaml", root / "lessons" / "01-first.md"
    panel.write_text(panel.read_text().replace('hints: ["Kill A."]', 'hints: ["Kill A, then say the fixture word."]'))
    widget = lesson.read_text().splitlines().index("::: lights") + 1
    (found,) = problems(root)
    assert found.startswith(f"{lesson}:{widget}: ")
    says(found, "'lights'", "'fixture word'", "/glossary#fixture-word")
    add_line(lesson, "## Start here", "The [fixture word](/glossary#fixture-word), defined before the panel.")
    assert problems(root) == []


def test_long_feedback_and_a_missing_or_broken_see_are_reported_at_their_lines(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    text = quiz.read_text()
    long = " ".join(["word"] * 41)
    text = text.replace('explanation: "Fixture explanation one."', f'explanation: "{long}"')
    text = text.replace('    see: "#try-it"\n', '    see: "#nowhere"\n')
    quiz.write_text(text.replace('    see: "#start-here"\n', ""))
    lines = quiz.read_text().splitlines()
    found = problems(root)
    explanation = next(n for n, x in enumerate(lines, 1) if long in x)
    one = next(n for n, x in enumerate(lines, 1) if x == "  - id: one")
    nowhere = next(n for n, x in enumerate(lines, 1) if "#nowhere" in x)
    assert len(found) == 3
    assert any(p.startswith(f"{quiz}:{explanation}: ") and "41 words" in p and "40" in p for p in found)
    assert any(p.startswith(f"{quiz}:{one}: ") and "'see'" in p for p in found)
    assert any(p.startswith(f"{quiz}:{nowhere}: ") and "'nowhere'" in p for p in found)


def test_glossary_mistakes_are_refused_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "glossary.yaml"
    path.write_text(GLOSSARY + '  - id: twin\n    term: "mcp"\n    means: "Said twice."\n')
    with pytest.raises(ContentError) as err:
        load_yaml_model(path, Glossary)
    says(err.value, "'mcp'", "'twin'")
    path.write_text(GLOSSARY.replace("The Model Context Protocol.", " ".join(["long"] * 46)))
    with pytest.raises(ContentError) as err:
        load_yaml_model(path, Glossary)
    assert err.value.line == GLOSSARY.splitlines().index("  - id: mcp") + 3  # the 'means' line
    says(err.value, "46", "45")


def test_the_time_estimate_follows_the_formula() -> None:
    assert estimate_minutes(words=0, panels=0, questions=0, tasks=0) == 1
    assert estimate_minutes(words=400, panels=0, questions=0, tasks=0) == 2
    assert estimate_minutes(words=401, panels=1, questions=3, tasks=1) == 10  # 2.005 + 3 + 2 + 2, rounded up
    content = load_content(ROOT / "content")
    for lesson in content.lessons:
        quiz = content.quizzes.get(lesson.meta.slug)
        questions = quiz.questions if quiz else []
        tasks = sum(1 for q in questions if q.task)
        expect = estimate_minutes(lesson.words, len(lesson.panels), len(questions), tasks)
        assert lesson.minutes == expect, lesson.meta.slug
    # Some lesson has a panel and a task among its questions, so every term of the formula counts.
    assert any(
        lesson.panels and any(q.task for q in getattr(content.quizzes.get(lesson.meta.slug), "questions", []))
        for lesson in content.lessons
    )


def test_every_shipped_term_is_linked_somewhere_and_the_page_lists_them() -> None:
    from lesson.web import create_app

    content = load_content(ROOT / "content")
    pages = [*content.lessons, content.reference]
    linked = {link.href.removeprefix("/glossary#") for page in pages if page for link in page.links}
    assert content.glossary is not None
    unlinked = [t.id for t in content.glossary.terms if t.id not in linked]
    assert unlinked == [], "a glossary entry no lesson links to"
    page = create_app({"TESTING": True}).test_client().get("/glossary")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and all(f'id="{t.id}"' in html for t in content.glossary.terms)
    # A list at the top links every entry, in the page's order.
    index = html[html.index('class="glossary-index"') : html.index("</nav>", html.index('class="glossary-index"'))]
    assert re.findall(r'href="#([\w-]+)"', index) == [t.id for t in content.glossary.terms]


def test_a_glossary_that_does_not_load_is_reported_once_not_at_every_link(root: Path) -> None:
    lesson = root / "lessons" / "01-first.md"
    add_line(lesson, "## Start here", "A [listen stream](/glossary#listen-stream) stays open.")
    glossary = root / "glossary.yaml"
    glossary.write_text(GLOSSARY.replace("term: MCP", "term: [MCP]"))
    (found,) = problems(root)
    assert found.startswith(f"{glossary}:{GLOSSARY.splitlines().index('    term: MCP') + 1}: ")


def test_in_a_portals_frame_the_glossary_opens_framed_with_a_way_back() -> None:
    from lesson.web import create_app

    c = create_app({"TESTING": True}).test_client()
    lesson = c.get("/embed/servers-come-and-go").get_data(as_text=True)
    assert 'href="/glossary?embed=1&amp;from=servers-come-and-go#host"' in lesson
    framed = c.get("/glossary?embed=1&from=servers-come-and-go").get_data(as_text=True)
    assert "site-header" not in framed and 'href="/embed/servers-come-and-go"' in framed
    # Outside a frame the plain link, and under a prefix every link carries it.
    assert 'href="/glossary#host"' in c.get("/lessons/servers-come-and-go").get_data(as_text=True)
    mounted = c.get("/lessons/servers-come-and-go", environ_overrides={"SCRIPT_NAME": "/training/mcp"})
    assert 'href="/training/mcp/glossary#host"' in mounted.get_data(as_text=True)


def test_the_glossary_schema_accepts_the_shipped_glossary_and_rejects_a_typo() -> None:
    import json

    import yaml
    from jsonschema import Draft202012Validator

    from lesson.content.check import schema_pointer

    path = ROOT / "content" / "glossary.yaml"
    assert schema_pointer(path) == "schema/glossary.schema.json"
    validator = Draft202012Validator(json.loads((ROOT / "content" / "schema" / "glossary.schema.json").read_text()))
    data = yaml.safe_load(path.read_text())
    assert list(validator.iter_errors(data)) == []
    typo = {"terms": [{**data["terms"][0], "meams": "typo"}]}
    assert list(validator.iter_errors(typo)) != []
