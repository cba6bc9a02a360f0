"""``lesson schema``: JSON Schemas of the content files, generated from the pydantic models.

Editors use them to validate and complete YAML (each content file points at its schema on its first
line); ``content/schema/`` holds the committed copies, and a test checks they are current.

Every property carries a description an editor shows on hover. The content models describe their own
fields; the simulation's models (events, starts, tools) are described here, from docs/content.md, so the
simulation stays free of authoring prose. Closed sets are enums: start names, and the servers an event can
name (every start's in general; once a file's ``start`` names one, that start's only). A start may
declare servers of its own, which no schema can list: where it does, an event may also name any server name
(``lesson check`` then holds each name to the start's servers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from lesson.i18n import DEFAULT, catalogue
from lesson.sim import begin
from lesson.sim.model import VERSION
from lesson.sim.starts import SERVER_NAME_PATTERN, STARTS, Start

from .models import Glossary, LessonMeta, Quiz
from .panels import Panel
from .scenarios import Scenario

DRAFT = "https://json-schema.org/draft/2020-12/schema"


# "legacy (2025-11-25) or modern (2026-07-28)", from the one table of eras
ERAS_SAID = " or ".join(f"{era} ({version})" for era, version in VERSION.items())

# Descriptions of the simulation's fields, by property name; (model, property) where one name means more.
FIELD_DOCS: dict[str | tuple[str, str], str] = {
    "kind": "what happens (see Events in docs/content.md)",
    "server": "the server it happens to: a server of the start",
    "tool": "the tool's name on that server",
    ("DeployTool", "tool"): "the tool to deploy; default: the server's next upcoming tool",
    ("StartCall", "tool"): "the tool the call uses; default: the server's first",
    ("AskUserInput", "tool"): "the tool whose call asks the user; default: the server's first",
    ("SwitchEra", "server"): "switch only this server's client; default: every client",
    ("SwitchEra", "era"): f"the era to speak from now on: {ERAS_SAID}",
    ("ServerBack", "transport"): "the transport it comes back on; default: the one it had",
    "via": "how the server is added: through the config file, an admin console, or a gateway",
    "gateway": "the gateway server (G in the gateway start)",
    "backend": "the backend server behind the gateway",
    "sku": "the item added to the basket",
    "basket_id": "the basket handle to add to; default: the last handle the model was given",
    "replica": "the replica the call lands on (1 or 2)",
    "role": "the role the user signs in again as",
    "answer": "what the user answers",
    "after_expiry": "the user takes longer than the server's state for the question lasts",
    "on": "whether notices are batched",
    "calls": "the calls the model makes this turn; default: it carries on with each server's work",
    "arguments": "the call's arguments, name to text",
    # A start (where a playground, stepper or scenario begins).
    ("Start", "name"): "the named start",
    ("Start", "era"): f"the era new clients speak: {ERAS_SAID}",
    ("Start", "options"): "the start's switches (see Starts in docs/content.md)",
    ("Start", "servers"): "servers this start declares beside the named start's own (see Declared servers in "
    "docs/content.md)",
    # A server a start declares.
    ("ServerSpec", "name"): "the server's name, as events and goal paths name it (a letter, then letters, digits, "
    "'-' or '_'; not a name the named start already has)",
    ("ServerSpec", "title"): "what the server is, shown beside its name (e.g. search)",
    ("ServerSpec", "transport"): "how the host reaches it: http or stdio",
    ("ServerSpec", "tools"): "the tools it offers, each name once",
    ("ServerSpec", "list_changed"): "it declares capabilities.tools.listChanged (default true)",
    ("ServerSpec", "configured"): "in the host's config from the start, connected at step 0 (default false: an "
    "add_server event adds it)",
    ("ToolSpec", "name"): "the tool's name: 1 to 128 letters, digits, '_', '-' or '.' (MCP 2025-11-25)",
    ("ToolSpec", "description"): "the tool's description, as the model reads it",
    ("ToolSpec", "arg"): "the one string argument the simulated tool takes (default query)",
    ("ToolSpec", "read_only"): "it changes nothing (readOnlyHint)",
    ("ToolSpec", "idempotent"): "calling it twice does no more than calling it once (idempotentHint)",
    ("ToolSpec", "destructive"): "it may destroy data (destructiveHint)",
    # A tool a server offers.
    ("ToolDef", "name"): "the tool's name",
    ("ToolDef", "description"): "the tool's description, as the model reads it",
    ("ToolDef", "idempotent"): "calling it twice does no more than calling it once (idempotentHint)",
    ("ToolDef", "admin_only"): "only an administrator's session is offered it",
    ("ToolDef", "arg"): "the string argument the simulated tool takes",
    ("ToolDef", "handle"): "a handle it takes too, one an earlier call returned (e.g. basket_id)",
    ("ToolDef", "origin"): "behind a gateway: the backend that provides it",
    ("ToolDef", "read_only"): "it changes nothing (readOnlyHint)",
    ("ToolDef", "destructive"): "it may destroy data (destructiveHint)",
}


def _servers_by_start() -> dict[str, list[str]]:
    return {name: sorted(begin(Start(name=name)).state.servers) for name in STARTS}


def _enrich(schema: dict[str, Any]) -> None:
    """Describe the simulation's fields and make its closed sets enums, in place."""
    by_start = _servers_by_start()
    servers = sorted({s for names in by_start.values() for s in names})
    listed = "; ".join(f"{start}: {', '.join(names)}" for start, names in by_start.items())
    for def_name, model in schema.get("$defs", {}).items():
        for prop, spec in (model.get("properties") or {}).items():
            if "description" not in spec:
                text = FIELD_DOCS.get((def_name, prop)) or FIELD_DOCS.get(prop)
                if text:
                    spec["description"] = text
            if def_name == "Start" and prop == "name":
                spec["enum"] = list(STARTS)
                described = (f"{n} ({catalogue(DEFAULT)[f'narration.starts.{n}']})" for n in STARTS)
                spec["description"] += ": " + "; ".join(described)
            elif prop in ("server", "gateway", "backend") and spec.get("type") == "string" and def_name != "Start":
                spec["anyOf"] = _server_name(servers)
                spec["description"] += f" ({listed}; or a server the start declares)"
            elif prop == "server" and spec.get("anyOf"):
                for branch in spec["anyOf"]:
                    if branch.get("type") == "string":
                        branch["anyOf"] = _server_name(servers)
                spec["description"] += f" ({listed}; or a server the start declares)"


