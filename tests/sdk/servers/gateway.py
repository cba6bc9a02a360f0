"""A gateway built on the official SDK: one MCP endpoint in front of backend servers it reaches with the
SDK's own client. Its tools are those of the backends that pass its health checks, in the order the
backends were joined; a call goes to the backend that offers the tool. Any change to that set is announced
to every client listening to the gateway.

    python gateway.py --backends '{"A": "http://127.0.0.1:5001/mcp", ...}' --joined A,B --port 8123

Operator actions come from outside any request: the harness writes one line into the file named by
``--control`` ("fails B", "recovers B", "joins C", "leaves A") and sends SIGUSR1. The process ends itself
after ``--lifetime`` seconds. Its notices go out as the live playground's servers send theirs
(``lesson/live/server.py``).
"""

from __future__ import annotations

import argparse
import json
from contextlib import AsyncExitStack
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError

from lesson.live import end_after
from lesson.live.server import ListChangedServer, Notices, each_signal, serve_http


async def serve(args: argparse.Namespace) -> None:
    urls: dict[str, str] = json.loads(args.backends)
    joined = [n for n in args.joined.split(",") if n]
    unhealthy: set[str] = set()
    clients: dict[str, Client] = {}
    tools: dict[str, list[types.Tool]] = {}
    notices = Notices()

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

        server = ListChangedServer(
            "gateway",
            version="1.0.0",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_subscriptions_listen=ListenHandler(notices.bus),
        )
        server.middleware.append(notices.remember)

        async def operate() -> None:
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
            await notices.announce()

        async with anyio.create_task_group() as tg:
            tg.start_soon(each_signal, operate)
            await serve_http(server, args.port)
            tg.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--backends", required=True, help="JSON: backend name -> its MCP URL")
    p.add_argument("--joined", required=True, help="the backends behind the gateway at the start, in order")
    p.add_argument("--control", required=True, help="the file an operator action is read from on SIGUSR1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--lifetime", type=float, default=60.0)
    args = p.parse_args(argv)
    end_after(args.lifetime)
    anyio.run(serve, args)


if __name__ == "__main__":
    main()
