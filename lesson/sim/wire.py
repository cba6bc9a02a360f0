"""JSON-RPC messages, per era: what a host and its servers say to each other.

How they travel (HTTP requests and responses, SSE events, stdio lines) is ``frames.py`` and
``transport.py``. ``checks_for`` names the ``$defs`` entries of the era's official schema each
message must satisfy, so the tests can check every message the simulation emits.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .model import ERAS, VERSION, Era, Strict, ToolDef

CLIENT_INFO = {"name": "LessonHost", "version": "1.0.0"}
CLIENT_CAPS = {"elicitation": {"form": {}}}
SUB_KEY = "io.modelcontextprotocol/subscriptionId"
# The key naming the one input request in a weather MRTR round (the name the lesson's example uses).
INPUT_KEY = "confirm_city"


class SchemaCheck(Strict):
    definition: str
    pointer: str = ""


def digest(*parts: object, n: int = 32) -> str:
    """A deterministic hex id (session ids, handles): no randomness in the model."""
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:n]


def request_meta() -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION["modern"],
        "io.modelcontextprotocol/clientInfo": dict(CLIENT_INFO),
        "io.modelcontextprotocol/clientCapabilities": dict(CLIENT_CAPS),
    }


def request(era: Era, rid: int | str, method: str, params: dict[str, Any] | None = None) -> dict:
    """A JSON-RPC request; modern requests always carry their ``_meta``."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if era == "modern":
        msg["params"] = {"_meta": request_meta(), **(params or {})}
    elif params is not None:
        msg["params"] = params
    return msg


def result(rid: int | str, body: dict[str, Any]) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": body}


def error(rid: int | str | None, code: int, message: str) -> dict:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "error": {"code": code, "message": message}}
    if rid is not None:
        msg["id"] = rid
    return msg


METHOD_NOT_FOUND = -32601
UNSUPPORTED_VERSION = -32022


def unsupported_version(rid: int | str, requested: str, supported: list[str]) -> dict:
    """2026-07-28 UnsupportedProtocolVersionError: the versions the server serves, and the one it was asked for."""
    msg = error(rid, UNSUPPORTED_VERSION, "Unsupported protocol version")
    msg["error"]["data"] = {"supported": list(supported), "requested": requested}
    return msg


def tool_json(tool: ToolDef) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": input_schema(tool.arg, tool.handle),
        "annotations": annotations(tool),
    }


def input_schema(arg: str, handle: str | None = None) -> dict[str, Any]:
    """A tool's arguments: its handle (if it takes one) and its one other string, both required."""
    names = [handle, arg] if handle else [arg]
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": names}


def annotations(tool: ToolDef) -> dict[str, bool]:
    """A read-only tool says so and nothing more: the other hints only mean something when it may write."""
    if tool.read_only:
        return {"readOnlyHint": True}
    return {"readOnlyHint": False, "destructiveHint": tool.destructive, "idempotentHint": tool.idempotent}


def server_info(title: str, generation: int) -> dict[str, str]:
    return {"name": title, "version": f"1.{generation}.0"}


# --- legacy (2025-11-25) -------------------------------------------------------------------


def initialize(rid: int) -> dict:
    return request(
        "legacy",
        rid,
        "initialize",
        {
            "protocolVersion": VERSION["legacy"],
            "capabilities": dict(CLIENT_CAPS),
            "clientInfo": dict(CLIENT_INFO),
        },
    )


def initialize_result(rid: int, title: str, generation: int, list_changed: bool) -> dict:
    return result(
        rid,
        {
            "protocolVersion": VERSION["legacy"],
            "capabilities": {"tools": {"listChanged": list_changed}},
            "serverInfo": server_info(title, generation),
        },
    )


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
SESSION_NOT_FOUND = error(None, -32600, "Session not found")


def elicit_params(question: str) -> dict[str, Any]:
    """A form asking which state: the same question in both eras (legacy request, modern inputRequests)."""
    return {
        "mode": "form",
        "message": question,
        "requestedSchema": {
            "type": "object",
            "properties": {"state": {"type": "string", "enum": ["OR", "ME"]}},
            "required": ["state"],
        },
    }


def elicit(rid: int, question: str) -> dict:
    return request("legacy", rid, "elicitation/create", elicit_params(question))


def elicit_result(rid: int, answer: str) -> dict:
    return result(rid, {"action": "accept", "content": {"state": answer}})


# --- modern (2026-07-28) -------------------------------------------------------------------


def discover_result(rid: int | str, title: str, generation: int, list_changed: bool) -> dict:
    return result(
        rid,
        {
            "resultType": "complete",
            "supportedVersions": [VERSION["modern"]],
            "capabilities": {"tools": {"listChanged": list_changed}},
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info(title, generation)},
            "ttlMs": 3600000,
            "cacheScope": "public",
        },
    )


def listen(rid: str) -> dict:
    return request("modern", rid, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})


def acknowledged(sub_id: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {SUB_KEY: sub_id}, "notifications": {"toolsListChanged": True}},
    }


def cancelled(request_id: str | int) -> dict:
    """Modern stdio: how a client ends its listen request."""
    return {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": "the client no longer listens"},
    }


