"""A panel's start may declare servers of its own: data the simulation builds and replays like the
built-in servers, checked by ``lesson check`` like them. Uses the "D joins, then dies" panel of
tests/fixtures/grow on a copy of the fixture content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from lesson.content.check import check
from lesson.content.course import load_panels
from lesson.sim import EVENT, Playground, advance, begin, run_from_start, view
from lesson.sim.starts import Start

from .facts import says

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "content"
PANEL = HERE / "fixtures" / "grow" / "panels" / "d-joins.yaml"
CONTENT = HERE.parent / "content"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    shutil.copy(PANEL, root / "panels" / PANEL.name)
    shutil.copytree(CONTENT / "schema", root / "schema")  # the panel points an editor at its schema
    return root


def problems(root: Path) -> list[str]:
    return [str(p) for p in check(root).problems]


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_declared_server_joins_and_dies_like_a_built_in_one(root: Path) -> None:
    assert problems(root) == []
    panel = load_panels(root)["d-joins"]
    run = begin(panel.start)
    assert "D" not in [s.name for s in view(run).servers]  # declared, not configured: the host does not know it
    (intro,) = run.log[0].lines
    # The start's summary names the declared server, as a message of its own.
    declared = intro.params["summary"]
    assert intro.code == "narration.start" and declared["code"] == "narration.starts.declared_here"
    assert declared["params"]["servers"]["params"] == {"server": "D", "title": "search"}
    for button in ("add-d", "turn"):
        run = advance(run, panel.button(button).event)
    shown = view(run)
    (d,) = [s for s in shown.servers if s.name == "D"]
    assert d.status == "connected" and d.tools == ["web.search", "save_result"]
    assert {"web.search", "save_result"} <= {t.name for t in shown.next_prompt.tools if t.server == "D"}
    run = advance(run, panel.button("d-dies").event)
    run = advance(run, panel.button("turn").event)
    shown = view(run)
    assert [s.status for s in shown.servers if s.name == "D"] == ["down"]
    assert "D" not in {t.server for t in shown.next_prompt.tools}


def test_a_declared_server_is_replayed_from_its_start_alone() -> None:
    """A declared server is data in the start: the start round-trips through JSON, and replaying the same
    start and events gives the same run, in either era."""
    start = Start(name="restart", servers=[{"name": "D", "title": "search", "configured": True}])
    assert Start.model_validate_json(start.model_dump_json()) == start
    restart = EVENT.validate_python({"kind": "restart_server", "server": "D"})
    for era in ("legacy", "modern"):
        spec = start.model_copy(update={"era": era})
        run = advance(begin(spec), restart)
        assert run_from_start(Playground(start=spec, events=[restart])) == run
        assert [s.status for s in view(run).servers if s.name == "D"] == ["connected"]


def test_mistakes_in_declared_servers_are_reported_at_their_lines_in_one_run(root: Path) -> None:
    panels = root / "panels"
    text = PANEL.read_text()

    def variant(name: str, old: str, new: str) -> Path:
        assert old in text, old
        path = panels / f"{name}.yaml"
        path.write_text(text.replace("id: d-joins", f"id: {name}").replace(old, new, 1))
        return path

    transport = variant("transport", "transport: stdio", "transport: sse")
    tool = variant("tool", "name: web.search", "name: web search")
    twice = variant(
        "twice",
        "      tools:\n",
        "      tools:\n        - {name: save_result, description: Again}\n",
    )
    taken = variant("taken", "    - name: D\n", "    - name: A\n")
    dup = variant("dup", "  servers:\n", "  servers:\n    - {name: D, title: other, tools: []}\n")
    button = variant("button", "server: D}}\n  - {id: d-dies", "server: E}}\n  - {id: d-dies")
    goal = variant("goal", '"servers[name=D].status"', '"servers[name=Dx].status"')
    found = problems(root)

    def at(path: Path, line: int) -> str:
        return "\n".join(p for p in found if p.startswith(f"{path}:{line}: "))

    says(at(transport, line_of(transport, "transport: sse")), "transport", "'http'", "'stdio'")
    says(at(tool, line_of(tool, "web search")), "'web search'", "128")
    says(at(twice, line_of(twice, "- name: D")), "save_result", "twice")
    says(at(taken, line_of(taken, "- name: A")), "'A'", "start 'outage'")
    says(at(dup, line_of(dup, "- name: D")), "'D'", "declared twice")
    says(at(button, line_of(button, "server: E")), "button 'add-d'", "'E'", "A, B, C, D")
    says(at(goal, line_of(goal, "name=Dx")), "the goal", "'Dx'", "did you mean 'D'")


def test_a_server_named_like_a_declared_one_gets_a_suggestion(root: Path) -> None:
    path = root / "panels" / "d-joins.yaml"
    path.write_text(path.read_text().replace("name: D\n", "name: Search\n").replace("server: D}", "server: Search}"))
    path.write_text(
        path.read_text().replace("{kind: server_dies, server: Search}", "{kind: server_dies, server: Serch}")
    )
    path.write_text(path.read_text().replace("name=D]", "name=Search]").replace("contains: D}", "contains: Search}"))
    (found,) = problems(root)
    says(found, f"{path}:{line_of(path, 'Serch')}:", "'Serch'", "did you mean 'Search'")


def test_a_task_and_a_scenario_naming_a_server_the_start_lacks_are_reported(root: Path) -> None:
    scenario = root / "scenarios" / "d.yaml"
    scenario.write_text(
        "id: d\ntitle: D\npanel: d-joins\nsteps:\n"
        "  - press: add-d\n    narration: D joins.\n"
        '    expect: {path: "next_prompt.tools[*].server", contains: F}\n'
    )
    found = problems(root)
    says("\n".join(p for p in found if p.startswith(f"{scenario}:7:")), "step 1", "'F'", "A, B, C, D")


def test_the_schema_accepts_declared_servers_and_still_refuses_unknown_ones() -> None:
    validator = Draft202012Validator(json.loads((CONTENT / "schema" / "panel.schema.json").read_text()))
    panel = yaml.safe_load(PANEL.read_text())
    assert list(validator.iter_errors(panel)) == []
    panel["start"]["servers"][0]["transport"] = "sse"
    assert list(validator.iter_errors(panel))
    plain = {**panel, "start": {"name": "outage"}}  # no declared servers: only the scenario's may be named
    assert list(validator.iter_errors(plain))


def test_a_press_naming_a_tool_its_server_lacks_is_reported(root: Path) -> None:
    path = root / "panels" / "d-joins.yaml"
    path.write_text(
        path.read_text().replace(
            "  - {id: turn,",
            "  - {id: call, label: Call, event: {kind: start_call, server: D, tool: web.serch}}\n  - {id: turn,",
        )
    )
    (found,) = problems(root)
    says(found, f"{path}:{line_of(path, 'web.serch')}:", "button 'call'", "'web.serch'", "did you mean 'web.search'")
