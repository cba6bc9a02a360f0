"""The live playground's SDK host (``lesson/live/host.py``), driving SDK clients the way the simulated host
drives its own, with what the differential flows add: servers it launches over stdio, a bearer token it
refreshes on 401, questions a server asks the user (MRTR in the modern era, elicitation/create in the legacy
era), other hosts listening to one gateway, and everything recorded into the lab's shared log.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from lesson.live import host as live

from .harness import WAIT, Lab


class Bearer(httpx2.Auth):
    """The user's current token on every request; the host swaps it when it refreshes or signs in again."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx2.Request):
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


class SignedOut(Exception):
    """401, and the token cannot be refreshed: the user has to sign in again."""


class LabLog:
    """The lab's shared log, read and written as the live host reads and writes its recorder."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    @property
    def records(self) -> list[dict[str, Any]]:
        return self.lab.records()

    def add(self, **record: Any) -> None:
        self.lab.mark(**record)

    async def wait(self, match: Any, what: str, after: int = 0) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(lambda: self.lab.wait_logged(match, what, after))


class LabHost(live.SdkHost):
    def __init__(
        self, lab: Lab, era: str, tg: anyio.abc.TaskGroup, listen: bool = True, token: str = "", name: str = "host"
    ) -> None:
        super().__init__(LabLog(lab), era, tg, urls={})
        self.name = name  # "host", or another host listening to the same gateway ("host-2"...)
        self.bearer = Bearer(token) if token else None
        self.signed_out: set[str] = set()  # servers whose token is gone: the user must sign in again
        self.lab, self.listen = lab, listen
        self.stdio: set[str] = set()  # servers the host launches itself
        self.pending: dict[str, dict[str, Any]] = {}  # a call waiting for the user's answer, by server
        self.asked: dict[str, anyio.Event] = {}  # legacy: set when the server's question arrived
        self.answered: dict[str, anyio.Event] = {}  # legacy: set when the user answered
        self.answers: dict[str, str] = {}
        self.results: dict[str, Any] = {}

    # --- the live host's hooks ----------------------------------------------------------------------

    def transport(self, name: str, stdio: bool = False, end_session: bool = False, **extra: str):
        if stdio:
            command, args = self.lab.stdio_command(name, **extra)
            return StdioServerParameters(command=command, args=args, cwd=str(self.lab.log_path.parent)), None
        # A session the host replaces (its server died) is let go; one it ends (an admin removed the server)
        # is ended with DELETE, as the simulated host does.
        http = None
        if self.bearer is not None and self.lab.wants_token(name):
            http = httpx2.AsyncClient(auth=self.bearer, timeout=httpx2.Timeout(30.0, read=300.0))
        url = self.lab.url(name, self.name)
        return streamable_http_client(url, http_client=http, terminate_on_close=end_session), http

    def elicitation(self) -> Any:
        return self.on_elicit if self.era == "legacy" else None

    def legacy_http(self, name: str) -> bool:
        return name not in self.stdio and super().legacy_http(name)

    def listens(self, name: str) -> bool:
        return self.listen and super().listens(name)

    def reachable(self, name: str) -> bool:
        return name not in self.signed_out and super().reachable(name)

    def via(self, name: str) -> str:
        return "stdio" if name in self.stdio else "http"

    def note(self, name: str, err: BaseException) -> None:
        """Logged, so that a flow that fails on it says what the SDK raised (the comparison skips notes)."""
        self.lab.mark(kind="note", server=name, error=repr(err))

    async def request(self, name: str, send: Any) -> Any:
        """A request; on 401 an expired token is refreshed and the request sent again, as the simulated
        host does; a token that cannot be refreshed means the user must sign in again."""
        for _ in range(2):
            mark = len(self.lab.records())
            try:
                return await send()
            except Exception:
                if not any(r.get("status") == 401 for r in self.lab.records()[mark:]) or self.bearer is None:
                    raise
                new = self.lab.refresh(self.bearer.token)
                if new is None:
                    self.signed_out.add(name)
                    raise SignedOut(name) from None
                self.bearer.token = new
        raise AssertionError("401 twice in a row")

    # --- connecting ------------------------------------------------------------------------------

    async def connect(self, name: str, stdio: bool = False, end_session: bool = False, **extra: str) -> live.Conn:
        if stdio:
            self.stdio.add(name)
        return await super().connect(name, stdio=stdio, end_session=end_session, **extra)

    async def back(self, name: str) -> None:
        with contextlib.suppress(SignedOut):  # a token that cannot be refreshed: nothing more is sent
            await super().back(name)

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
