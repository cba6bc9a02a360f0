"""The content files' JSON Schemas teach in an editor: every property has a description, and the closed
sets (start names, the servers an event can name, event kinds) are enums an editor can offer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from lesson.content.schema import schemas
from lesson.sim import begin
from lesson.sim.starts import STARTS, Start

CONTENT = Path(__file__).resolve().parents[1] / "content"


def properties(node: Any, where: str = "") -> list[tuple[str, dict]]:
    """Every (location, property schema) in a schema, through $defs, unions and items; a conditional's
    ``if``/``then`` only narrows properties defined elsewhere, so it is not walked."""
    out: list[tuple[str, dict]] = []
    if isinstance(node, dict):
        for name, spec in (node.get("properties") or {}).items():
            out.append((f"{where}.{name}", spec))
        for key, value in node.items():
            if key in ("if", "then"):
                continue
            if key == "$defs":
                out += [p for name, d in value.items() for p in properties(d, name)]
            elif key == "properties":
                out += [p for name, d in value.items() for p in properties(d, f"{where}.{name}")]
            else:
                out += properties(value, where)
    elif isinstance(node, list):
        out += [p for item in node for p in properties(item, where)]
    return out


@pytest.mark.parametrize("name", sorted(schemas()))
def test_every_property_has_a_description(name: str) -> None:
    found = properties(schemas()[name])
    assert found
    assert [where for where, spec in found if not spec.get("description")] == []


def _panel_validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads((CONTENT / "schema" / "panel.schema.json").read_text()))


def _lab(start: str, server: str) -> dict:
    return {
        "id": "x",
        "kind": "playground",
        "title": "X",
        "start": {"name": start},
        "buttons": [{"id": "b", "label": "B", "event": {"kind": "server_dies", "server": server}}],
    }


def test_start_names_are_an_enum() -> None:
    validator = _panel_validator()
    for name in STARTS:
        server = sorted(begin(Start(name=name)).state.servers)[0]
        assert list(validator.iter_errors(_lab(name, server))) == []
    assert list(validator.iter_errors(_lab("outgae", "A")))
    start = schemas()["panel.schema.json"]["$defs"]["Start"]["properties"]["name"]
    assert start["enum"] == list(STARTS)


def test_a_server_no_start_has_is_refused_and_every_start_server_is_offered() -> None:
    validator = _panel_validator()
    assert list(validator.iter_errors(_lab("outage", "Z")))
    for name in STARTS:
        for server in begin(Start(name=name)).state.servers:
            assert list(validator.iter_errors(_lab(name, server))) == [], (name, server)


def test_event_kinds_are_a_closed_set() -> None:
    validator = _panel_validator()
    lab = _lab("outage", "A")
    lab["buttons"][0]["event"]["kind"] = "server_crashes"
    assert list(validator.iter_errors(lab))


def test_the_shipped_files_still_validate() -> None:
    validator = _panel_validator()
    for path in sorted((CONTENT / "panels").glob("*.yaml")):
        assert list(validator.iter_errors(yaml.safe_load(path.read_text()))) == [], path


def test_given_its_start_an_event_may_name_only_that_starts_servers() -> None:
    validator = _panel_validator()
    assert list(validator.iter_errors(_lab("gateway", "G"))) == []
    assert list(validator.iter_errors(_lab("restart", "A")))  # A is a server of other starts, not of restart
    lab = _lab("guide", "P")
    lab["buttons"].append(
        {"id": "t", "label": "T", "event": {"kind": "take_turn", "calls": [{"server": "W", "tool": "x"}]}}
    )
    assert list(validator.iter_errors(lab))
    lab["buttons"][1]["event"]["calls"][0]["server"] = "Q"
    assert list(validator.iter_errors(lab)) == []


def test_a_scenario_with_a_start_names_only_its_servers() -> None:
    validator = Draft202012Validator(json.loads((CONTENT / "schema" / "scenario.schema.json").read_text()))
    scenario = {
        "id": "x",
        "title": "X",
        "start": {"name": "baskets"},
        "steps": [{"event": {"kind": "server_dies", "server": "S"}, "narration": "S dies."}],
    }
    assert list(validator.iter_errors(scenario)) == []
    scenario["steps"][0]["event"]["server"] = "A"
    assert list(validator.iter_errors(scenario))
    for path in sorted((CONTENT / "scenarios").glob("*.yaml")):
        assert list(validator.iter_errors(yaml.safe_load(path.read_text()))) == [], path
