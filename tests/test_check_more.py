"""``lesson check`` finds everything in one run, in an author's words: problems in a file that uses a broken
one, "did you mean" for a mistyped name, YAML syntax errors without the parser's token names, and the UI's
translated message catalogues measured against English. Each test asserts the facts (file, line, the name,
the suggestion), not the sentence around them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lesson import i18n
from lesson.content.check import check
from lesson.content.check_translations import check_catalogues

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"


def _edit(path: Path, old: str, new: str) -> int:
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))
    return text[: text.index(old)].count("\n") + 1


def _append(path: Path, text: str) -> None:
    with path.open("a") as f:
        f.write(text)


def _at(report, path: Path, line: int) -> list[str]:
    return [p.message for p in report.problems if p.path == path and p.line == line]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    out = tmp_path / "content"
    shutil.copytree(FIXTURE, out)
    return out


def test_one_run_reports_a_broken_panel_the_scenario_that_presses_it_and_a_syntax_error(root: Path) -> None:
    lights, story = root / "panels" / "lights.yaml", root / "scenarios" / "story.yaml"
    kind_line = _edit(lights, "event: {kind: take_turn}", "event: {kind: take_turns}")
    press_line = _edit(story, "  - press: turn\n", "  - press: trun\n")
    broken = root / "panels" / "broken.yaml"
    broken.write_text("id: broken\nkind: playground\nstart:\n  name: outage\n era: modern\n")

    report = check(root)

    assert not report.ok
    (kind,) = _at(report, lights, kind_line)
    assert "'take_turns'" in kind and "did you mean 'take_turn'" in kind
    (press,) = _at(report, story, press_line)
    assert "'trun'" in press and "did you mean 'turn'" in press
    (syntax,) = _at(report, broken, 5)
    assert "indent" in syntax and "<block" not in syntax
    # The story's panel is broken, not missing: nothing says it does not exist.
    assert not [p for p in report.problems if "no panel" in p.message]


def test_a_task_solution_on_a_broken_panel_is_checked_against_the_panels_buttons(root: Path) -> None:
    quiz, lights = root / "quizzes" / "first.yaml", root / "panels" / "lights.yaml"
    _append(
        quiz,
        '  - id: task\n    prompt: "Take A out."\n    hint: "Kill A."\n    see: "#try-it"\n'
        '    task:\n      panel: lights\n      when: {path: "servers[name=A].status", equals: down}\n'
        "      solution: [kil]\n",
    )
    line = len(quiz.read_text().splitlines())
    bogus = _edit(lights, "kind: playground\n", "kind: playground\nbogus: 1\n") + 1

    report = check(root)

    assert any("'bogus'" in m for m in _at(report, lights, bogus))
    (found,) = _at(report, quiz, line)
    assert "'kil'" in found and "did you mean 'kill'" in found
    assert not [p for p in report.problems if "no panel" in p.message]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("id: x\nstart:\n  name: outage\n era: modern\n", 4),  # a key less indented than its siblings
        ("id: x\nbuttons:\n  - a\n  - b\n title: t\n", 5),
        ("id: x\nstart:\n\tname: outage\n", 3),  # a tab
        ("id: x\norder:\t7\n", 2),  # a tab that is no indentation: unseen, so its column is named
        ("id: x\ntitle: 'never closed\n", 2),  # at the line that opens the quote
        ('id: x\ntitle: "A dies\nkind: playground\n', 2),
        ('id: x\ntitle: "A dies\nkind: "# the quote above closes here; the rest is a comment\n', 2),
    ],
)
def test_yaml_syntax_errors_are_in_plain_words_at_their_line(root: Path, text: str, line: int) -> None:
    path = root / "panels" / "x.yaml"
    path.write_text(text)
    found = [p for p in check(root).problems if p.path == path]
    assert [p.line for p in found] == [line]
    assert "<block" not in found[0].message and "token" not in found[0].message
    if "'never" in text or '"A dies' in text:
        assert "quote" in found[0].message
    if "\t" in text:
        assert f"column {text.splitlines()[line - 1].index(chr(9)) + 1}" in found[0].message


def _catalogues(tmp_path: Path, **translations: dict | str) -> Path:
    folder = tmp_path / "messages"
    folder.mkdir()
    shutil.copy(i18n.HERE / "en.json", folder / "en.json")
    for locale, data in translations.items():
        text = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False)
        (folder / f"{locale}.json").write_text(text, encoding="utf-8")
    return folder


def _line(path: Path, key: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip().startswith(f'"{key}"'))


def test_catalogue_placeholders_unknown_keys_and_missing_keys(tmp_path: Path) -> None:
    folder = _catalogues(
        tmp_path,
        fr={
            "site.name": "MCP Churn Lab",
            "site.footer": "Versions : ancienne {mauvais_legacy} et moderne {modern}.",
            "index.minutes": "Environ {minutes} minutes",
            "index.lesons": "Leçons",
        },
    )
    fr = folder / "fr.json"
    errors, notes = check_catalogues(folder)

    by_line = {p.line: p for p in errors}
    assert set(by_line) == {_line(fr, "site.footer"), _line(fr, "index.lesons")}
    assert all(p.path == fr for p in errors)
    footer = by_line[_line(fr, "site.footer")].message
    assert "{mauvais_legacy}" in footer and "{legacy}" in footer
    unknown = by_line[_line(fr, "index.lesons")].message
    assert "'index.lesons'" in unknown and "did you mean 'index.lessons'" in unknown
    english = json.loads((folder / "en.json").read_text())
    (note,) = notes
    assert str(fr) in note and str(len(english) - 3) in note


def test_a_placeholder_that_cannot_be_filled_is_reported(tmp_path: Path) -> None:
    folder = _catalogues(tmp_path, fr={"index.minutes": "Environ {minutes!z} minutes", "site.footer": "{legacy"})
    errors, _ = check_catalogues(folder)
    fr = folder / "fr.json"
    assert sorted(p.line for p in errors) == sorted([_line(fr, "index.minutes"), _line(fr, "site.footer")])


def test_a_catalogue_that_is_not_json_is_reported_at_its_line(tmp_path: Path) -> None:
    folder = _catalogues(
        tmp_path, de='{\n  "site.name": "MCP Churn Lab",\n  "index.lessons": "Lektionen"\n  "x": 1\n}\n'
    )
    errors, _ = check_catalogues(folder)
    assert [(p.path.name, p.line) for p in errors] == [("de.json", 4)]


@pytest.mark.parametrize(
    "file", ["lessons/01-first.md", "panels/lights.yaml", "quizzes/first.yaml", "scenarios/story.yaml"]
)
def test_a_file_saved_in_another_encoding_is_one_problem_at_its_line(root: Path, file: str) -> None:
    """An editor that saves Latin-1 (a Windows default) writes "é" as one byte that is not UTF-8: the
    check names the file and the line once, and every other check still runs."""
    path = root / file
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.encode("utf-8") + "# café\n".encode("latin-1"))
    report = check(root)
    (problem,) = report.problems
    assert (problem.path, problem.line) == (path, text.count("\n") + 1)
    assert "UTF-8" in problem.message


def test_a_catalogue_in_another_encoding_is_reported_at_its_line(tmp_path: Path) -> None:
    folder = _catalogues(tmp_path)
    (folder / "de.json").write_bytes('{\n  "index.lessons": "Lektionen für alle"\n}\n'.encode("latin-1"))
    errors, _ = check_catalogues(folder)
    assert [(p.path.name, p.line) for p in errors] == [("de.json", 2)]
    assert "UTF-8" in errors[0].message


def test_the_shipped_catalogues_pass() -> None:
    errors, _ = check_catalogues()
    assert errors == []


def test_unknown_panels_lessons_and_glossary_terms_get_the_closest_name(root: Path) -> None:
    first = root / "lessons" / "01-first.md"
    widget = _edit(first, "::: lights\n", "::: ligths\n")
    link = _edit(first, "(/lessons/second#the-story)", "(/lessons/secnd#the-story)")
    report = check(root)
    (w,) = _at(report, first, widget)
    assert "'ligths'" in w and "did you mean 'lights'" in w
    (li,) = _at(report, first, link)
    assert "'secnd'" in li and "did you mean 'second'" in li


def test_an_unknown_glossary_term_gets_the_closest_one(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[1] / "content"
    root = tmp_path / "content"
    shutil.copytree(shipped, root)
    # the first lesson (in file order) that links the glossary's "tool"
    lesson = next(p for p in sorted((root / "lessons").glob("*.md")) if "(/glossary#tool)" in p.read_text())
    text = lesson.read_text()
    line = text[: text.index("(/glossary#tool)")].count("\n") + 1
    lesson.write_text(text.replace("(/glossary#tool)", "(/glossary#tol)", 1))
    (found,) = [m for m in _at(check(root), lesson, line) if "'tol'" in m]
    assert "did you mean 'tool'" in found


def test_a_glossary_that_does_not_load_is_reported_at_its_own_lines_only(tmp_path: Path) -> None:
    """The pages that link the glossary are not broken because the glossary is: no "no glossary.yaml"
    for each of their links (the reference page's included)."""
    shipped = Path(__file__).resolve().parents[1] / "content"
    root = tmp_path / "content"
    shutil.copytree(shipped, root)
    glossary = root / "glossary.yaml"
    _edit(glossary, "    see: [host, server]\n  - id: host\n", "    see: [hots, server]\n  - id: host\n")
    report = check(root)
    assert {p.path for p in report.problems} == {glossary}
    assert any("'hots'" in p.message for p in report.problems)


def test_a_former_lesson_points_at_sections_that_exist(root: Path) -> None:
    """``moved.yaml`` sends old links somewhere: to a lesson and a section that must exist."""
    moved = root / "moved.yaml"
    moved.write_text(
        "moved:\n"
        "  - slug: old-one\n"
        "    title: Old one\n"
        "    parts:\n"
        "      - {section: a, title: A, to: /lessons/first}\n"
        "      - {section: b, title: B, to: /lessons/frist}\n"
        "      - {section: c, title: C, to: '/lessons/first#no-such-part'}\n"
        "  - slug: second\n"
        "    title: Second again\n"
        "    parts:\n"
        "      - {section: d, title: D, to: /lessons/second}\n"
    )
    report = check(root)
    (lesson,) = _at(report, moved, 6)
    assert "'frist'" in lesson and "did you mean 'first'" in lesson
    (section,) = _at(report, moved, 7)
    assert "'no-such-part'" in section
    (slug,) = _at(report, moved, 8)
    assert "'second'" in slug
    assert len(report.problems) == 3


@pytest.mark.parametrize("name", ["panels/extra.yml", "lessons/03-extra.markdown", "quizzes/second.yml"])
def test_a_content_file_nothing_reads_is_named(root: Path, name: str) -> None:
    path = root / name
    path.write_text("id: extra\n")
    report = check(root)
    (problem,) = [p for p in report.problems if p.path == path]
    assert path.with_suffix(".md" if name.startswith("lessons") else ".yaml").name in problem.message


def test_a_walk_through_step_the_simulation_refuses_is_reported(root: Path) -> None:
    """Bringing A back while it is up changes nothing: as a step of a walk-through it would show a press
    that only says why not."""
    story = root / "scenarios" / "story.yaml"
    line = _edit(story, "  - press: kill\n", '  - press: revive\n    narration: "A comes back."\n  - press: kill\n')
    report = check(root)
    (refused,) = _at(report, story, line)
    assert "step 1" in refused and "A" in refused
    assert len(report.problems) == 1


QUESTION = (
    '    question: "Q?"\n    choices: [{id: a, text: "A"}, {id: b, text: "B"}]\n'
    '    answer: a\n    explanation: "Why."\n'
)


@pytest.mark.parametrize(
    ("predictions", "at", "facts"),
    [
        # an unknown `after`, at its own line, with the nearest button
        ("  - button: kill\n    after: reviv\n" + QUESTION, "after: reviv", ["'reviv'", "did you mean 'revive'"]),
        # a second question on one button, at the second
        (
            "  - button: kill\n" + QUESTION + "  - button: kill  # again\n" + QUESTION,
            "# again",
            ["duplicate", "'kill'"],
        ),
    ],
)
def test_a_prediction_problem_is_at_the_line_of_its_entry(
    root: Path, predictions: str, at: str, facts: list[str]
) -> None:
    lights = root / "panels" / "lights.yaml"
    text = lights.read_text() + "predictions:\n" + predictions
    lights.write_text(text)
    (problem,) = check(root).problems
    assert (problem.path, problem.line) == (lights, text[: text.index(at)].count("\n") + 1)
    for fact in facts:
        assert fact in problem.message


@pytest.mark.parametrize(
    ("old", "new", "facts"),
    [
        # a typo of a required key: the missing one beside it is the suggestion
        ("    answer: b\n", "    answr: b\n", ["'answr'", "did you mean 'answer'"]),
        # an id of the wrong form: the form in words, not the regular expression
        ("  - id: one\n", "  - id: One_1\n", ["'One_1'", "lowercase letters, digits and dashes"]),
        # a list where text belongs
        ('    prompt: "Fixture question one?"\n', "    prompt: [one, two]\n", ["prompt", "text", "a list"]),
    ],
)
def test_schema_problems_are_in_an_author_s_words(root: Path, old: str, new: str, facts: list[str]) -> None:
    quiz = root / "quizzes" / "first.yaml"
    line = _edit(quiz, old, new)
    (problem,) = _at(check(root), quiz, line)
    for fact in facts:
        assert fact in problem
    assert "should match pattern" not in problem and "Input should be" not in problem


def test_an_empty_file_says_so(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    quiz.write_text("# nothing yet\n")
    (problem,) = [p for p in check(root).problems if p.path == quiz]
    assert "empty" in problem.message


def test_a_line_that_almost_places_a_panel_is_named_and_the_panel_left_unplaced_is_noted(root: Path) -> None:
    """``:: lights`` shows as text and the panel goes missing from the page: the check says how to write
    it, and notes the panel file that no lesson places now."""
    first = root / "lessons" / "01-first.md"
    line = _edit(first, "::: lights\n", ":: lights\n")
    report = check(root)
    (problem,) = _at(report, first, line)
    assert "'::: lights'" in problem
    assert any("lights.yaml" in note for note in report.notes)


@pytest.mark.parametrize(
    ("text", "line", "quote"),
    [
        # a value wrapped on purpose, with a "Word:" on a deeper line, and a later error of another kind
        ('id: x\ntitle: "A long title,\n  Remember: wrapped"\nbuttons:\n  - a\n - b\n', 6, False),
        ('id: x\nbody: |\n  "Quoted start\nbuttons:\n  - a\n - b\n', 6, False),  # a block scalar's quote
        ('id: x\ntitle: "a line\\u2028break"\nkind: playground\nbuttons: [\n', None, False),  # no crash
    ],
)
def test_a_quote_that_is_closed_is_not_blamed(root: Path, text: str, line: int | None, quote: bool) -> None:
    path = root / "panels" / "x.yaml"
    path.write_text(text.replace("\\u2028", "\u2028"))
    found = [p for p in check(root).problems if p.path == path]
    assert found and not any("quote is not closed" in p.message for p in found)
    if line is not None:
        assert found[0].line == line


def test_a_wrapped_quoted_value_passes(root: Path) -> None:
    quiz = root / "quizzes" / "first.yaml"
    _edit(quiz, '    explanation: "Fixture explanation one."\n', '    explanation: "Fixture\n      Remember: one."\n')
    assert check(root).ok


def test_a_lesson_that_does_not_load_hides_only_the_links_to_it(root: Path) -> None:
    """The second lesson's front matter has a typo: links to it are not called broken (its slug is read
    from the front matter all the same), but a link to a lesson that does not exist still is."""
    second, first = root / "lessons" / "02-second.md", root / "lessons" / "01-first.md"
    _edit(second, "order:", "ordr:")
    line = _edit(first, "(/lessons/second#the-story)", "(/lessons/second#the-story) and [x](/lessons/nowhere)")
    report = check(root)
    (broken,) = _at(report, first, line)
    assert "'nowhere'" in broken and "'second'" not in broken
    assert not [n for n in report.notes if "no lesson places" in n]  # the unread lesson's panels are unknown


def test_a_value_of_several_possible_kinds_is_one_problem(root: Path) -> None:
    """A condition's value may be text, a number or true or false: a list there is one problem that
    names them, not one per kind."""
    lights = root / "panels" / "lights.yaml"
    line = _edit(lights, "{path: counters.conversation, at_least: 1}", "{path: era, equals: [modern]}")
    (problem,) = _at(check(root), lights, line)
    assert "text" in problem and "true or false" in problem and "a list" in problem


def test_a_byte_order_mark_is_no_problem(root: Path) -> None:
    """Windows Notepad starts a UTF-8 file with a byte-order mark: the file reads as if it had none."""
    for path in (root / "lessons" / "01-first.md", root / "quizzes" / "first.yaml"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert check(root).ok


def test_an_unknown_key_is_measured_against_the_keys_of_its_own_place(root: Path) -> None:
    """`solution` belongs under a question's `task`, not beside its `prompt`: no such suggestion there."""
    quiz = root / "quizzes" / "first.yaml"
    line = _edit(quiz, '    see: "#start-here"\n', '    solutions: [kill]\n    see: "#start-here"\n')
    (problem,) = _at(check(root), quiz, line)
    assert "'solutions'" in problem and "did you mean" not in problem
    lights = root / "panels" / "lights.yaml"
    line = _edit(lights, "shows: [servers, prompt, log]\n", "shows: [servers, prompt, log]\nshow: []\n") + 1
    (problem,) = _at(check(root), lights, line)
    assert "did you mean 'shows'" in problem


@pytest.mark.parametrize(
    ("old", "new", "at", "facts"),
    [
        # two kinds of condition side by side: named at the condition, with how to have both (not "unknown
        # key 'all'; did you mean 'all'?")
        (
            "      - {path: counters.conversation, at_least: 1}\n",
            "      - {path: counters.conversation, at_least: 1}\n    not: {path: era, equals: legacy}\n",
            "  when:",
            ["'all' and 'not'", "under all"],
        ),
        # a panel with no kind: the key it needs, not pydantic's discriminator, at the mapping missing it
        ("kind: playground\n", "", "id: lights", ["missing required key 'kind'"]),
        # an empty list of hints: left out, there are none; written, there is at least one
        ('hints: ["Kill A."]\n', "hints: []\n", "hints:", ["hints", "at least 1"]),
    ],
)
def test_panel_problems_are_in_an_author_s_words(root: Path, old: str, new: str, at: str, facts: list[str]) -> None:
    lights = root / "panels" / "lights.yaml"
    _edit(lights, old, new)
    text = lights.read_text()
    problems = [p for p in check(root).problems if p.path == lights]
    assert len(problems) == 1, problems
    assert problems[0].line == text[: text.index(at)].count("\n") + 1
    for fact in facts:
        assert fact in problems[0].message
    assert "discriminator" not in problems[0].message and "did you mean 'all'" not in problems[0].message


def test_a_mistyped_kind_is_at_its_own_line_and_a_bare_yes_is_explained(root: Path) -> None:
    lights, quiz = root / "panels" / "lights.yaml", root / "quizzes" / "first.yaml"
    kind_line = _edit(lights, "kind: playground\n", "kind: playgroud\n")
    _edit(lights, "id: lights\n", "# a comment first\nid: lights\n")
    answer_line = _edit(quiz, "    answer: b\n", "    answer: yes\n")
    report = check(root)
    (kind,) = _at(report, lights, kind_line + 1)
    assert "'playgroud'" in kind and "did you mean 'playground'" in kind
    (answer,) = _at(report, quiz, answer_line)
    assert "true or false" in answer and "quotes" in answer


def test_a_bare_no_where_a_list_belongs_is_not_told_to_be_quoted(root: Path) -> None:
    lights = root / "panels" / "lights.yaml"
    line = _edit(lights, 'hints: ["Kill A."]\n', "hints: no\n")
    (hints,) = _at(check(root), lights, line)
    assert "a list" in hints and "true or false" in hints and "quotes" not in hints


def test_a_stepper_with_neither_steps_nor_a_scenario_says_neither(root: Path) -> None:
    story = root / "panels" / "story.yaml"
    story.write_text("id: story\nkind: stepper\ntitle: Fixture stepper\n")
    (problem,) = [p for p in check(root).problems if p.path == story]
    assert "neither" in problem.message


@pytest.mark.parametrize(
    ("file", "old", "new", "facts"),
    [
        # a moment that presses nothing
        ("scenarios/story.yaml", "  - press: turn\n", "  - press: []\n", ["press"]),
        # a stepper's scenario, mistyped: the closest scenario file
        ("panels/story.yaml", "scenario: story\n", "scenario: stroy\n", ["scenarios/stroy.yaml", "'story'"]),
        # a start's name, mistyped: the closest start
        ("panels/lights.yaml", "start: {name: outage,", "start: {name: outgae,", ["'outgae'", "did you mean 'outage'"]),
    ],
)
def test_scenario_and_start_names_get_the_closest_one(
    root: Path, file: str, old: str, new: str, facts: list[str]
) -> None:
    path = root / file
    line = _edit(path, old, new)
    found = _at(check(root), path, line)
    assert found, [str(p) for p in check(root).problems]
    for fact in facts:
        assert any(fact in message for message in found), found


@pytest.mark.parametrize(
    ("premise", "reported"),
    [
        ("", True),
        # asked only once A is down: not at the start, so the first moment reveals nothing
        ('    when: {path: "servers[name=A].status", equals: down}\n', False),
    ],
)
def test_a_walk_through_that_opens_on_a_predicted_press_is_reported(root: Path, premise: str, reported: bool) -> None:
    """Its first moment would reveal the answer to a question no moment has yet said is there."""
    lights, story = root / "panels" / "lights.yaml", root / "scenarios" / "story.yaml"
    _append(
        lights,
        "predictions:\n  - button: kill\n    question: What happens to A's tools?\n"
        "    choices:\n      - {id: gone, text: They leave the prompt}\n"
        "      - {id: kept, text: They stay in the prompt}\n"
        f"    answer: gone\n    explanation: A dead server's tools leave the prompt.\n{premise}",
    )
    line = story.read_text().splitlines().index("  - press: kill") + 1
    found = _at(check(root), story, line)
    assert bool(found) == reported, found
    if reported:
        assert "'kill'" in found[0] and "step 1" in found[0]


def test_a_value_cut_at_a_hash_is_reported_and_a_comment_is_not(root: Path) -> None:
    """`title: Token #1 runs out` reads as "Token": YAML takes " #1 runs out" for a comment."""
    lights = root / "panels" / "lights.yaml"
    line = _edit(lights, "title: Fixture playground\n", "title: Fixture #1 playground\n")
    _edit(lights, "shows: [servers, prompt, log]\n", "shows: [servers, prompt, log]  # a comment, as one writes it\n")
    (problem,) = [p for p in check(root).problems if p.path == lights]
    assert problem.line == line and "'#1'" in problem.message and "quotes" in problem.message


def test_a_panel_file_written_as_a_list_says_it_should_be_a_mapping(root: Path) -> None:
    lights = root / "panels" / "lights.yaml"
    lights.write_text("- id: lights\n- kind: playground\n")
    (problem,) = [p for p in check(root).problems if p.path == lights]
    assert "a mapping" in problem.message and "a list" in problem.message and "Input should" not in problem.message


def test_an_empty_press_list_is_one_problem_not_also_a_wrong_kind(root: Path) -> None:
    """`press` takes a button id or a list of them: an empty list is a list, too short, and not "text"."""
    story = root / "scenarios" / "story.yaml"
    line = _edit(story, "  - press: turn\n", "  - press: []\n")
    (problem,) = _at(check(root), story, line)
    assert "at least 1" in problem and "text" not in problem
