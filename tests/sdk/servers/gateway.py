"""A gateway built on the official SDK: one MCP endpoint in front of backend servers it reaches with the
SDK's own client. Its tools are those of the backends that pass its health checks, in the order the
backends were joined; a call goes to the backend that offers the tool. Any change to that set is announced
to every client listening to the gateway.

    python gateway.py --backends '{"A": "http://127.0.0.1:5001/mcp", ...}' --joined A,B --port 8123

Operator actions come from outside any request: the harness writes one line into the file named by
``--control`` ("fails B", "recovers B", "joins C", "leaves A") and sends SIGUSR1. The process ends itself
after ``--lifetime`` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import threading
from contextlib import AsyncExitStack
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS


class Gateway(Server):
    """Declares ``tools.listChanged`` on the legacy handshake too, since it sends the notice."""

    def create_initialization_options(self, notification_options=None, *args: Any, **kwargs: Any):
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), *args, **kwargs
        )


async def serve(args: argparse.Namespace) -> None:
    urls: dict[str, str] = json.loads(args.backends)
    joined = [n for n in args.joined.split(",") if n]
    unhealthy: set[str] = set()
    clients: dict[str, Client] = {}
    tools: dict[str, list[types.Tool]] = {}
    bus = InMemorySubscriptionBus()
    legacy_sessions: list[Any] = []

    async with AsyncExitStack() as stack:

        async def join(name: str) -> None:
            client = Client(streamable_http_client(urls[name], terminate_on_close=False), cache=None)
            clients[name] = await stack.enter_async_context(client)
            tools[name] = list((await client.list_tools()).tools)

        for name in joined:
            await join(name)

        def visible() -> list[types.Tool]:
            return [t for n in joined if n not in unhealthy for t in tools[n]]

        async def list_tools(ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=visible())

        async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams):
            owner = next((n for n in joined if any(t.name == params.name for t in tools[n])), None)
            if owner is None:
                raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
            if owner in unhealthy:
                text = f"Backend {owner} is failing its health checks; {params.name} is unavailable right now."
                return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
            result = await clients[owner].call_tool(params.name, params.arguments or {})
            return types.CallToolResult(content=result.content, is_error=result.is_error)

        server = Gateway(
            "gateway",
            version="1.0.0",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_subscriptions_listen=ListenHandler(bus),
        )

        async def remember_legacy(ctx, call_next):
            if ctx.method == "notifications/initialized" and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
                legacy_sessions.append(ctx.session)
            return await call_next(ctx)

        server.middleware.append(remember_legacy)

        async def operate() -> None:
            with anyio.open_signal_receiver(signal.SIGUSR1) as signals:
                async for _ in signals:
                    with open(args.control) as f:
                        what, name = f.read().split()
                    if what == "fails":
                        unhealthy.add(name)
                    elif what == "recovers":
                        unhealthy.discard(name)
                    elif what == "joins":
                        await join(name)
                        joined.append(name)
                    elif what == "leaves":
                        joined.remove(name)
                    await bus.publish(ToolsListChanged())
                    for session in legacy_sessions:
                        await session.send_tool_list_changed()

        async with anyio.create_task_group() as tg:
            tg.start_soon(operate)
            app = server.streamable_http_app(host="127.0.0.1")
            await uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning")).serve()
            tg.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--backends", required=True, help="JSON: backend name -> its MCP URL")
    p.add_argument("--joined", required=True, help="the backends behind the gateway at the start, in order")
    p.add_argument("--control", required=True, help="the file an operator action is read from on SIGUSR1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--lifetime", type=float, default=60.0)
    args = p.parse_args(argv)
    timer = threading.Timer(args.lifetime, lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    anyio.run(serve, args)


if __name__ == "__main__":
    main()
