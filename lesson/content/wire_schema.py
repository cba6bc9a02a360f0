"""Validate wire messages against their era's official MCP schema.

The schemas are read from ``../shared/mcp-schema/<version>/schema.json`` beside the repository (never
copied into it). Without that folder the check falls back to the per-version wire models of the
``mcp-types`` package, which the official SDK generates from the same schemas, so it always runs.
``lesson check`` and the tests share this module.
"""

from __future__ import annotations

import functools
import importlib
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
VERSIONS = {"legacy": "2025-11-25", "modern": "2026-07-28"}

# A legacy JSONRPCResultResponse only checks the envelope: its result is checked against the specific
# result type too, told apart by a key only that result has.
LEGACY_RESULTS = {
    "protocolVersion": "InitializeResult",
    "tools": "ListToolsResult",
    "action": "ElicitResult",
    "content": "CallToolResult",
}


def schema_path(era: str) -> Path:
    return SHARED / "mcp-schema" / VERSIONS[era] / "schema.json"


def have_shared_schemas() -> bool:
    return all(schema_path(era).is_file() for era in VERSIONS)


@functools.cache
def _schema(era: str) -> dict[str, Any]:
    return json.loads(schema_path(era).read_text())


@functools.cache
def _validator(era: str, def_name: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = _schema(era)
    if def_name not in schema["$defs"]:
        raise KeyError(f"the {VERSIONS[era]} schema has no definition {def_name!r}")
    wrapper = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/$defs/{def_name}",
        "$defs": schema["$defs"],
    }
    return Draft202012Validator(wrapper)


@functools.cache
def _model(era: str, def_name: str) -> Any:
    from pydantic import TypeAdapter

    module = importlib.import_module("mcp_types._v" + VERSIONS[era].replace("-", "_"))
    if not hasattr(module, def_name):
        raise KeyError(f"the {VERSIONS[era]} models have no definition {def_name!r}")
    return TypeAdapter(getattr(module, def_name))


def _at(doc: Any, pointer: str) -> Any:
    for part in [p for p in pointer.split("/") if p]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def errors(message: Any, era: str, def_name: str, pointer: str = "") -> list[str]:
    """The schema errors of ``message`` (at ``pointer``) against ``def_name``; [] if valid.

    Raises KeyError when the era's schema has no such definition.
    """
    part = _at(message, pointer)
    if have_shared_schemas():
        return [
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in _validator(era, def_name).iter_errors(part)
        ]
    from pydantic import ValidationError

    try:
        _model(era, def_name).validate_python(part)
    except ValidationError as exc:
        return [f"{'/'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors(include_url=False)]
    return []


def message_errors(message: Any, era: str, def_name: str) -> list[str]:
    """Like :func:`errors`, and a legacy result envelope's ``result`` is checked as its specific result.

    An unknown definition name is reported as an error rather than raised.
    """
    try:
        found = errors(message, era, def_name)
    except KeyError as exc:
        return [str(exc.args[0])]
    if found or era != "legacy" or def_name != "JSONRPCResultResponse" or not isinstance(message, dict):
        return found
    result = message.get("result")
    kinds = [LEGACY_RESULTS[k] for k in result if k in LEGACY_RESULTS] if isinstance(result, dict) else []
    if not kinds:
        return [f"result: cannot tell which result this is (give it one of the keys {', '.join(LEGACY_RESULTS)})"]
    return [f"result ({kinds[0]}): {e}" for e in errors(message, era, kinds[0], "/result")]
