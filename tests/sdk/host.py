"""SDK clients driven the way the simulated host drives its own (``lesson/sim/clients``): one client per
server; a modern client discovers, opens its listen stream, waits for the acknowledgement and lists; a
legacy client initializes, has its GET stream open and lists; a change notice is followed by a re-list;
a client whose server is gone is replaced by a new one. Nothing is served from a cache: the simulated
host lists on the wire every time.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ToolsListChanged

from .harness import WAIT, Lab

ERA_MODE = {"modern": "auto", "legacy": "legacy"}


class Conn:
    """One SDK client and what the host keeps beside it."""

    def __init__(self, client: Client, stack: AsyncExitStack) -> None:
        self.client, self.stack = client, stack
        self.changes: anyio.abc.ObjectReceiveStream[str] | None = None
        self.tools: list[str] = []


class Host:
    def __init__(self, lab: Lab, era: str, tg: anyio.abc.TaskGroup, listen: bool = True) -> None:
        self.lab, self.era, self.tg, self.listen = lab, era, tg, listen
        self.conns: dict[str, Conn] = {}
        self.elicitation_answer: str | None = None

    # --- connecting ------------------------------------------------------------------------------

    def transport(self, name: str, stdio: bool):
        if stdio:
            command, args = self.lab.stdio_command(name)
            return StdioServerParameters(command=command, args=args, cwd=str(self.lab.log_path.parent))
        # The host ends a session by letting it go, as the simulated host does: no DELETE on close.
        return streamable_http_client(self.lab.url(name), terminate_on_close=False)

    async def connect(self, name: str, stdio: bool = False) -> Conn:
        """Everything a client does to start talking to a server it has just been told about."""
        stack = AsyncExitStack()
        send, receive = anyio.create_memory_object_stream[str](16)

        async def on_message(message: Any) -> None:
            # Legacy: a change notice arrives on the session's GET stream (or stdout) as a plain notification.
            if isinstance(message, types.ServerNotification) and isinstance(message, types.ToolListChangedNotification):
                await send.send("changed")

        client = Client(
            self.transport(name, stdio),
            mode=ERA_MODE[self.era],
            cache=None,
            message_handler=on_message,
            elicitation_callback=self.on_elicit if self.era == "legacy" else None,
            read_timeout_seconds=WAIT,
        )
        mark = len(self.lab.records())
        await stack.enter_async_context(client)
        conn = self.conns[name] = Conn(client, stack)
        conn.changes = receive
        if self.era == "legacy":
            if not stdio and self.listen:
                # The SDK opens the session's GET stream by itself, beside the next request: wait until it is open.
                await anyio.to_thread.run_sync(
                    lambda: self.lab.wait_logged(
                        lambda r: (
                            r.get("kind") == "response"
                            and r["server"] == name
                            and r.get("sse")
                            and r["status"] == 200
                            and any(
                                q.get("exchange") == r["exchange"] and q["method"] == "GET"
                                for q in self.lab.records()[mark:]
                                if q.get("kind") == "request"
                            )
                        ),
                        f"{name}'s GET stream",
                        after=mark,
                    )
                )
        elif self.listen:
            await self.open_listen(name, send)
        await self.relist(name)
        return conn

    async def open_listen(self, name: str, send: anyio.abc.ObjectSendStream[str]) -> None:
        conn = self.conns[name]
        sub = await conn.stack.enter_async_context(conn.client.listen(tools_list_changed=True))

        async def pump() -> None:
            with contextlib.suppress(Exception):
                async for event in sub:
                    if isinstance(event, ToolsListChanged):
                        await send.send("changed")

        self.tg.start_soon(pump)

    async def on_elicit(self, ctx: Any, params: Any) -> types.ElicitResult:
        raise NotImplementedError

    # --- what the host does -------------------------------------------------------------------------

    async def relist(self, name: str) -> list[str]:
        conn = self.conns[name]
        conn.tools = [t.name for t in (await conn.client.list_tools()).tools]
        return conn.tools

    async def changed(self, name: str) -> list[str]:
        """Wait for the server's change notice, then re-list."""
        conn = self.conns[name]
        assert conn.changes is not None
        with anyio.fail_after(WAIT):
            await conn.changes.receive()
        return await self.relist(name)

    async def call(self, name: str, tool: str, arguments: dict[str, str]) -> types.CallToolResult | None:
        """A tool call; None when the server could not answer (the host then builds the model's error)."""
        try:
            return await self.conns[name].client.call_tool(tool, arguments)
        except Exception:
            self.lab.mark(kind="local_error", server=name, transport="http")
            return None

    async def drop(self, name: str) -> None:
        conn = self.conns.pop(name, None)
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.stack.aclose()

    async def close(self) -> None:
        # Each client holds task groups: they end in the reverse order they began.
        for name in reversed(list(self.conns)):
            await self.drop(name)
