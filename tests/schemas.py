"""Validate wire messages against their era's official MCP schema.

The schemas are read from ``../shared/mcp-schema/<version>/schema.json`` (never copied into the
repo). A clone without ``../shared`` falls back to the per-version wire models of the
``mcp-types`` package, which the official SDK generates from the same schemas, so the check
always runs and never skips.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
VERSIONS = {"legacy": "2025-11-25", "modern": "2026-07-28"}


def schema_path(era: str) -> Path:
    return SHARED / "mcp-schema" / VERSIONS[era] / "schema.json"


def have_shared_schemas() -> bool:
    return all(schema_path(era).is_file() for era in VERSIONS)


@functools.cache
def _schema(era: str) -> dict[str, Any]:
    return json.loads(schema_path(era).read_text())


@functools.cache
def _validator(era: str, def_name: str):
    from jsonschema import Draft202012Validator

    schema = _schema(era)
    if def_name not in schema["$defs"]:
        raise KeyError(f"{VERSIONS[era]} schema has no $defs entry {def_name!r}")
    wrapper = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/$defs/{def_name}",
        "$defs": schema["$defs"],
    }
    return Draft202012Validator(wrapper)


@functools.cache
def _model(era: str, def_name: str):
    import importlib

    from pydantic import TypeAdapter

    module = importlib.import_module("mcp_types._v" + VERSIONS[era].replace("-", "_"))
    if not hasattr(module, def_name):
        raise KeyError(f"mcp-types {VERSIONS[era]} models have no {def_name!r}")
    return TypeAdapter(getattr(module, def_name))


def _at(doc: Any, pointer: str) -> Any:
    for part in [p for p in pointer.split("/") if p]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def errors(message: Any, era: str, def_name: str, pointer: str = "") -> list[str]:
    """Return the schema errors of ``message`` (at ``pointer``) against ``def_name``; [] if valid."""
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
        return [str(exc)]
    return []
