"""One server of the outage playground as a real MCP server, built on the official SDK's public low-level
server API (``mcp.server.lowlevel.Server``), served over Streamable HTTP on 127.0.0.1.

    python -m lesson.live.server --spec '{"title": "docs", "tools": [...], "upcoming": [...]}'

Once it listens, it writes its port on standard output, one line: the port it was given with ``--port``, or
one the system picked (the default). A process that starts a server and reads its port knows it is that
server's, not another program's that took a port between a check and a bind.

The spec is the simulation's own definition of that server, so the real tools carry the names the simulated
ones do. One endpoint serves both eras, as the SDK does: the client's first message picks 2025-11-25
(``initialize``) or 2026-07-28 (``server/discover``).

A deploy is SIGUSR1, from outside any request: the server's next upcoming tool joins its list and the change
is announced (to ``subscriptions/listen`` streams through the SDK's subscription bus, and to legacy sessions
with ``notifications/tools/list_changed``). A call whose ``_meta`` carries ``HOLD`` runs until the process
ends: the playground's "a call still running" when its server dies. The process ends itself after
``--lifetime`` seconds whatever happens to the lesson server that started it.

The differential suite's servers (``tests/sdk/servers``) are built from the same pieces: ``build`` with
their own answer to a call, ``ListChangedServer`` and ``Notices``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from lesson.sim.wire import input_schema

from . import end_after

HOLD = "mcp-churn-lab/hold"  # a _meta key: the call runs until the process ends

ToolSpec = SimpleNamespace  # a tool as the simulation defines it (lesson.sim.model.ToolDef's fields)
Answer = Callable[[ServerRequestContext, types.CallToolRequestParams, ToolSpec], Awaitable[Any]]


def wire_tool(tool: ToolSpec) -> types.Tool:
    schema = input_schema(tool.arg, tool.handle)
    if tool.read_only:
        hints = types.ToolAnnotations(read_only_hint=True)
    else:
        hints = types.ToolAnnotations(
            read_only_hint=False, destructive_hint=tool.destructive, idempotent_hint=tool.idempotent
        )
    return types.Tool(name=tool.name, description=tool.description, input_schema=schema, annotations=hints)


class ListChangedServer(Server):
    """Declares ``tools.listChanged`` on the legacy handshake, since it sends the notice: the SDK's default
    initialization options leave it false, and its HTTP transport uses them."""

    def create_initialization_options(self, notification_options=None, *args: Any, **kwargs: Any):
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), *args, **kwargs
        )


class Notices:
    """Who hears that the tool list changed: listen streams through the SDK's subscription bus, and each
    legacy session once initialized (a legacy notice goes out outside any request, so its session is kept)."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self.legacy_sessions: list[Any] = []

    async def remember(self, ctx: Any, call_next: Any) -> Any:
        """Server middleware: keeps each legacy session once it is initialized."""
        if ctx.method == "notifications/initialized" and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
            self.legacy_sessions.append(ctx.session)
        return await call_next(ctx)

    async def announce(self) -> None:
        await self.bus.publish(ToolsListChanged())
        for session in self.legacy_sessions:
            try:
                await session.send_tool_list_changed()
            except Exception:  # a session whose client went away
                continue


async def held_or_done(ctx: ServerRequestContext, params: types.CallToolRequestParams, tool: ToolSpec) -> Any:
    """The live servers' answer to a call: held until the process ends when ``_meta`` says ``HOLD``."""
    if (params.meta or {}).get(HOLD):
        await anyio.sleep_forever()
    value = (params.arguments or {}).get(tool.arg, "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{tool.name} done ({value})")])


def everyone(ctx: ServerRequestContext, tool: ToolSpec) -> bool:
    return True


def build(
    spec: dict[str, Any],
    answer: Answer = held_or_done,
    listen: bool = True,
    shown: Callable[[ServerRequestContext, ToolSpec], bool] = everyone,
) -> tuple[Server, Any, Any]:
    """The server ``spec`` defines, its deploy, and its bare announcement (a notice with nothing changed);
    ``answer``: what a call to one of its tools returns; ``listen``: whether it serves ``subscriptions/listen``
    and declares ``listChanged``; ``shown``: whether the request's client sees a tool (who signed in)."""
    tools = [ToolSpec(**t) for t in spec["tools"]]
    upcoming = [ToolSpec(**t) for t in spec["upcoming"]]
    notices = Notices()

    async def list_tools(ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[wire_tool(t) for t in tools if shown(ctx, t)])

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> Any:
        tool = next((t for t in tools if t.name == params.name and shown(ctx, t)), None)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        return await answer(ctx, params, tool)

    server = (ListChangedServer if listen else Server)(
        spec["title"],
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(notices.bus) if listen else None,
    )
    server.middleware.append(notices.remember)

    async def deploy() -> None:
        if not upcoming:
            return
        tools.append(upcoming.pop(0))
        await notices.announce()

    return server, deploy, notices.announce


async def each_signal(action: Callable[[], Awaitable[None]], signum: int = signal.SIGUSR1) -> None:
    """``action`` on every ``signum``: an operator's action, from outside any request."""
    with anyio.open_signal_receiver(signum) as signals:
        async for _ in signals:
            await action()


async def serve_http(server: Server, port: int, **app_options: Any) -> None:
    """Serve on 127.0.0.1:``port`` (0: a port the system picks); once it listens, say which on standard output."""
    app = server.streamable_http_app(host="127.0.0.1", **app_options)
    sock = socket.create_server(("127.0.0.1", port))
    # Connections made from now on wait in the socket's queue until uvicorn accepts them: the port is ready.
    print(sock.getsockname()[1], flush=True)
    await uvicorn.Server(uvicorn.Config(app, log_level="warning")).serve(sockets=[sock])


async def serve(args: argparse.Namespace) -> None:
    server, deploy, _ = build(json.loads(args.spec))
    async with anyio.create_task_group() as tg:
        tg.start_soon(each_signal, deploy)
        await serve_http(server, args.port)
        tg.cancel_scope.cancel()


def run(serve: Callable[[argparse.Namespace], Awaitable[None]], args: argparse.Namespace) -> None:
    """``serve(args)`` until it ends, a Ctrl-C, or ``args.lifetime`` seconds, whichever comes first."""
    end_after(args.lifetime)
    try:
        anyio.run(serve, args)
    except KeyboardInterrupt:
        sys.exit(0)


def orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(4)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spec", required=True, help="JSON: title, tools, upcoming")
    p.add_argument("--port", type=int, default=0, help="0: one the system picks")
    p.add_argument("--lifetime", type=float, default=600.0)
    p.add_argument("--parent", type=int, default=0, help="the lesson server's pid: end when it is gone")
    args = p.parse_args(argv)
    # Never outlive the lesson server: besides the lifetime, a watcher ends the process as soon as the lesson
    # server is gone (killed, so it could not clean up).
    if args.parent:
        threading.Thread(target=orphaned, args=(args.parent,), daemon=True).start()
    run(serve, args)


if __name__ == "__main__":
    main()
