"""One server of a lesson scenario, built with the official SDK's public low-level server API (``Server``).

It serves both protocol eras on one endpoint, as the SDK does: the client's
first message picks the era.

    python lab_server.py --spec '{"title": "tracker", "tools": [...], ...}' --transport http --port 8123

The spec is the simulation's own definition of that server (``harness.server_spec``), so the two wires can
be compared name for name.

Operator actions come from outside any request, as in the lessons: SIGUSR1 deploys the server's next
upcoming tool and announces the change (to ``subscriptions/listen`` streams through the subscription
bus, and to legacy sessions with ``notifications/tools/list_changed``); SIGUSR2 announces a change that
did not happen (a timer's notice, or one from a server that never declared ``listChanged``). The process
ends itself after ``--lifetime`` seconds, whatever happens to the test that started it.

It is the live playground's server (``lesson/live/server.py``) with what these flows add: a tool whose call
never finishes, a tool that asks the user, requestState keys, bearer tokens, stdio, and baskets (explicit
state handles) kept in the process's memory or in a store every replica shares.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from lesson.live.server import ToolSpec, each_signal, run, serve_http
from lesson.live.server import build as build_live

QUESTION = "Forecast for which Portland?"
ELICIT_SCHEMA = {
    "type": "object",
    "properties": {"state": {"type": "string", "enum": ["OR", "ME"]}},
    "required": ["state"],
}


async def ask(
    ctx: ServerRequestContext, params: types.CallToolRequestParams, input_key: str
) -> str | types.InputRequiredResult:
    """Which Portland: a question on the call's own stream (legacy) or an input_required round (modern)."""
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        # On the call's own stream, as the lesson shows it (without the id the SDK uses the GET stream).
        result = await ctx.session.elicit_form(QUESTION, ELICIT_SCHEMA, related_request_id=ctx.request_id)
        return str((result.content or {}).get("state"))
    responses = params.input_responses or {}
    if input_key in responses:
        return str(responses[input_key].content.get("state"))  # type: ignore[union-attr]
    return types.InputRequiredResult(
        input_requests={
            input_key: types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=QUESTION, requested_schema=ELICIT_SCHEMA)
            )
        },
        request_state="which-portland",
    )


class Baskets:
    """Where the shop keeps baskets: this process's memory, or a JSON file every replica reads and writes (the
    durable store). A handle is minted from the process id and a count, so two replicas never mint the same."""

    def __init__(self, store: str) -> None:
        self.path = None if store == "memory" else Path(store)
        self.memory: dict[str, list[str]] = {}
        self.count = 0

    def load(self) -> dict[str, list[str]]:
        if self.path is None:
            return self.memory
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def save(self, baskets: dict[str, list[str]]) -> None:
        if self.path is not None:
            self.path.write_text(json.dumps(baskets))

    def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        baskets = self.load()
        if tool == "create_basket":
            self.count += 1
            handle = f"bsk_{os.getpid()}_{self.count}"
            baskets[handle] = []
            self.save(baskets)
            return text_result(json.dumps({"basket_id": handle}))
        handle = str(arguments.get("basket_id", ""))
        if handle not in baskets:
            return text_result(f"Unknown basket_id '{handle}'. Create a new basket with create_basket.", error=True)
        baskets[handle].append(str(arguments.get("sku", "")))
        self.save(baskets)
        return text_result(json.dumps({"basket_id": handle, "items": baskets[handle]}))


def text_result(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def build(args: argparse.Namespace) -> tuple[Server, Any, Any]:
    spec = json.loads(args.spec)
    answered: list[str] = []
    baskets = Baskets(args.baskets) if args.baskets else None

    async def answer(ctx: ServerRequestContext, params: types.CallToolRequestParams, tool: ToolSpec) -> Any:
        if baskets is not None and tool.name in ("create_basket", "add_item"):
            return baskets.call(tool.name, params.arguments or {})
        value = (params.arguments or {}).get(tool.arg, "")
        if tool.name == args.hangs:
            await anyio.sleep_forever()  # a call still running when the process dies
        # The asking tool asks until a process has its answer (as the lesson's "W asks the user" does), and
        # the modern retry that carries the answer is the same call finishing.
        if tool.name == args.asks and not answered:
            answer = await ask(ctx, params, spec["input_key"])
            if isinstance(answer, types.InputRequiredResult):
                return answer
            answered.append(answer)
            value = f"{value}, {answer}"
        return text_result(f"{tool.name} done ({tool.arg}={value})")

    server, deploy, announce = build_live(spec, answer, listen=spec["list_changed"], shown=shown)
    if args.state_key:  # a key every process holds
        security = RequestStateSecurity(keys=[bytes.fromhex(args.state_key)], ttl=args.state_ttl)
    else:
        security = RequestStateSecurity.ephemeral(ttl=args.state_ttl)
    boundary = RequestStateBoundary(security, default_audience=spec["title"])
    server.middleware.insert(len(server.middleware) - 1, boundary)  # before the one that keeps legacy sessions
    return server, deploy, announce


def shown(ctx: ServerRequestContext, tool: ToolSpec) -> bool:
    """An administrator's tool is listed, and runs, only for a request whose token was issued to an admin."""
    if not tool.admin_only:
        return True
    user = ctx.request.scope.get("user") if ctx.request is not None else None
    return isinstance(user, AuthenticatedUser) and "admin" in user.access_token.scopes


class FileTokens:
    """The authorization server's word on each bearer token: the valid ones in a file, each with the role of
    the user it was issued to, read on every request. An expired or revoked token is one the file no longer
    lists."""

    def __init__(self, path: str) -> None:
        self.path = path

    async def verify_token(self, token: str) -> AccessToken | None:
        with open(self.path) as f:
            valid = json.load(f)
        if token not in valid:
            return None
        return AccessToken(token=token, client_id="lesson-host", scopes=[valid[token]])


def auth(tokens_file: str) -> dict[str, Any]:
    """The SDK's bearer-token protection of the MCP endpoint, when the server wants tokens."""
    if not tokens_file:
        return {}
    settings = AuthSettings(issuer_url="http://127.0.0.1/issuer", resource_server_url=None)
    return {"auth": settings, "token_verifier": FileTokens(tokens_file)}


async def serve(args: argparse.Namespace) -> None:
    server, deploy, announce = build(args)
    async with anyio.create_task_group() as tg:
        tg.start_soon(each_signal, deploy)
        tg.start_soon(each_signal, announce, signal.SIGUSR2)
        if args.transport == "stdio":
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        else:
            await serve_http(server, args.port, stateless_http=bool(args.stateless), **auth(args.tokens_file))
        tg.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--spec", required=True, help="JSON: title, list_changed, tools, upcoming, input_key")
    p.add_argument("--transport", choices=["stdio", "http"], required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--lifetime", type=float, default=60.0)
    p.add_argument("--tokens-file", default="", help="JSON: each bearer token the server accepts, with its user's role")
    p.add_argument("--hangs", default="", help="the tool whose call never finishes")
    p.add_argument("--asks", default="", help="the tool that asks the user which Portland, once per process")
    p.add_argument("--state-key", default="", help="hex key: requestState verifies across processes")
    p.add_argument("--state-ttl", type=float, default=600.0, help="seconds a requestState stays valid")
    p.add_argument("--stateless", default="", help="if set, legacy: issue no session id (and keep none)")
    p.add_argument("--baskets", default="", help="'memory', or the path of the store every replica shares")
    run(serve, p.parse_args(argv))  # never outliving the test


if __name__ == "__main__":
    main()
