"""Validate wire messages against their era's official MCP schema.

The schemas are read from ``../shared/mcp-schema/<version>/schema.json`` beside the repository (never
copied into it). Without that folder the check falls back to the wire models of the ``mcp-types``
package, which the official SDK generates from the same schemas, so it always runs: each reached through
its public API (``mcp_types.methods``' per-version method maps, ``mcp_types.jsonrpc``'s envelopes).
``lesson check`` and the tests share this module.
"""

from __future__ import annotations

import functools
import json
import typing
from pathlib import Path
from typing import Any

from lesson.sim.model import VERSION

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"

# A legacy JSONRPCResultResponse only checks the envelope: its result is checked against the specific
# result type too, told apart by a key only that result has.
LEGACY_RESULTS = {
    "protocolVersion": "InitializeResult",
    "tools": "ListToolsResult",
    "action": "ElicitResult",
    "content": "CallToolResult",
}


def schema_path(era: str) -> Path:
    return SHARED / "mcp-schema" / VERSION[era] / "schema.json"


def have_shared_schemas() -> bool:
    return all(schema_path(era).is_file() for era in VERSION)


@functools.cache
def _schema(era: str) -> dict[str, Any]:
    return json.loads(schema_path(era).read_text())


@functools.cache
def _validator(era: str, def_name: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = _schema(era)
    if def_name not in schema["$defs"]:
        raise KeyError(f"the {VERSION[era]} schema has no definition {def_name!r}")
    wrapper = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/$defs/{def_name}",
        "$defs": schema["$defs"],
    }
    return Draft202012Validator(wrapper)


@functools.cache
def _models(era: str) -> dict[str, Any]:
    """The wire models ``mcp_types.methods`` maps hold for the era's version, by their schema names:
    each request and notification whole, each result as its body; and each ``<X>ResultResponse`` as the
    results its method may return (``CallToolResultResponse``: a CallToolResult or an InputRequiredResult)."""
    from mcp_types import methods

    found: dict[str, Any] = {}
    tables = (methods.CLIENT_REQUESTS, methods.CLIENT_NOTIFICATIONS, methods.SERVER_REQUESTS)
    tables += (methods.SERVER_NOTIFICATIONS, methods.SERVER_RESULTS, methods.CLIENT_RESULTS)
    for table in tables:
        for (_, version), target in table.items():
            if version != VERSION[era]:
                continue
            members = typing.get_args(target) or (target,)
            for cls in members:
                found.setdefault(cls.__name__, cls)
            if table in (methods.SERVER_RESULTS, methods.CLIENT_RESULTS):
                found.setdefault(members[0].__name__ + "Response", target)
    return found


@functools.cache
def _adapter(target: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(target)


def _model_errors(part: Any, era: str, def_name: str) -> list[str]:
    """The errors of ``part`` against ``def_name`` by the package's models (the fallback)."""
    from mcp_types import UnsupportedProtocolVersionErrorData, jsonrpc
    from pydantic import ValidationError

    checks: list[tuple[Any, Any, str]] = []  # (model, value, where)
    if def_name == "JSONRPCResultResponse" or def_name.endswith("ResultResponse"):
        checks.append((jsonrpc.JSONRPCResponse, part, ""))
        if def_name != "JSONRPCResultResponse" and isinstance(part, dict):
            body = _models(era).get(def_name)
            if body is None:
                raise KeyError(f"the {VERSION[era]} models have no definition {def_name!r}")
            checks.append((body, part.get("result"), "result/"))
    elif def_name in ("JSONRPCErrorResponse", "UnsupportedProtocolVersionError"):
        # The schema's error response may leave out its id (a request it could not read), but never sends null.
        if isinstance(part, dict) and "id" in part and part["id"] is None:
            return ["id: None is not a request id"]
        checks.append((jsonrpc.JSONRPCError, {"id": None, **part} if isinstance(part, dict) else part, ""))
        if def_name == "UnsupportedProtocolVersionError" and isinstance(part, dict):
            error = part.get("error") if isinstance(part.get("error"), dict) else {}
            if error.get("code") != jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
                return [f"error/code: {error.get('code')} is not {jsonrpc.UNSUPPORTED_PROTOCOL_VERSION}"]
            checks.append((UnsupportedProtocolVersionErrorData, error.get("data"), "error/data/"))
    elif def_name in _models(era):
        checks.append((_models(era)[def_name], part, ""))
    else:
        raise KeyError(f"the {VERSION[era]} models have no definition {def_name!r}")
    found: list[str] = []
    for model, value, where in checks:
        try:
            _adapter(model).validate_python(value)
        except ValidationError as exc:
            found += [
                f"{where}{'/'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors(include_url=False)
            ]
    return found


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
    return _model_errors(part, era, def_name)


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
