"""SDK clients driven the way the simulated host drives its own (``lesson/sim/clients``): one client per
server; a modern client discovers, opens its listen stream (to a server that declared ``tools.listChanged``),
waits for the acknowledgement and lists; a legacy client initializes, has its GET stream open and lists; a
change notice is followed by a re-list; a legacy 404 starts a new session; a modern client whose streams
broke with its server is replaced by one that adopts what the old one discovered. Nothing is served from a
cache: the host lists on the wire every time.

The differential suite's host (``tests/sdk/host.py``) is this one with what its flows add (stdio, bearer
tokens, questions to the user, other hosts on one gateway), through the hooks marked below.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError

from lesson.sim.model import VERSION

from .record import WAIT, Recorder
from .server import HOLD

ERA_MODE = {"modern": "auto", "legacy": "legacy"}


class Owner:
    """A task that enters a client's context managers and, at the end, leaves them: each client (and its
    listen streams) is entered and left by its own task, so clients can end in any order."""

    def __init__(self) -> None:
        self.outbox: Any = None
        self.finished = anyio.Event()

    async def run(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        send, receive = anyio.create_memory_object_stream[tuple[Any, dict[str, Any]]](4)
        self.outbox = send
        try:
            async with AsyncExitStack() as stack:
                task_status.started()
                async for cm, reply in receive:
                    try:
                        reply["value"] = await stack.enter_async_context(cm)
                    except Exception as err:
                        reply["error"] = err
                    reply["done"].set()
        except Exception:  # the client's context failed as it ended (a connection that broke)
            pass
        finally:
            self.finished.set()

    async def enter(self, cm: Any) -> Any:
        if self.finished.is_set():
            raise anyio.ClosedResourceError("this client's context has ended")
        reply: dict[str, Any] = {"done": anyio.Event()}
        await self.outbox.send((cm, reply))
        with anyio.fail_after(WAIT):
            await reply["done"].wait()
        if "error" in reply:
            raise reply["error"]
        return reply["value"]

    async def close(self) -> None:
        await self.outbox.aclose()
        with anyio.fail_after(WAIT):
            await self.finished.wait()


class Conn:
    """One SDK client and what the host keeps beside it."""

    def __init__(self, client: Client, owner: Owner) -> None:
        self.client, self.owner = client, owner
        self.changes: Any = None
        self.send: Any = None
        self.discovered: types.DiscoverResult | None = None
        self.on_message: Any = None
        self.tools: list[str] = []


class SdkHost:
    """``rec``: where what the host sees is recorded and what crossed is read (a ``Recorder``, or anything
    with its ``records``, ``add`` and ``wait``); ``urls``: each server's address."""

    name = "host"  # whose requests these are, when several hosts' traffic is recorded together

    def __init__(self, rec: Recorder, era: str, tg: anyio.abc.TaskGroup, urls: dict[str, str]) -> None:
        self.rec, self.era, self.tg, self.urls = rec, era, tg, urls
        self.conns: dict[str, Conn] = {}
        self.down: set[str] = set()  # servers the host has seen go away: no request goes to them
        self.lost: dict[str, anyio.Event] = {}  # set when a server's listen stream ends
        self.failed: dict[str, anyio.Event] = {}  # set when a call to a server ends in a local error

    # --- hooks: what a host with more to it changes ---------------------------------------------------

    def transport(self, name: str, **how: Any) -> tuple[Any, Any]:
        """The SDK transport to ``name``, and an HTTP client to enter before it (or None)."""
        # A session the host replaces (its server died) is let go, not ended with DELETE.
        return streamable_http_client(self.urls[name], terminate_on_close=False), None

    def elicitation(self) -> Any:
        """The SDK client's elicitation callback: the live servers ask the user nothing."""
        return None

    def legacy_http(self, name: str) -> bool:
        """Legacy over HTTP: the SDK client opens the session's GET stream by itself, and a 404 says the
        session is gone."""
        return self.era == "legacy"

    def listens(self, name: str) -> bool:
        """Whether the host opens a listen stream to ``name`` (subscriptions/listen, modern): to a server that
        declared ``tools.listChanged``, as the simulated host does; it re-lists any other before each turn."""
        conn = self.conns.get(name)
        tools = conn.discovered.capabilities.tools if conn is not None and conn.discovered is not None else None
        return self.era == "modern" and tools is not None and bool(tools.list_changed)

    async def request(self, name: str, send: Any) -> Any:
        """``send()``: one request to ``name``. A host with tokens sends it again with a fresh one on 401."""
        return await send()

    def reachable(self, name: str) -> bool:
        """Whether a call to ``name`` is sent at all."""
        return name not in self.down and name in self.conns

    def via(self, name: str) -> str:
        return "http"

    def note(self, name: str, err: BaseException) -> None:
        """A call that failed with no answer: the live host just builds the model's error."""

    # --- connecting ------------------------------------------------------------------------------

    async def connect(self, name: str, **how: Any) -> Conn:
        """Everything a client does to start talking to a server it has just been told about."""
        send, receive = anyio.create_memory_object_stream[str](16)
        self.down.discard(name)

        async def on_message(message: Any) -> None:
            # Legacy: a change notice arrives on the session's GET stream as a plain notification (a modern
            # notice comes through the listen subscription instead: counting both would count it twice).
            if self.era == "legacy" and isinstance(message, types.ToolListChangedNotification):
                await send.send("changed")

        # A modern host that already discovered this server adopts what it learnt instead of asking again; a
        # stdio server is a new process the host launches, met from scratch.
        known = self.conns[name].discovered if name in self.conns and self.via(name) == "http" else None
        if name in self.conns:
            await self.drop(name)
        mark = len(self.rec.records)
        conn = await self.open_client(name, known, on_message, **how)
        conn.changes, conn.send = receive, send
        if self.legacy_http(name):
            # The SDK opens the session's GET stream by itself, beside the next request: wait until it is open.
            # A server that issued no session id gets none from the SDK's client.
            if self.session_issued(name, mark):
                await self.rec.wait(self.get_opened(name, mark), f"{name}'s GET stream", mark)
        elif self.listens(name):
            await self.open_listen(name)
        await self.relist(name)
        return conn

    def session_issued(self, name: str, mark: int) -> bool:
        return any(
            r.get("kind") == "response" and r["server"] == name and "mcp-session-id" in r["headers"]
            for r in self.rec.records[mark:]
        )

    def get_opened(self, name: str, mark: int) -> Any:
        def match(r: dict[str, Any]) -> bool:
            if r.get("kind") != "response" or r["server"] != name or not r.get("sse") or r["status"] != 200:
                return False
            return any(
                q.get("exchange") == r["exchange"] and q["method"] == "GET" and q.get("client", "host") == self.name
                for q in self.rec.records[mark:]
                if q.get("kind") == "request"
            )

        return match

    async def open_client(self, name: str, known: Any, on_message: Any, **how: Any) -> Conn:
        """A new SDK client for ``name``, entered by a task of its own; ``known``: a discover result to adopt."""
        transport, http = self.transport(name, **how)
        client = Client(
            transport,
            mode=VERSION["modern"] if known else ERA_MODE[self.era],
            prior_discover=known,
            cache=None,
            message_handler=on_message,
            elicitation_callback=self.elicitation(),
            read_timeout_seconds=WAIT,
        )
        owner = Owner()
        await self.tg.start(owner.run)
        conn = self.conns[name] = Conn(client, owner)
        conn.on_message = on_message
        if http is not None:
            await owner.enter(http)  # an HTTP client of the host's own (its token, say) ends with the session
        await owner.enter(client)
        conn.discovered = client.session.discover_result
        return conn

    async def revive(self, name: str) -> None:
        """The SDK's modern HTTP client can end with a stream that broke (its server died): before its next
        request the host replaces it with one that adopts what the old one discovered. Nothing crosses."""
        conn = self.conns.get(name)
        if conn is None or not conn.owner.finished.is_set() or self.era != "modern" or self.via(name) != "http":
            return
        changes, send = conn.changes, conn.send
        await self.drop(name)
        new = await self.open_client(name, conn.discovered, conn.on_message)
        new.changes, new.send = changes, send

    async def open_listen(self, name: str) -> None:
        """subscriptions/listen; returns once the server acknowledged it."""
        await self.revive(name)
        conn = self.conns[name]
        sub = await self.request(name, lambda: conn.owner.enter(conn.client.listen(tools_list_changed=True)))
        lost = self.lost[name] = anyio.Event()
        send = conn.send

        async def pump() -> None:
            try:
                async for event in sub:
                    if isinstance(event, ToolsListChanged) and send is not None:
                        await send.send("changed")
            except Exception:  # SubscriptionLost: the stream broke with no result
                pass
            finally:
                lost.set()

        self.tg.start_soon(pump)

    async def wait_lost(self, name: str) -> bool:
        """The host sees the stream it holds open break (its server died) and marks the server down. The
        SDK's legacy client keeps its GET stream to itself: the host is told, as the simulated host sees the
        drop. Either way nothing crosses the wire. True when a listen stream was seen to break."""
        seen = False
        if name in self.lost:
            with anyio.fail_after(WAIT):
                await self.lost[name].wait()
            seen = True
        self.down.add(name)
        return seen

    async def back(self, name: str) -> None:
        """The server is reachable again: re-listen (modern), then re-list; a legacy client finds out about its
        session on the way."""
        self.down.discard(name)
        if self.listens(name):
            await self.open_listen(name)
        await self.relist(name)

    # --- what the host does -------------------------------------------------------------------------

    async def relist(self, name: str) -> list[str]:
        await self.revive(name)
        conn = self.conns[name]
        try:
            result = await self.request(name, conn.client.list_tools)
        except MCPError as err:
            if not self.session_gone(name, err):
                raise
            await self.connect(name)  # a new session: initialize, the GET stream, and the list
            return self.conns[name].tools
        conn.tools = [t.name for t in result.tools]
        return conn.tools

    def session_gone(self, name: str, err: MCPError) -> bool:
        """Legacy HTTP: the server answered 404 to the session id (the SDK's -32600)."""
        return self.legacy_http(name) and err.code == types.INVALID_REQUEST

    async def notified(self, name: str) -> None:
        """Wait for the server's change notice (and do nothing about it)."""
        with anyio.fail_after(WAIT):
            await self.conns[name].changes.receive()

    async def changed(self, name: str) -> list[str]:
        """Wait for the server's change notice, then re-list."""
        await self.notified(name)
        return await self.relist(name)

    async def call(self, name: str, tool: str, arguments: dict[str, str], hold: bool = False) -> str | None:
        """A tool call; its result's text, or None when the server could not answer (the host then builds the
        model's error itself). To a server the host has seen go away, nothing is sent. ``hold``: the server
        keeps the call running until its process ends."""
        if not self.reachable(name):
            self.local_error(name)
            return None
        await self.revive(name)
        meta = {HOLD: True} if hold else None
        for _ in range(2):
            try:
                result = await self.request(name, lambda: self.conns[name].client.call_tool(tool, arguments, meta=meta))
                texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
                return " ".join(texts) or "(no text)"
            except MCPError as err:
                if not self.session_gone(name, err):
                    self.note(name, err)
                    break
                await self.connect(name)  # a new session, then the call again
            except Exception as err:
                self.note(name, err)
                break
        self.local_error(name)
        return None

    def local_error(self, name: str) -> None:
        """The server could not answer: the host builds the model's error itself (nothing crosses the wire)."""
        self.rec.add(kind="local_error", server=name, transport=self.via(name))
        self.failed.setdefault(name, anyio.Event()).set()

    async def wait_local_error(self, name: str) -> None:
        with anyio.fail_after(WAIT):
            await self.failed.setdefault(name, anyio.Event()).wait()

    async def drop(self, name: str) -> None:
        conn = self.conns.pop(name, None)
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.owner.close()

    async def close(self) -> None:
        for name in list(self.conns):
            await self.drop(name)
