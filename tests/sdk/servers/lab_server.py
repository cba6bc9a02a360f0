"""One server of a lesson scenario, built with the official SDK's public low-level server API (``Server``).

It serves both protocol eras on one endpoint, as the SDK does: the client's
first message picks the era.

    python lab_server.py --spec '{"title": "tracker", "tools": [...], ...}' --transport http --port 8123

The spec is the simulation's own definition of that server (``harness.server_spec``), so the two wires can
be compared name for name.

Operator actions come from outside any request, as in the lessons: SIGUSR1 deploys the server's next
upcoming tool and announces the change (to ``subscriptions/listen`` streams through the subscription
bus, and to legacy sessions with ``notifications/tools/list_changed``). The process ends itself after
``--lifetime`` seconds, whatever happens to the test that started it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.mcpserver import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

ToolDef = SimpleNamespace  # a tool as the simulation defines it (lesson.sim.model.ToolDef's fields)

QUESTION = "Forecast for which Portland?"
ELICIT_SCHEMA = {
    "type": "object",
    "properties": {"state": {"type": "string", "enum": ["OR", "ME"]}},
    "required": ["state"],
}


def annotations(tool: ToolDef) -> types.ToolAnnotations:
    if tool.read_only:
        return types.ToolAnnotations(read_only_hint=True)
    return types.ToolAnnotations(
        read_only_hint=False, destructive_hint=tool.destructive, idempotent_hint=tool.idempotent
    )


def wire_tool(tool: ToolDef) -> types.Tool:
    schema = {"type": "object", "properties": {tool.arg: {"type": "string"}}, "required": [tool.arg]}
    return types.Tool(name=tool.name, description=tool.description, input_schema=schema, annotations=annotations(tool))


class LabServer(Server):
    """A low-level SDK server that declares ``tools.listChanged`` on the legacy handshake, since it sends
    the notice: the SDK's default initialization options leave it false, and its HTTP transport uses them."""

    def create_initialization_options(self, notification_options=None, *args: Any, **kwargs: Any):
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), *args, **kwargs
        )


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


def build(args: argparse.Namespace) -> tuple[Server, Any]:
    srv = SimpleNamespace(**json.loads(args.spec))
    tools = [ToolDef(**t) for t in srv.tools]
    upcoming = [ToolDef(**t) for t in srv.upcoming]
    input_key = srv.input_key
    asked: list[str] = []
    bus = InMemorySubscriptionBus()
    legacy_sessions: list[Any] = []

    async def list_tools(ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[wire_tool(t) for t in tools])

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams):
        tool = next((t for t in tools if t.name == params.name), None)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        value = (params.arguments or {}).get(tool.arg, "")
        if tool.name == args.hangs:
            await anyio.sleep_forever()  # a call still running when the process dies
        # The asking tool asks once per process (as the lesson's "W asks the user" does once), and the
        # modern retry that carries the answer is the same call finishing.
        if tool.name == args.asks and (not asked or params.input_responses):
            asked.append(tool.name)
            answer = await ask(ctx, params, input_key)
            if isinstance(answer, types.InputRequiredResult):
                return answer
            value = f"{value}, {answer}"
        text = f"{tool.name} done ({tool.arg}={value})"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = LabServer(
        srv.title,
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(bus) if srv.list_changed else None,
    )
    security = RequestStateSecurity(keys=[bytes.fromhex(args.state_key)]) if args.state_key else None
    server.middleware.append(
        RequestStateBoundary(security or RequestStateSecurity.ephemeral(), default_audience=srv.title)
    )

    async def remember_legacy(ctx, call_next):
        # A legacy session gets change notices outside any request: keep its session once initialized.
        if ctx.method == "notifications/initialized" and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            legacy_sessions.append(ctx.session)
        return await call_next(ctx)

    server.middleware.append(remember_legacy)

    async def deploy() -> None:
        if not upcoming:
            return
        tools.append(upcoming.pop(0))
        await bus.publish(ToolsListChanged())
        for session in legacy_sessions:
            await session.send_tool_list_changed()

    return server, deploy


class FileTokens:
    """The authorization server's word on each bearer token: the list of valid ones in a file, read on every
    request. An expired or revoked token is one the file no longer lists."""

    def __init__(self, path: str) -> None:
        self.path = path

    async def verify_token(self, token: str) -> AccessToken | None:
        with open(self.path) as f:
            valid = json.load(f)
        return AccessToken(token=token, client_id="lesson-host", scopes=[]) if token in valid else None


def auth(tokens_file: str) -> dict[str, Any]:
    """The SDK's bearer-token protection of the MCP endpoint, when the server wants tokens."""
    if not tokens_file:
        return {}
    settings = AuthSettings(issuer_url="http://127.0.0.1/issuer", resource_server_url=None)
    return {"auth": settings, "token_verifier": FileTokens(tokens_file)}


async def serve(args: argparse.Namespace) -> None:
    server, deploy = build(args)
    async with anyio.create_task_group() as tg:

        async def on_signals() -> None:
            with anyio.open_signal_receiver(signal.SIGUSR1) as signals:
                async for _ in signals:
                    await deploy()

        tg.start_soon(on_signals)
        if args.transport == "stdio":
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        else:
            app = server.streamable_http_app(host="127.0.0.1", **auth(args.tokens_file))
            await uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning")).serve()
        tg.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--spec", required=True, help="JSON: title, list_changed, tools, upcoming, input_key")
    p.add_argument("--transport", choices=["stdio", "http"], required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--lifetime", type=float, default=60.0)
    p.add_argument("--tokens-file", default="", help="JSON list of the bearer tokens the server accepts")
    p.add_argument("--hangs", default="", help="the tool whose call never finishes")
    p.add_argument("--asks", default="", help="the tool that asks the user which Portland, once per process")
    p.add_argument("--state-key", default="", help="hex key: requestState verifies across processes")
    args = p.parse_args(argv)
    # Never outlive the test: a timer ends the process even if the event loop is stuck.
    timer = threading.Timer(args.lifetime, lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    try:
        anyio.run(serve, args)
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