def input_required(rid: int, question: str, state: str) -> dict:
    return result(
        rid,
        {
            "resultType": "input_required",
            "inputRequests": {
                INPUT_KEY: {
                    "method": "elicitation/create",
                    "params": elicit_params(question),
                }
            },
            "requestState": state,
        },
    )


# --- both eras -----------------------------------------------------------------------------


def list_changed(era: Era, sub_id: str | None) -> dict:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    if era == "modern" and sub_id is not None:
        msg["params"] = {"_meta": {SUB_KEY: sub_id}}
    return msg


def tools_list_result(era: Era, rid: int, tools: list[ToolDef], title: str, gen: int, list_changed: bool) -> dict:
    body: dict[str, Any] = {"tools": [tool_json(t) for t in tools]}
    if era == "modern":
        body = {
            "resultType": "complete",
            **body,
            # A server that will announce a change lets the list be reused for five minutes; one that never
            # will says 0, stale at once (the SDK's default), so a client asks again whenever it needs the
            # list (caching.mdx: with no listChanged, the client relies on the TTL alone).
            "ttlMs": 300000 if list_changed else 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info(title, gen)},
        }
    return result(rid, body)


def call(era: Era, rid: int, tool: str, arguments: dict[str, str], **extra: Any) -> dict:
    return request(era, rid, "tools/call", {"name": tool, "arguments": dict(arguments), **extra})


def call_result_body(era: Era, text: str, is_error: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        body["isError"] = True
    if era == "modern":
        body = {"resultType": "complete", **body}
    return body


# The $defs entries each kind of message must satisfy, per era. Keys: a request's or notification's
# method; "<method> result" for the result of a request with that method; "error"; "host_result".
CHECKS: dict[tuple[Era, str], list[SchemaCheck]] = {}


def _c(*pairs: tuple[str, str]) -> list[SchemaCheck]:
    return [SchemaCheck(definition=d, pointer=p) for d, p in pairs]


for _era in ERAS:
    CHECKS[(_era, "tools/list")] = _c(("ListToolsRequest", ""))
    CHECKS[(_era, "tools/call")] = _c(("CallToolRequest", ""))
    CHECKS[(_era, "notifications/tools/list_changed")] = _c(("ToolListChangedNotification", ""))
    CHECKS[(_era, "error")] = _c(("JSONRPCErrorResponse", ""))
    CHECKS[(_era, "host_result")] = _c(("CallToolResult", ""))
CHECKS[("legacy", "tools/list result")] = _c(("JSONRPCResultResponse", ""), ("ListToolsResult", "/result"))
CHECKS[("legacy", "tools/call result")] = _c(("JSONRPCResultResponse", ""), ("CallToolResult", "/result"))
CHECKS[("legacy", "initialize")] = _c(("InitializeRequest", ""))
CHECKS[("legacy", "initialize result")] = _c(("JSONRPCResultResponse", ""), ("InitializeResult", "/result"))
CHECKS[("legacy", "notifications/initialized")] = _c(("InitializedNotification", ""))
CHECKS[("legacy", "elicitation/create")] = _c(("ElicitRequest", ""))
CHECKS[("legacy", "elicitation/create result")] = _c(("JSONRPCResultResponse", ""), ("ElicitResult", "/result"))
CHECKS[("modern", "tools/list result")] = _c(("ListToolsResultResponse", ""))
CHECKS[("modern", "tools/call result")] = _c(("CallToolResultResponse", ""), ("CallToolResult", "/result"))
CHECKS[("modern", "tools/call input_required")] = _c(("CallToolResultResponse", ""), ("InputRequiredResult", "/result"))
CHECKS[("modern", "server/discover")] = _c(("DiscoverRequest", ""))
CHECKS[("modern", "server/discover result")] = _c(("DiscoverResultResponse", ""))
CHECKS[("modern", "subscriptions/listen")] = _c(("SubscriptionsListenRequest", ""))
CHECKS[("modern", "notifications/subscriptions/acknowledged")] = _c(("SubscriptionsAcknowledgedNotification", ""))
CHECKS[("modern", "notifications/cancelled")] = _c(("CancelledNotification", ""))


def check_key(payload: dict[str, Any], answers: str | None = None) -> str:
    """Which row of ``CHECKS`` a message belongs to; ``answers`` is the method of the request a result answers."""
    if "method" in payload:
        return payload["method"]
    if "error" in payload:
        return "error"
    if "result" in payload:
        if answers is None:
            raise ValueError(f"a result must say which request it answers: {payload}")
        if payload["result"].get("resultType") == "input_required":
            return f"{answers} input_required"
        return f"{answers} result"
    return "host_result"  # a bare CallToolResult the host builds for the model


def checks_for(era: Era, payload: dict[str, Any] | None, answers: str | None = None) -> list[SchemaCheck]:
    if payload is None:
        return []
    key = check_key(payload, answers)
    if (era, key) not in CHECKS:
        raise ValueError(f"no schema check for a {era} {key!r} message")
    return CHECKS[(era, key)]