def _server_name(servers: list[str]) -> list[dict[str, Any]]:
    """A server an event names: one of the starts' own (offered as a list), or a name a start declares."""
    return [{"enum": servers}, {"pattern": SERVER_NAME_PATTERN}]


def _named(servers: list[str]) -> dict[str, Any]:
    """What an event may name when the start is known: only that start's servers."""
    one = {"enum": servers}
    return {
        "properties": {
            "server": one,
            "gateway": one,
            "backend": one,
            "calls": {"items": {"properties": {"server": one}}},
        }
    }


def _props(path: list[str], leaf: dict[str, Any]) -> dict[str, Any]:
    """``{"properties": {a: {"items": {"properties": {b: leaf}}}}}`` for path ``["a", "*", "b"]``."""
    node = leaf
    for part in reversed(path):
        node = {"items": node} if part == "*" else {"properties": {part: node}}
    return node


# Where each kind of file holds events, for the per-start server lists.
_EVENT_PATHS = {
    "PlaygroundPanel": [["buttons", "*", "event"]],
    "StepperPanel": [["steps", "*", "events", "*"]],
    "RestartLabPanel": [["situations", "*", "before", "*"], ["situations", "*", "after", "*"]],
    "Scenario": [["steps", "*", "event"], ["steps", "*", "events", "*"]],
}


def _per_start(model: dict[str, Any], def_name: str, by_start: dict[str, list[str]]) -> None:
    """Given the start's name, the events (and a restart lab's server) may name only that start's servers,
    unless the start declares servers of its own."""
    rules = []
    for start, servers in by_start.items():
        then: dict[str, Any] = {"allOf": [_props(path, _named(servers)) for path in _EVENT_PATHS[def_name]]}
        if def_name == "RestartLabPanel":
            then["allOf"].append({"properties": {"server": {"enum": servers}}})
        rules.append(
            {
                "if": {
                    "properties": {
                        "start": {
                            "properties": {"name": {"const": start}},
                            "required": ["name"],
                            "not": {"required": ["servers"]},  # declared servers: lesson check holds the names
                        }
                    },
                    "required": ["start"],
                },
                "then": then,
            }
        )
    model.setdefault("allOf", []).extend(rules)


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema, for every kind of content file."""
    made = {
        "lesson-front-matter.schema.json": (
            LessonMeta.model_json_schema(),
            "Lesson front matter",
            "The YAML between the '---' lines at the top of content/lessons/*.md.",
        ),
        "quiz.schema.json": (Quiz.model_json_schema(), "Quiz", "content/quizzes/<lesson slug>.yaml"),
        "glossary.schema.json": (
            Glossary.model_json_schema(),
            "Glossary",
            "content/glossary.yaml: every protocol term the lessons use, each defined once.",
        ),
        "panel.schema.json": (
            TypeAdapter(Panel).json_schema(),
            "Panel",
            "content/panels/<id>.yaml: an interactive panel, shown by a '::: <id>' line in a lesson.",
        ),
        "scenario.schema.json": (
            Scenario.model_json_schema(),
            "Scenario",
            "content/scenarios/<id>.yaml: a start, scripted presses and narration for each step.",
        ),
    }
    by_start = _servers_by_start()
    for schema, _, _ in made.values():
        _enrich(schema)
        for def_name, model in schema.get("$defs", {}).items():
            if def_name in _EVENT_PATHS:
                _per_start(model, def_name, by_start)
        if schema.get("title") in _EVENT_PATHS:  # the scenario file's own model is the schema's root
            _per_start(schema, schema["title"], by_start)
    return {
        name: {
            "$schema": DRAFT,
            "title": title,
            "description": description,
            **{k: v for k, v in s.items() if k != "title"},
        }
        for name, (s, title, description) in made.items()
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write(out: Path) -> list[Path]:
    """Write every schema into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = out / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def stale(out: Path) -> list[str]:
    """The schema files in ``out`` that are missing or differ from what the models generate."""
    return [
        name
        for name, schema in schemas().items()
        if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != render(schema)
    ]


__all__ = ["schemas", "stale", "write"]
