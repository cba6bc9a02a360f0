"""``lesson check`` on a copy of the fixture content broken in every way at once: one run reports every
problem as ``file:line: what`` and exits non-zero; each test below looks for one kind of finding."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .facts import says

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"
# `make test` spreads tests over processes (pytest-xdist): the broken copy's `lesson check` runs once.
pytestmark = pytest.mark.xdist_group("check-broken")


def _edit(path: Path, old: str, new: str) -> int:
    """Replace ``old`` (which must occur once) and return the 1-based line where the change starts."""
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))
    return text[: text.index(old)].count("\n") + 1


class Broken:
    """A broken copy of the fixture content, the lines each break sits on, and one run of ``lesson check``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lines: dict[str, int] = {}
        first, second = root / "lessons" / "01-first.md", root / "lessons" / "02-second.md"
        quiz, lights = root / "quizzes" / "first.yaml", root / "panels" / "lights.yaml"
        story = root / "scenarios" / "story.yaml"
        self.lines["schema"] = _edit(quiz, '    explanation: "Fixture explanation two. The others are wrong."\n', "")
        self.lines["answer"] = _edit(quiz, "    answer: b\n", "    answer: e\n")
        (root / "panels" / "broken.yaml").write_text("id: broken\nkind: playground\ntitle: a: b\n")
        self.lines["syntax"] = 3
        self.lines["event"] = _edit(
            root / "panels" / "lab.yaml", "[{kind: ask_user_input, server: W}]", "[{kind: ask_the_user, server: W}]"
        )
        self.lines["server"] = _edit(
            lights, "event: {kind: server_dies, server: A}", "event: {kind: server_dies, server: Z}"
        )
        (root / "panels" / "extra.yaml").write_text(
            "id: extra\nkind: playground\ntitle: Extra\nstart: {name: outage}\n"
            "buttons: [{id: t, label: T, event: {kind: take_turn}}]\n"
            "goal:\n  text: Talk.\n  when: {path: counters.talk, at_least: 1}\n"
        )
        self.lines["goal"] = 8
        self.lines["json"] = _edit(
            first, '  "method": "notifications/tools/list_changed",\n  "params"', '  "method": "x"\n  "params"'
        )
        self.lines["json"] -= 3  # the fence line, three lines above the broken one
        self.lines["wire"] = _edit(
            second, '"id": 2,\n  "method": "tools/list",\n  "params"', '"id": 2,\n  "method": "tools/list",\n  "paramz"'
        )
        self.lines["wire"] -= 3
        self.lines["missing-panel"] = _edit(second, "::: lab\n", "::: ghost\n")
        self.lines["link"] = _edit(first, "(#q-one)", "(#q-nine)")
        self.lines["lesson-link"] = _edit(second, "(/lessons/first)", "(/lessons/third)")
        self.lines["press"] = _edit(story, "  - press: turn\n", "  - press: jump\n")
        (root / "scenarios" / "late.yaml").write_text(
            "id: late\ntitle: Fixture late\nstart: {name: outage}\nsteps:\n"
            "  - event: {kind: take_turn}\n    narration: One turn.\n"
            '    expect: {path: "servers[name=A].status", equals: down}\n'
            "  - event: {kind: server_dies, server: Q}\n    narration: An unknown server.\n"
        )
        self.lines["expect"], self.lines["replay"] = 7, 8
        # A scenario for a stepper, not a playground; and one whose panel's name is mistyped.
        (root / "scenarios" / "onstage.yaml").write_text(
            "id: onstage\ntitle: On a stepper\npanel: story\nsteps:\n  - {press: turn, narration: T.}\n"
        )
        (root / "scenarios" / "typo.yaml").write_text(
            "id: typo\ntitle: A typo\npanel: lihgts\nsteps:\n  - {press: turn, narration: T.}\n"
        )
        self.lines["pointer"] = 1
        (root / "scenarios" / "pointed.yaml").write_text(
            "# yaml-language-server: $schema=../schema/nope.schema.json\nid: pointed\ntitle: P\n"
            "start: {name: outage}\nsteps:\n  - {event: {kind: take_turn}, narration: T.}\n"
        )
        meta = (
            '"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", '
            '"io.modelcontextprotocol/clientCapabilities": {}}'
        )
        with second.open("a") as f:
            f.write(
                "\n## Listening\n\n```json legacy InitializedNotification\n"
                '{"jsonrpc": "2.0", "method": "notifications/initialized"}\n```\n\n'
                "```json modern SubscriptionsListenRequest\n"
                f'{{"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": {{{meta}, '
                '"notifications": {"toolsListChanged": true}}}\n```\n\n'
                "```json legacy ToolListChangedNotification\n"
                '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}\n```\n\n'
                "```json modern ToolListChangedNotification\n"
                '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed", '
                '"params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-2"}}}\n```\n'
            )
        self.lines["subscription"] = len(second.read_text().splitlines()) - 2
        env = {**os.environ, "LESSON_CONTENT_ROOT": str(root)}
        self.run = subprocess.run(
            [sys.executable, "-m", "lesson.cli", "check"], capture_output=True, text=True, env=env, check=False
        )
        self.out = self.run.stderr

    def at(self, name: str, line: int) -> str:
        """The report lines for one file and line."""
        paths = {p.name: p for p in self.root.rglob(name)}
        prefix = f"{paths[name]}:{line}: "
        return "\n".join(x for x in self.out.splitlines() if x.startswith(prefix))


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Broken:
    root = tmp_path_factory.mktemp("check") / "content"
    shutil.copytree(FIXTURE, root)
    return Broken(root)


