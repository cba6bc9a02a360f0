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
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError

from .harness import WAIT, Lab

ERA_MODE = {"modern": "auto", "legacy": "legacy"}


class Bearer(httpx2.Auth):
    """The user's current token on every request; the host swaps it when it refreshes or signs in again."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx2.Request):
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


class SignedOut(Exception):
    """401, and the token cannot be refreshed: the user has to sign in again."""


class Owner:
    """A task that enters a client's context managers and, at the end, leaves them: each client (and its
    listen streams) is entered and left by its own task, so clients can end in any order."""

    def __init__(self) -> None:
        self.inbox, self.outbox = None, None
        self.finished = anyio.Event()
        self.error: BaseException | None = None

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
        except Exception as err:  # the client's context failed as it ended (a connection that broke)
            self.error = err
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
        self.changes: anyio.abc.ObjectReceiveStream[str] | None = None
        self.send: anyio.abc.ObjectSendStream[str] | None = None
        self.discovered: types.DiscoverResult | None = None  # what a modern client learnt from server/discover
        self.on_message: Any = None
        self.tools: list[str] = []


class Host:
    def __init__(
        self, lab: Lab, era: str, tg: anyio.abc.TaskGroup, listen: bool = True, token: str = "", name: str = "host"
    ) -> None:
        self.name = name  # "host", or another host listening to the same gateway ("host-2"...)
        self.bearer = Bearer(token) if token else None
        self.signed_out: set[str] = set()  # servers whose token is gone: the user must sign in again
        self.lab, self.era, self.tg, self.listen = lab, era, tg, listen
        self.conns: dict[str, Conn] = {}
        self.stdio: set[str] = set()  # servers the host launches itself
        self.down: set[str] = set()  # servers the host has seen go away: no request goes to them
        self.lost: dict[str, anyio.Event] = {}  # set when a server's listen stream ends
        self.failed: dict[str, anyio.Event] = {}  # set when a call to a server ends in a local error
        self.pending: dict[str, dict[str, Any]] = {}  # a call waiting for the user's answer, by server
        self.asked: dict[str, anyio.Event] = {}  # legacy: set when the server's question arrived
        self.answered: dict[str, anyio.Event] = {}  # legacy: set when the user answered
        self.answers: dict[str, str] = {}
        self.results: dict[str, Any] = {}

    # --- connecting ------------------------------------------------------------------------------

    def transport(self, name: str, stdio: bool, end_session: bool = False, **extra: str):
        if stdio:
            command, args = self.lab.stdio_command(name, **extra)
            return StdioServerParameters(command=command, args=args, cwd=str(self.lab.log_path.parent)), None
        # A session the host replaces (its server died) is let go; one it ends (an admin removed the server)
        # is ended with DELETE, as the simulated host does.
        http = None
        if self.bearer is not None:
            http = httpx2.AsyncClient(auth=self.bearer, timeout=httpx2.Timeout(30.0, read=300.0))
        url = self.lab.url(name, self.name)
        return streamable_http_client(url, http_client=http, terminate_on_close=end_session), http

    async def connect(self, name: str, stdio: bool = False, end_session: bool = False, **extra: str) -> Conn:
        """Everything a client does to start talking to a server it has just been told about."""
        send, receive = anyio.create_memory_object_stream[str](16)
        if stdio:
            self.stdio.add(name)
        self.down.discard(name)

        async def on_message(message: Any) -> None:
            # Legacy: a change notice arrives on the session's GET stream (or stdout) as a plain notification.
            # (A modern notice comes through the listen subscription instead: counting both would count it twice.)
            legacy = self.era == "legacy"
            if legacy and isinstance(message, types.ToolListChangedNotification):
                await send.send("changed")

        # A modern host that already discovered this server adopts what it learnt instead of asking again.
        known = self.conns[name].discovered if name in self.conns and not stdio else None
        if name in self.conns:
            await self.drop(name)
        mark = len(self.lab.records())
        conn = await self.open_client(name, stdio, end_session, known, on_message, **extra)
        conn.changes, conn.send = receive, send
        if self.era == "legacy" and not stdio:
            # The SDK opens the session's GET stream by itself, beside the next request: wait until it is open.
            await anyio.to_thread.run_sync(lambda: self.lab.wait_logged(self.get_opened(name, mark), "GET", mark))
        elif self.era == "modern" and self.listen:
            await self.open_listen(name)
        await self.relist(name)
        return conn

    def get_opened(self, name: str, mark: int) -> Any:
        def match(r: dict[str, Any]) -> bool:
            if r.get("kind") != "response" or r["server"] != name or not r.get("sse") or r["status"] != 200:
                return False
            return any(
                q.get("exchange") == r["exchange"] and q["method"] == "GET" and q.get("client", "host") == self.name
                for q in self.lab.records()[mark:]
                if q.get("kind") == "request"
            )

        return match

    async def open_client(
        self, name: str, stdio: bool, end_session: bool, known: Any, on_message: Any, **extra: str
    ) -> Conn:
        """A new SDK client for ``name``, entered by a task of its own; ``known``: a discover result to adopt."""
        transport, http = self.transport(name, stdio, end_session, **extra)
        client = Client(
            transport,
            mode="2026-07-28" if known else ERA_MODE[self.era],
            prior_discover=known,
            cache=None,
            message_handler=on_message,
            elicitation_callback=self.on_elicit if self.era == "legacy" else None,
            read_timeout_seconds=WAIT,
        )
        owner = Owner()
        await self.tg.start(owner.run)
        conn = self.conns[name] = Conn(client, owner)
        conn.on_message = on_message
        if http is not None:
            await owner.enter(http)  # the host's HTTP client carries the user's token; it ends with the session
        await owner.enter(client)
        conn.discovered = client.session.discover_result
        return conn

    async def revive(self, name: str) -> None:
        """The SDK's modern HTTP client can end with a stream that broke (its server died): before its next
        request the host replaces it with one that adopts what the old one discovered. Nothing crosses."""
        conn = self.conns.get(name)
        if conn is None or not conn.owner.finished.is_set() or name in self.stdio or self.era != "modern":
            return
        changes, send = conn.changes, conn.send
        await self.drop(name)
        new = await self.open_client(name, False, False, conn.discovered, conn.on_message)
        new.changes, new.send = changes, send

    async def open_listen(self, name: str) -> None:
        """subscriptions/listen; returns once the server acknowledged it."""
        await self.revive(name)
        conn = self.conns[name]
        sub = await self.authorized(name, lambda: conn.owner.enter(conn.client.listen(tools_list_changed=True)))
        lost = self.lost[name] = anyio.Event()
        send = conn.send
        assert send is not None

        async def pump() -> None:
            try:
                async for event in sub:
                    if isinstance(event, ToolsListChanged):
                        await send.send("changed")
            except Exception:  # SubscriptionLost: the stream broke with no result
                pass
            finally:
                lost.set()

        self.tg.start_soon(pump)

    async def wait_lost(self, name: str) -> None:
        """The host sees the stream it holds open break (its server died) and marks the server down. The SDK's
        legacy client keeps its GET stream to itself: the host is told, as the simulated host sees the drop.
        Either way nothing crosses the wire (a refused connection carries no message)."""
        if name in self.lost:
            with anyio.fail_after(WAIT):
                await self.lost[name].wait()
        self.down.add(name)

    async def back(self, name: str) -> None:
        """The server is reachable again: re-listen (modern), then re-list; a legacy client finds out
        about its session on the way."""
        self.down.discard(name)
        with contextlib.suppress(SignedOut):  # a token that cannot be refreshed: nothing more is sent
            if self.era == "modern" and self.listen and name not in self.stdio:
                await self.open_listen(name)
            await self.relist(name)

    # --- a server asks the user (MRTR in the modern era, elicitation/create in the legacy era) -------------

    async def ask(self, name: str, tool: str, arguments: dict[str, str]) -> None:
        """The model calls a tool that needs the user's answer first."""
        if self.era == "legacy":
            # The question comes on the call's own stream; the call stays open until the user answers.
            self.answered[name] = anyio.Event()
            self.asked[name] = anyio.Event()
            self.pending[name] = {"tool": tool, "arguments": arguments}
            self.tg.start_soon(self.call_and_keep, name, tool, arguments)
            with anyio.fail_after(WAIT):
                await self.asked[name].wait()
            return
        await self.revive(name)
        result = await self.conns[name].client.session.call_tool(tool, arguments, allow_input_required=True)
        assert isinstance(result, types.InputRequiredResult), result
        self.pending[name] = {"tool": tool, "arguments": arguments, "round": result}

    async def call_and_keep(self, name: str, tool: str, arguments: dict[str, str]) -> None:
        """A call whose stream may break while the user thinks: the host keeps the question on screen, and
        builds no error for the model (the sim's host does not either)."""
        self.results.pop(name, None)
        try:
            self.results[name] = await self.conns[name].client.call_tool(tool, arguments)
        except Exception as err:
            self.results[name] = err

    async def legacy_answered(self, name: str, pending: dict[str, Any], mark: int) -> bool:
        """The answer goes out on the session it was asked on: the call finishes, or the session is gone
        (404) and the host starts a new one and calls the tool again, which asks again."""
        with anyio.fail_after(WAIT):
            while True:
                if isinstance(self.results.get(name), types.CallToolResult):
                    del self.pending[name]
                    return True
                if any(r.get("kind") == "response" and r["status"] == 404 for r in self.lab.records()[mark:]):
                    break
                await anyio.sleep(0.02)
        await self.connect(name)
        await self.ask(name, pending["tool"], pending["arguments"])
        return False

    async def on_elicit(self, ctx: Any, params: Any) -> types.ElicitResult:
        """Legacy: the server's elicitation/create; the host holds it until the user answers."""
        name = next(n for n, e in self.asked.items() if not e.is_set())
        self.asked[name].set()
        await self.answered[name].wait()
        return types.ElicitResult(action="accept", content={"state": self.answers[name]})

    async def answer(self, name: str, answer: str) -> bool:
        """The user answers; True when the call finished, False when the flow starts again."""
        pending = self.pending[name]
        if self.era == "legacy":
            self.answers[name] = answer
            mark = len(self.lab.records())
            self.answered[name].set()
            return await self.legacy_answered(name, pending, mark)
        round_ = pending["round"]
        await self.revive(name)
        responses = {
            key: types.ElicitResult(action="accept", content={"state": answer}) for key in round_.input_requests
        }
        try:
            result = await self.conns[name].client.session.call_tool(
                pending["tool"],
                pending["arguments"],
                input_responses=responses,
                request_state=round_.request_state,
                allow_input_required=True,
            )
        except MCPError as err:
            assert err.code == types.INVALID_PARAMS, err  # the server could not verify the requestState
            await self.ask(name, pending["tool"], pending["arguments"])  # the flow starts again
            return False
        assert isinstance(result, types.CallToolResult), result
        del self.pending[name]
        return True

    # --- what the host does -------------------------------------------------------------------------

    async def authorized(self, name: str, request: Any) -> Any:
        """A request; on 401 an expired token is refreshed and the request sent again, as the simulated
        host does; a token that cannot be refreshed means the user must sign in again."""
        for _ in range(2):
            mark = len(self.lab.records())
            try:
                return await request()
            except Exception:
                if not any(r.get("status") == 401 for r in self.lab.records()[mark:]) or self.bearer is None:
                    raise
                new = self.lab.refresh(self.bearer.token)
                if new is None:
                    self.signed_out.add(name)
                    raise SignedOut(name) from None
                self.bearer.token = new
        raise AssertionError("401 twice in a row")

    async def relist(self, name: str) -> list[str]:
        await self.revive(name)
        conn = self.conns[name]
        try:
            result = await self.authorized(name, conn.client.list_tools)
        except MCPError as err:
            if not self.session_gone(name, err):
                raise
            await self.connect(name)  # a new session: initialize, the GET stream, and the list
            return self.conns[name].tools
        conn.tools = [t.name for t in result.tools]
        return conn.tools

    def session_gone(self, name: str, err: MCPError) -> bool:
        """Legacy HTTP: the server answered 404 to the session id (the SDK's -32600)."""
        return self.era == "legacy" and name not in self.stdio and err.code == types.INVALID_REQUEST

    async def notified(self, name: str) -> None:
        """Wait for the server's change notice (and do nothing about it)."""
        conn = self.conns[name]
        assert conn.changes is not None
        with anyio.fail_after(WAIT):
            await conn.changes.receive()

    async def changed(self, name: str) -> list[str]:
        """Wait for the server's change notice, then re-list."""
        conn = self.conns[name]
        assert conn.changes is not None
        with anyio.fail_after(WAIT):
            await conn.changes.receive()
        return await self.relist(name)

    async def call(self, name: str, tool: str, arguments: dict[str, str]) -> types.CallToolResult | None:
        """A tool call; None when the server could not answer (the host then builds the model's error).
        To a server the host has seen go away, nothing is sent."""
        transport = "stdio" if name in self.stdio else "http"
        if name in self.down:
            self.local_error(name, transport)
            return None
        if name in self.signed_out:
            self.local_error(name, transport)
            return None
        await self.revive(name)
        for _ in range(2):
            try:
                return await self.authorized(name, lambda: self.conns[name].client.call_tool(tool, arguments))
            except MCPError as err:
                if not self.session_gone(name, err):
                    self.lab.mark(kind="note", server=name, error=repr(err))
                    break
                await self.connect(name)  # a new session, then the call again
            except Exception as err:
                self.lab.mark(kind="note", server=name, error=repr(err))
                break
        self.local_error(name, transport)
        return None

    def local_error(self, name: str, transport: str) -> None:
        """The server could not answer: the host builds the model's error itself (nothing crosses the wire)."""
        self.lab.mark(kind="local_error", server=name, transport=transport)
        self.failed.setdefault(name, anyio.Event()).set()

    async def wait_local_error(self, name: str) -> None:
        with anyio.fail_after(WAIT):
            await self.failed.setdefault(name, anyio.Event()).wait()

    async def drop(self, name: str) -> None:
        conn = self.conns.pop(name, None)
        if conn is not None:
            await conn.owner.close()

    async def close(self) -> None:
        for name in list(self.conns):
            await self.drop(name)