def test_clean_content_passes() -> None:
    env = {**os.environ, "LESSON_CONTENT_ROOT": str(FIXTURE)}
    ok = subprocess.run([sys.executable, "-m", "lesson.cli", "check"], capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and ok.stderr == "" and "content OK: 2 lessons" in ok.stdout
    assert str(FIXTURE) in ok.stdout  # it read LESSON_CONTENT_ROOT, not the shipped content


def test_one_run_reports_every_problem_and_fails(broken: Broken) -> None:
    assert broken.run.returncode == 1
    problems = [x for x in broken.out.splitlines() if x.startswith(str(broken.root))]
    assert len(problems) >= 15
    assert broken.out.splitlines()[-1] == f"{len(problems)} problems in {broken.root}"


def test_schema_error(broken: Broken) -> None:
    question = broken.lines["schema"] - 7  # the question that lost its explanation starts 7 lines up
    assert "questions[1]: missing required key 'explanation'" in broken.at("first.yaml", question)


def test_quiz_answer_out_of_range(broken: Broken) -> None:
    says(broken.at("first.yaml", broken.lines["answer"]), "questions[0].answer", "'e'", "a, b")


def test_yaml_syntax_error(broken: Broken) -> None:
    assert "YAML syntax error" in broken.at("broken.yaml", broken.lines["syntax"])


def test_unknown_event(broken: Broken) -> None:
    assert "unknown kind 'ask_the_user'" in broken.at("lab.yaml", broken.lines["event"])


def test_unknown_server(broken: Broken) -> None:
    found = broken.at("lights.yaml", broken.lines["server"])
    says(found, "button 'kill'", "Z", "start 'outage'")


def test_goal_path_that_names_nothing(broken: Broken) -> None:
    assert "path 'counters.talk': no 'talk' here" in broken.at("extra.yaml", broken.lines["goal"])


def test_wire_example_that_is_not_json(broken: Broken) -> None:
    found = broken.at("01-first.md", broken.lines["json"])
    says(found, "'json modern ToolListChangedNotification'", "not valid JSON")


def test_wire_example_that_fails_its_era_schema(broken: Broken) -> None:
    found = broken.at("02-second.md", broken.lines["wire"])
    says(found, "'json modern ListToolsRequest'", "2026-07-28 schema")


def test_panel_referenced_but_missing(broken: Broken) -> None:
    says(broken.at("02-second.md", broken.lines["missing-panel"]), "'ghost'", "panels/ghost.yaml")


def test_broken_internal_links(broken: Broken) -> None:
    assert "broken link '#q-nine'" in broken.at("01-first.md", broken.lines["link"])
    says(broken.at("02-second.md", broken.lines["lesson-link"]), "broken link '/lessons/third'", "lesson 'third'")


def test_scenario_pressing_a_button_its_panel_lacks(broken: Broken) -> None:
    found = broken.at("story.yaml", broken.lines["press"])
    says(found, "step 2", "'jump'", "panel 'lights'")


def test_scenario_whose_panel_is_not_a_playground_or_is_mistyped(broken: Broken) -> None:
    says(broken.at("onstage.yaml", 3), "'story'", "stepper", "playground")
    says(broken.at("typo.yaml", 3), "panels/lihgts.yaml", "did you mean 'lights'?")
    assert "Traceback" not in broken.out


def test_scenario_that_does_not_replay(broken: Broken) -> None:
    says(broken.at("late.yaml", broken.lines["replay"]), "step 2", "Q", "start 'outage'")


def test_scenario_expectation_that_does_not_hold(broken: Broken) -> None:
    found = broken.at("late.yaml", broken.lines["expect"])
    says(found, "step 1 (modern)", "servers[name=A].status equals 'down'", "does not hold")


def test_schema_pointer_to_nowhere(broken: Broken) -> None:
    says(broken.at("pointed.yaml", broken.lines["pointer"]), "'../schema/nope.schema.json'", "does not exist")


def test_notice_naming_another_subscription(broken: Broken) -> None:
    found = broken.at("02-second.md", broken.lines["subscription"])
    says(found, "'listen-2'", "'listen-1'")


def test_a_step_may_press_several_buttons_and_each_is_checked(tmp_path: Path) -> None:
    from lesson.content.scenarios import check_scenario, scenario_events

    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    good = root / "scenarios" / "pair.yaml"
    good.write_text(
        "id: pair\ntitle: Pair\npanel: lights\nsteps:\n"
        "  - {press: [kill, turn], narration: Two presses.}\n  - {press: revive, narration: One.}\n"
    )
    assert check_scenario(good) == []
    _start, events = scenario_events(good)
    assert [e.kind for e in events] == ["server_dies", "take_turn", "server_back"]
    bad = root / "scenarios" / "typo.yaml"
    bad.write_text("id: typo\ntitle: Typo\npanel: lights\nsteps:\n  - {press: [kill, fly], narration: Two.}\n")
    (found,) = check_scenario(bad)
    assert "typo.yaml:5:" in str(found)
    says(found, "'fly'", "panel 'lights'")


def test_the_page_is_offered_only_scenarios_made_of_presses(tmp_path: Path) -> None:
    from lesson.content.scenarios import page_scenarios

    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    # The fixture's story mixes presses with an event step: valid, but the page cannot press it.
    assert page_scenarios(root) == {}
    (root / "scenarios" / "pair.yaml").write_text(
        "id: pair\ntitle: Pair\npanel: lights\nsteps:\n"
        "  - {press: [kill, turn], title: Both, narration: Two presses.}\n  - {press: revive, narration: One.}\n"
    )
    (only,) = page_scenarios(root)["lights"]
    assert only["title"] == "Pair" and only["era"] == "modern"
    assert [s["press"] for s in only["steps"]] == [["kill", "turn"], ["revive"]]
    # An untitled step has no English default: the page numbers it in the reader's language.
    assert [s["title"] for s in only["steps"]] == ["Both", None]


def test_the_shipped_scenarios_with_a_playground_are_all_playable_in_the_page() -> None:
    from lesson.content.course import default_root, load_panels
    from lesson.content.panels import PlaygroundPanel
    from lesson.content.scenarios import page_scenarios
    from tests.scenarios import load_scenarios

    root = default_root()
    panels = load_panels(root)
    want = sorted(
        sid for sid, s in load_scenarios(root).items() if isinstance(panels.get(s.panel or ""), PlaygroundPanel)
    )
    offered = sorted(s["id"] for items in page_scenarios(root).values() for s in items)
    assert offered == want
    assert len(offered) >= 3
    # A playground's own walk-through (the scenario named as the panel is) is the first it offers.
    owned = {pid: [s["id"] for s in items] for pid, items in page_scenarios(root).items() if pid in want}
    assert owned and all(ids[0] == pid for pid, ids in owned.items()), owned


def _check_lines(root: Path) -> list[str]:
    from lesson.content.check import check

    return [str(p) for p in check(root).problems]


def test_a_lesson_over_its_word_budget_is_reported_where_the_budget_runs_out(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    lesson = root / "lessons" / "01-first.md"
    paragraph = "Word " * 120 + "\n\n"
    hidden = ':::: details "Show more"\n\n' + paragraph * 10 + "::::\n\n"
    # A thousand words in a disclosure are closed at load: within budget.
    line = _edit(lesson, "## Try it\n", hidden + "## Try it\n")
    assert _check_lines(root) == []
    # Eight paragraphs in view: the eighth crosses 900 words, and that is the line reported.
    _edit(lesson, hidden, paragraph * 8)
    (found,) = _check_lines(root)
    assert found.startswith(f"{lesson}:{line + 14}: ") and "900" in found


def test_a_third_playground_in_a_lesson_is_reported_at_its_line(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    lesson = root / "lessons" / "01-first.md"
    line = _edit(lesson, "::: lights\n", "::: lights\n\n::: lab\n\n::: story\n")
    found = [p for p in _check_lines(root) if "playgrounds" in p]
    assert found and found[0].startswith(f"{lesson}:{line + 4}: ") and "2" in found[0]


def test_links_to_the_reference_page_are_checked(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    lesson = root / "lessons" / "01-first.md"
    line = _edit(lesson, "An opening paragraph.", "See [the rules](/reference#the-rules) and [x](/reference#nope).")
    # No reference page yet: both links are broken.
    assert sum("reference.md" in p for p in _check_lines(root)) == 2
    page = "---\nslug: reference\ntitle: Ref\nsummary: Ref.\n---\n\n## The rules\n\nText.\n"
    (root / "reference.md").write_text(page)
    (found,) = _check_lines(root)
    assert found.startswith(f"{lesson}:{line}: ") and "'nope'" in found


def test_a_question_id_used_in_two_quizzes_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    quiz = root / "quizzes" / "first.yaml"
    second = root / "quizzes" / "second.yaml"
    second.write_text(quiz.read_text().replace("id: first", "id: second"))
    lesson = root / "lessons" / "02-second.md"
    lesson.write_text(lesson.read_text() + "\n::: quiz\n")
    found = [p for p in _check_lines(root) if "also used in quizzes/first.yaml" in p]
    assert found and found[0].startswith(f"{second}:")
