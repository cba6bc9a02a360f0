"""The host's rules: ``apply(state, event) -> (state, outcome)``.

Pure and deterministic: the input state is never changed, ids come from counters and hashes,
and every step says in plain words what happened, from the host's point of view, along with the
wire messages in the order they cross.
"""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import Callable
from typing import Any, Literal

from . import wire as w
from .events import (
    AddItem,
    AddServer,
    AskUserInput,
    BackendFailsHealthCheck,
    BackendJoins,
    BackendLeaves,
    BackendRecovers,
    CreateBasket,
    DeployTool,
    Event,
    LandOnReplica,
    ListenDrops,
    Reauthenticate,
    RemoveServer,
    RemoveTool,
    RestartServer,
    ServerBack,
    ServerDies,
    SetBatching,
    StartCall,
    SwitchEra,
    TakeTurn,
    TimerListChanged,
    TokenExpires,
    TokenRefreshed,
    ToolCall,
    UndeclaredListChanged,
    UserAnswers,
)
from .model import (
    ERA_LABEL,
    VERSION,
    Client,
    Host,
    InFlight,
    ListenStream,
    Message,
    PendingInput,
    PromptTool,
    SimServer,
    State,
    Strict,
    ToolDef,
)

Tone = Literal["info", "change", "error", "model", "warn", "rejected"]


class LogLine(Strict):
    text: str
    tone: Tone = "info"


class CallRecord(Strict):
    server: str
    tool: str
    text: str
    is_error: bool = False
    host_made: bool = False  # built by the host: the server sent nothing


class TurnRecord(Strict):
    number: int
    tools_seen: list[PromptTool]
    new_tools: list[PromptTool]
    removed_tools: list[PromptTool]
    calls: list[CallRecord]


class Outcome(Strict):
    lines: list[LogLine]
    wire: list[w.WireMessage]
    turn: TurnRecord | None = None
    rejected: bool = False


class Rejected(Exception):
    """The press makes no sense right now; the message says why."""


def visible_tools(state: State, srv: SimServer, role: str) -> list[ToolDef]:
    """What ``tools/list`` returns: it may vary by authorization, never per connection."""
    if srv.gateway:
        tools: list[ToolDef] = []
        for name in srv.backends:
            backend = state.servers[name]
            if name not in srv.unhealthy:  # what passes the gateway's health checks
                tools += [t.model_copy(update={"origin": name}) for t in visible_tools(state, backend, role)]
        return tools
    return [t for t in srv.tools if not t.admin_only or role == "admin"]


def tool_keys(tools: list[PromptTool]) -> set[tuple[str, str]]:
    """For membership tests: comparing pydantic models one by one is slow."""
    return {(t.name, t.server) for t in tools}


def prompt_defs(state: State) -> list[tuple[str, ToolDef]]:
    """(server, tool) for every tool the host would put in the model's next prompt, in order."""
    out: list[tuple[str, ToolDef]] = []
    for name in state.host.configured:
        client = state.host.clients[name]
        if client.status == "connected":
            out += [(name, t) for t in client.tools]
    return out


def _prompt_keys(state: State) -> list[tuple[str, str]]:
    """``prompt_tools`` as (name, server) pairs: cheap to build and compare."""
    return [(t.name, name) for name, t in prompt_defs(state)]


def prompt_tools(state: State) -> list[PromptTool]:
    """The tools the host would put in the model's next prompt, rebuilt from every client."""
    return [PromptTool(name=t.name, server=name) for name, t in prompt_defs(state)]


# The rules change these models in place; every other model (ToolDef, Message, ListenStream, ...) is
# only ever replaced, so a working copy can share those with the state it came from.
_MUTABLE = (State, Host, Client, SimServer)


@functools.cache
def _nested_fields(cls: type[Strict]) -> tuple[str, ...]:
    """The fields of ``cls`` that hold lists, dicts or models the rules change in place."""
    return tuple(
        name
        for name, f in cls.model_fields.items()
        if typing.get_origin(f.annotation) in (list, dict) or f.annotation in _MUTABLE
    )


def _fork(value: Any) -> Any:
    """A copy of ``value`` deep enough for the rules to change it: much cheaper than a deep copy."""
    kind = type(value)
    if kind is list:
        return [_fork(v) for v in value] if value and type(value[0]) in _FORKED else list(value)
    if kind is dict:
        return {k: _fork(v) for k, v in value.items()}
    if kind in _MUTABLE:
        # BaseModel.__copy__, minus what these models never have (extra fields, private attributes).
        fields = dict(value.__dict__)
        for name in _nested_fields(kind):
            fields[name] = _fork(fields[name])
        new = kind.__new__(kind)
        _setattr(new, "__dict__", fields)
        _setattr(new, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
        _setattr(new, "__pydantic_extra__", None)
        _setattr(new, "__pydantic_private__", None)
        return new
    return value


_FORKED = {list, dict, *_MUTABLE}
_setattr = object.__setattr__


class _Step:
    """One application of one event: mutable working copy plus what it says and sends."""

    def __init__(self, state: State) -> None:
        self.s = _fork(state)
        self.lines: list[LogLine] = []
        self.wire: list[w.WireMessage] = []
        self.turn: TurnRecord | None = None
        self.lost: dict[str, list[InFlight]] = {}

    # --- output ------------------------------------------------------------------------

    def say(self, text: str, tone: Tone = "info") -> None:
        self.lines.append(LogLine(text=text, tone=tone))

    def srv(self, name: str) -> SimServer:
        if name not in self.s.servers:
            raise Rejected(f"There is no server called {name} in this scenario.")
        return self.s.servers[name]

    def client(self, name: str) -> Client:
        if name not in self.s.host.clients:
            raise Rejected(f"The host has no client for {name}: it is not in the host's config.")
        return self.s.host.clients[name]

    def emit(
        self,
        c: Client,
        key: str,
        payload: dict[str, Any] | None,
        *,
        to_server: bool,
        http: str | None = None,
        headers: dict[str, str] | None = None,
        note: str | None = None,
        on_wire: bool = True,
        receiver: str | None = None,
    ) -> None:
        srv = self.s.servers[c.server]
        stdio = srv.transport == "stdio"
        host, server = "host", c.server
        self.wire.append(
            w.WireMessage(
                era=c.era,
                sender=host if to_server else server,
                receiver=(receiver or server) if to_server else (receiver or host),
                transport=srv.transport,
                http=None if stdio else http,
                headers={} if stdio else (headers or {}),
                payload=payload,
                checks=w.CHECKS.get((c.era, key), []) if payload is not None else [],
                note=note,
                on_wire=on_wire,
            )
        )

    def headers(self, c: Client, method: str, *, session: bool = True) -> dict[str, str]:
        h: dict[str, str] = {}
        if c.era == "modern":
            h["MCP-Protocol-Version"] = VERSION["modern"]
            h["Mcp-Method"] = method
        else:
            if session and c.session_id:
                h["Mcp-Session-Id"] = c.session_id
            if method != "initialize":
                h["MCP-Protocol-Version"] = VERSION["legacy"]
        return h

    def get_stream(self, c: Client, note: str, *, resume: bool) -> None:
        """A legacy GET on the session's SSE stream; ``resume`` adds the last event id seen."""
        headers = {**self.headers(c, "GET"), "Accept": "text/event-stream"}
        if resume:
            headers["Last-Event-ID"] = c.listen.last_event_id or "0"
        self.emit(c, "", None, to_server=True, http="GET /mcp", headers=headers, note=note)

    def next_id(self, c: Client) -> int:
        rid = c.next_id
        c.next_id += 1
        return rid

    # --- requests ------------------------------------------------------------------------

    def post(self, c: Client, key: str, payload: dict[str, Any], method: str) -> str:
        """Send one client request; say what the transport answered before any JSON-RPC."""
        srv = self.s.servers[c.server]
        self.emit(c, key, payload, to_server=True, http="POST /mcp", headers=self.headers(c, method))
        if not srv.up:
            self.emit(
                c,
                "",
                None,
                to_server=False,
                http="connection refused",
                on_wire=False,
                note="Nothing answers: the process is gone. No JSON-RPC message comes back.",
            )
            return "refused"
        if srv.transport == "http":
            if c.token in ("expired", "revoked"):
                self.emit(
                    c,
                    "",
                    None,
                    to_server=False,
                    http="HTTP 401 Unauthorized",
                    headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
                )
                return c.token
            if c.era == "legacy" and c.session_id and c.session_id not in srv.sessions:
                self.emit(
                    c,
                    "error",
                    w.SESSION_NOT_FOUND,
                    to_server=False,
                    http="HTTP 404 Not Found",
                    note="The new process has never heard of this Mcp-Session-Id.",
                )
                return "404"
        return "ok"

    def rpc(self, c: Client, key: str, build: Callable[[int], dict], method: str) -> int | None:
        """A request with the recoveries a host does by itself; returns the id that got through."""
        for _ in range(3):
            rid = self.next_id(c)
            status = self.post(c, key, build(rid), method)
            if status == "ok":
                return rid
            if status == "refused":
                self.mark_down(c, f"{c.server} refused the connection.")
                return None
            if status == "expired":
                self.say(f"{c.server} answered 401: the token expired. The client refreshed it and retried.", "warn")
                c.token = "valid"
                continue
            if status == "revoked":
                c.status = "reconnecting"
                c.last_error = "401: the token is gone; the user must sign in again"
                self.say(
                    f"{c.server} answered 401: its authorization server ran inside the restarted "
                    "process and held tokens in memory, so the user's token is gone. "
                    "The user has to sign in again.",
                    "error",
                )
                return None
            if status == "404":
                self.say(
                    f"{c.server} answered HTTP 404 to the old Mcp-Session-Id: the session died with the "
                    "process. The client starts a new session with initialize, and re-lists because the "
                    "old session's notifications are gone.",
                    "warn",
                )
                c.session_id = None
                self.initialize(c)
                if method != "tools/list":
                    self.relist(c)
        return None

    def mark_down(self, c: Client, why: str) -> None:
        if c.status != "down":
            c.status = "down"
            c.last_change = f"step {self.s.step}: down"
        c.last_error = why
        c.listen = ListenStream()
        c.session_id = None if self.s.servers[c.server].transport == "stdio" else c.session_id
        self.say(f"{why} The host marks {c.server} down and hides its tools from the next prompt.", "error")

    # --- connecting ------------------------------------------------------------------------

    def initialize(self, c: Client) -> None:
        srv = self.s.servers[c.server]
        rid = self.next_id(c)
        self.emit(
            c,
            "initialize",
            w.initialize(rid),
            to_server=True,
            http="POST /mcp",
            headers=self.headers(c, "initialize", session=False),
        )
        sid = None
        if srv.transport == "http" and srv.issues_session_id:
            sid = w.digest(srv.name, srv.generation, len(srv.sessions), c.next_id)
            srv.sessions.append(sid)
        self.emit(
            c,
            "initialize result",
            w.initialize_result(rid, srv.title, srv.generation, srv.list_changed),
            to_server=False,
            http="200 OK",
            headers={"Mcp-Session-Id": sid} if sid else {},
        )
        c.session_id = sid
        self.emit(
            c,
            "initialized",
            w.INITIALIZED,
            to_server=True,
            http="POST /mcp",
            headers=self.headers(c, "notifications/initialized"),
        )
        self.emit(c, "", None, to_server=False, http="202 Accepted")

    def open_stream(self, c: Client) -> None:
        """Modern: subscriptions/listen, then wait for the ack. Legacy: the session's GET stream."""
        srv = self.s.servers[c.server]
        if c.era == "modern":
            if not srv.list_changed:
                return
            c.listen_seq += 1
            rid = f"listen-{c.listen_seq}"
            self.emit(
                c,
                "subscriptions/listen",
                w.listen(rid),
                to_server=True,
                http="POST /mcp",
                headers={**self.headers(c, "subscriptions/listen"), "Accept": "application/json, text/event-stream"},
                note="The response is an SSE stream that stays open."
                if srv.transport == "http"
                else "A request that stays pending.",
            )
            if self.unauthorized(c):
                return
            self.emit(
                c,
                "acknowledged",
                w.acknowledged(rid),
                to_server=False,
                http="SSE event",
                note="Always the first frame on the stream.",
            )
            c.listen = ListenStream(open=True, request_id=rid, acknowledged=True)
        else:
            if srv.transport == "stdio":
                c.listen = ListenStream(open=True)  # notifications arrive on the process's stdout
                return
            self.get_stream(c, "Opens the session's SSE stream for server-initiated messages.", resume=False)
            if self.unauthorized(c):
                return
            c.listen = ListenStream(open=True, last_event_id="0" if srv.event_store else None)

    def unauthorized(self, c: Client) -> bool:
        """A stream request meets the same 401 as any other; an expired token is refreshed and the stream retried."""
        if self.s.servers[c.server].transport != "http" or c.token not in ("expired", "revoked"):
            return False
        self.emit(
            c,
            "",
            None,
            to_server=False,
            http="HTTP 401 Unauthorized",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
        if c.token == "expired":
            self.say(f"{c.server} answered 401: the token expired. The client refreshed it and retried.", "warn")
            c.token = "valid"
            self.open_stream(c)
        else:
            c.listen = ListenStream()
        return True

    def relist(self, c: Client, why: str = "") -> bool:
        srv = self.s.servers[c.server]
        rid = self.rpc(c, "tools/list", lambda i: w.request(c.era, i, "tools/list"), "tools/list")
        if rid is None:
            return False
        tools = visible_tools(self.s, srv, c.role)
        self.emit(
            c,
            "tools/list result",
            w.tools_list_result(c.era, rid, tools, srv.title, srv.generation),
            to_server=False,
            http="200 OK",
        )
        c.refetches += 1
        same = [t.name for t in tools] == [t.name for t in c.tools] and c.listed_generation > 0
        c.tools = tools
        c.stale = False
        c.listed_generation, c.listed_seq = srv.generation, srv.change_seq
        if why:
            self.say(why)
        return not same

    def connect(self, c: Client) -> None:
        """Everything a client does to start talking to a server it has just been told about."""
        srv = self.s.servers[c.server]
        if not srv.up:
            self.mark_down(c, f"{c.server} is not running.")
            return
        if c.era == "legacy":
            self.initialize(c)
        else:
            rid = f"d{self.next_id(c)}"
            self.emit(
                c,
                "server/discover",
                w.request("modern", rid, "server/discover"),
                to_server=True,
                http="POST /mcp",
                headers=self.headers(c, "server/discover"),
            )
            self.emit(
                c,
                "discover result",
                w.discover_result(rid, srv.title, srv.generation, srv.list_changed),
                to_server=False,
                http="200 OK",
                note="Describes a server the host already knows; it finds no new ones.",
            )
        c.status = "connected"
        c.last_error = None
        if self.s.host.auto_listen:
            self.open_stream(c)
        self.relist(c)

    def reconnect(self, c: Client) -> None:
        """The server is reachable again after a restart: what each era costs."""
        srv = self.s.servers[c.server]
        c.status = "connected"
        c.last_error = None
        c.last_change = f"step {self.s.step}: back"
        if srv.transport == "stdio":
            self.say(f"On stdio the host is the one that starts {c.server}: it launches a new process first.")
        if c.era == "modern":
            relisten = (
                "The client re-sends subscriptions/listen, waits for the acknowledgement, then re-lists, "
                if self.s.host.auto_listen and srv.list_changed
                else "The client re-lists, "
            )
            self.say(
                f"{c.server} is back. There is no session to rebuild: the next request just works. "
                f"{relisten}because notifications sent while it was down are not replayed.",
                "change",
            )
            if self.s.host.auto_listen:
                self.open_stream(c)
            self.relist(c)
            return
        if srv.transport == "stdio":
            self.say(f"{c.server} is back as a new process: the client must initialize again, then re-list.", "change")
            c.session_id = None
            self.initialize(c)
        elif c.session_id and c.session_id not in srv.sessions:
            self.get_stream(c, "The client tries to reopen (or resume) its stream.", resume=srv.event_store)
            self.emit(c, "error", w.SESSION_NOT_FOUND, to_server=False, http="HTTP 404 Not Found")
            get = "opens a new GET stream " if self.s.host.auto_listen else ""
            self.say(
                f"{c.server} is back, but its new process never heard of the old session: 404. "
                f"The client sends initialize again, {get}and re-lists.",
                "change",
            )
            c.session_id = None
            self.initialize(c)
        elif srv.event_store and c.listen.open:
            self.get_stream(c, "Resume the session's stream from the last event seen.", resume=True)
            self.say(
                f"{c.server} is back and still honours the session, and it stores events: the client resumes "
                "its GET stream with Last-Event-ID, then re-lists to be sure.",
                "change",
            )
            self.relist(c)
            return
        elif c.session_id is None:
            self.say(
                f"{c.server} is back. It never issued a session id, so there is no session to lose: the "
                "client carries on and re-lists.",
                "change",
            )
        else:
            self.say(f"{c.server} is back and still honours the session: the client reopens its stream.", "change")
        if self.s.host.auto_listen:
            self.open_stream(c)
        self.relist(c)

    # --- the server side of a call -------------------------------------------------------------

    def serve(self, c: Client, rid: int, tool_name: str, args: dict[str, str]) -> CallRecord:
        """The server runs a tool (or refuses), and the host hands the result to the model."""
        srv = self.s.servers[c.server]
        tools = {t.name: t for t in visible_tools(self.s, srv, c.role)}
        if srv.gateway:
            owner = next((b for b in srv.backends if any(t.name == tool_name for t in self.s.servers[b].tools)), None)
            if owner and (owner in srv.unhealthy or not self.s.servers[owner].up):
                why = "is failing its health checks" if owner in srv.unhealthy else "did not answer the gateway"
                text = f"Backend {owner} {why}; {tool_name} is unavailable right now."
                self.emit(
                    c,
                    "tools/call result",
                    w.result(rid, w.call_result_body(c.era, text, True)),
                    to_server=False,
                    http="200 OK",
                    note="A tool execution error from the gateway, which is up.",
                )
                return CallRecord(server=c.server, tool=tool_name, text=text, is_error=True)
        if tool_name not in tools:
            text = f"Unknown tool: {tool_name}"
            self.emit(
                c,
                "error",
                w.error(rid, -32602, text),
                to_server=False,
                http="200 OK",
                note="A protocol error: the server does not offer this tool.",
            )
            return CallRecord(server=c.server, tool=tool_name, text=text, is_error=True)
        text, is_error = self.run_tool(srv, tool_name, args)
        self.emit(
            c,
            "tools/call result",
            w.result(rid, w.call_result_body(c.era, text, is_error)),
            to_server=False,
            http="200 OK",
            note="A tool execution error: the server ran and reports the problem to the model." if is_error else None,
        )
        return CallRecord(server=c.server, tool=tool_name, text=text, is_error=is_error)

    def run_tool(self, srv: SimServer, tool: str, args: dict[str, str]) -> tuple[str, bool]:
        if tool == "create_basket":
            srv.handle_seq += 1
            handle = "bsk_" + w.digest(srv.name, srv.handle_seq, n=4)
            self.handles(srv)[handle] = []
            self.s.host.handles.append(handle)
            return json.dumps({"basket_id": handle}), False
        if tool == "add_item":
            handle, sku = args.get("basket_id", ""), args.get("sku", "")
            store = self.handles(srv)
            if handle not in store:
                return (
                    f"Unknown basket_id '{handle}': it has expired or this server no longer has it. "
                    "Create a new basket with create_basket."
                ), True
            store[handle].append(sku)
            return json.dumps({"basket_id": handle, "items": store[handle]}), False
        detail = ", ".join(f"{k}={v}" for k, v in args.items())
        return f"{tool} done ({detail})" if detail else f"{tool} done", False

    def handles(self, srv: SimServer) -> dict[str, list[str]]:
        if srv.handles_durable:
            return srv.durable_handles
        return srv.process_handles.setdefault(str(srv.replica), {})

    def host_error(self, c: Client, tool: str, text: str) -> CallRecord:
        self.emit(
            c,
            "host_result",
            w.call_result_body(c.era, text, True),
            to_server=False,
            receiver="model",
            on_wire=False,
            note="Built by the host for the model: the server sent nothing.",
        )
        return CallRecord(server=c.server, tool=tool, text=text, is_error=True, host_made=True)

    def call_tool(self, call: ToolCall) -> CallRecord:
        if call.server not in self.s.host.clients:
            text = f"No server '{call.server}' is configured in this host."
            return CallRecord(server=call.server, tool=call.tool, text=text, is_error=True, host_made=True)
        c = self.s.host.clients[call.server]
        srv = self.s.servers[c.server]
        if c.status == "down":
            return self.host_error(
                c, call.tool, f"MCP server '{srv.title}' ({c.server}) is not reachable; the call was not executed."
            )
        if c.status == "reconnecting":
            return self.host_error(
                c,
                call.tool,
                f"MCP server '{srv.title}' ({c.server}) needs the user to sign in again; the call was not executed.",
            )
        args = call.arguments or self.default_args(c, call.tool)
        rid = self.rpc(c, "tools/call", lambda i: w.call(c.era, i, call.tool, args), "tools/call")
        if rid is None:
            why = "is not reachable" if c.status == "down" else "needs the user to sign in again"
            return self.host_error(
                c, call.tool, f"MCP server '{srv.title}' ({c.server}) {why}; the call was not executed."
            )
        return self.serve(c, rid, call.tool, args)

    def default_args(self, c: Client, tool: str) -> dict[str, str]:
        if tool == "add_item":
            return {"basket_id": self.s.host.handles[-1] if self.s.host.handles else "", "sku": "A-100"}
        arg = next((t.arg for t in c.tools if t.name == tool), "query")
        return {arg: "release 2.0"}

    # --- notifications -------------------------------------------------------------------------

    def notify(self, srv: SimServer, why: str) -> None:
        """The server's tool list changed: tell whoever listens, and let them re-list."""
        srv.change_seq += 1
        for c in self.listeners(srv.name):
            c.stale = True
            if not srv.list_changed:
                self.say(
                    f"{srv.name} changed its tools but never declared tools.listChanged, so it sends "
                    f"nothing. The host's copy of {c.server}'s list is now stale.",
                    "warn",
                )
                continue
            if not c.listen.open:
                self.say(
                    f"{c.server} has no open stream to this host, so the change goes unnoticed "
                    "until the host re-lists.",
                    "warn",
                )
                continue
            self.emit(
                c,
                "list_changed",
                w.list_changed(c.era, c.listen.request_id),
                to_server=False,
                http="SSE event",
                note="On the open listen stream." if c.era == "modern" else "On the session's GET stream.",
            )
            changed = self.relist(c)
            self.say(
                f"{c.server} sent notifications/tools/list_changed ({why}); the client called "
                f"tools/list again{'' if changed else ' and got the same list'}.",
                "change",
            )
            c.last_change = f"step {self.s.step}: {why}"
        if srv.gateway:
            for other in srv.other_listeners:
                self.wire.append(
                    w.WireMessage(
                        era=self.s.host.era,
                        sender=srv.name,
                        receiver=other,
                        transport="http",
                        http="SSE event",
                        payload=w.list_changed(self.s.host.era, "listen-1"),
                        checks=w.CHECKS[(self.s.host.era, "list_changed")],
                        note="The gateway tells every listening client, not just this host.",
                    )
                )
            if srv.other_listeners:
                self.say(
                    f"The gateway sent the same notification to {len(srv.other_listeners)} other "
                    "listening hosts, so they re-list on their own too."
                )

    def listeners(self, server: str) -> list[Client]:
        srv = self.s.servers[server]
        targets = [srv.behind] if srv.behind else [server]
        return [
            self.s.host.clients[t]
            for t in targets
            if t in self.s.host.clients and self.s.host.clients[t].status == "connected"
        ]

    # --- dying and coming back ------------------------------------------------------------------

    def die(self, srv: SimServer, *, restarting: bool) -> None:
        srv.up = False
        srv.process_handles = {}
        if not srv.sessions_durable:
            srv.sessions = []
        for c in list(self.s.host.clients.values()):
            if c.server != srv.name:
                continue
            lost, c.in_flight = c.in_flight, []
            if restarting and c.era == "legacy" and c.pending_input:
                # The question died with the process; the host learns that only when the answer is sent.
                lost = [f for f in lost if f.tool != c.pending_input.tool]
            self.lost[c.server] = lost
            if c.listen.open or lost:
                if c.era == "modern" and c.listen.open:
                    self.emit(
                        c,
                        "",
                        None,
                        to_server=False,
                        http="stream closed",
                        note="The listen stream drops with no result: an abrupt end.",
                        on_wire=False,
                    )
                elif c.listen.open:
                    self.emit(
                        c,
                        "",
                        None,
                        to_server=False,
                        http="stream closed",
                        note="The session's GET stream drops.",
                        on_wire=False,
                    )
                if restarting:
                    continue
                self.mark_down(c, f"{srv.name}'s stream dropped.")
                for call in lost:
                    rec = self.host_error(
                        c,
                        call.tool,
                        f"MCP server '{srv.title}' ({c.server}) went away "
                        "while this call was running; no result came back.",
                    )
                    self.deliver(rec)
            elif not restarting:
                self.say(
                    f"{srv.name} died, but no stream was open: the host will only find out on its next request.", "warn"
                )
        if srv.behind and not restarting:
            self.say(
                f"{srv.name} sits behind gateway {srv.behind}; the gateway will notice at its next health check.",
                "warn",
            )

    def back(self, srv: SimServer, *, restarted: bool) -> None:
        srv.up = True
        srv.generation += 1
        if srv.auth_in_process and srv.transport == "http":
            for c in self.s.host.clients.values():
                if c.server == srv.name and c.token == "valid":
                    c.token = "revoked"
        for c in list(self.s.host.clients.values()):
            if c.server != srv.name:
                continue
            lost = self.lost.get(c.server, [])
            if c.status == "down" or (restarted and (c.listen.open or lost or srv.transport == "stdio")):
                self.reconnect(c)
                self.recover_calls(c, lost)
            elif restarted and c.era == "legacy" and c.pending_input:
                self.say(
                    f"{srv.name} restarted while the user was being asked a question. The question died with "
                    "the old process and its session, but the host notices nothing until the answer is sent."
                )
            elif restarted and c.pending_input:
                self.say(
                    f"{srv.name} restarted while the user was thinking. Nothing was open: the first request "
                    "already finished with input_required, and the client holds the question and the "
                    "requestState. The retry will tell whether the new process can still verify that state."
                )
            elif restarted:
                self.say(
                    f"{srv.name} restarted while idle. The host had nothing open, so it notices "
                    "nothing until its next request."
                )

    def recover_calls(self, c: Client, lost: list[InFlight]) -> None:
        srv = self.s.servers[c.server]
        for call in lost:
            if c.status != "connected":
                self.deliver(
                    self.host_error(
                        c,
                        call.tool,
                        f"MCP server '{srv.title}' ({c.server}) restarted during this call; it could not be retried.",
                    )
                )
                continue
            if c.era == "legacy" and srv.sessions_durable and srv.event_store and srv.transport == "http":
                self.get_stream(c, "Resume the broken stream from the last event seen.", resume=True)
                text, err = self.run_tool(srv, call.tool, call.arguments)
                self.emit(
                    c,
                    "tools/call result",
                    w.result(call.request_id, w.call_result_body(c.era, text, err)),
                    to_server=False,
                    http="SSE event",
                    note="Replayed: the session, its events and the unfinished work outlived the process.",
                )
                self.say(
                    f"The call to {call.tool} resumed: {srv.name} kept the session, the events and the "
                    "work outside the process, so the result was replayed.",
                    "change",
                )
                self.deliver(CallRecord(server=c.server, tool=call.tool, text=text, is_error=err))
                continue
            if not call.idempotent:
                self.say(
                    f"The call to {call.tool} was lost with the process. It is not idempotent, so the "
                    "host does not retry it blindly; the model is told.",
                    "warn",
                )
                self.deliver(
                    self.host_error(
                        c,
                        call.tool,
                        f"The call to {call.tool} was interrupted by a "
                        "server restart; it may or may not have taken effect.",
                    )
                )
                continue
            extra = "" if c.era == "legacy" else " with a new request id"
            self.say(
                f"The call to {call.tool} was lost with the process ({call.tool} is idempotent, so the "
                f"client re-issues it{extra}).",
                "change",
            )
            self.deliver(self.call_tool(ToolCall(server=c.server, tool=call.tool, arguments=call.arguments)))

    def deliver(self, rec: CallRecord) -> None:
        self.s.host.conversation.append(Message(role="tool", text=f"{rec.tool}: {rec.text}"))


# --- the events ---------------------------------------------------------------------------------


def _deploy(st: _Step, e: DeployTool) -> None:
    srv = st.srv(e.server)
    tool = e.tool or (srv.upcoming[0] if srv.upcoming else None)
    if tool is None:
        raise Rejected(f"{e.server} has nothing new to deploy.")
    if any(t.name == tool.name for t in srv.tools):
        raise Rejected(f"{e.server} already offers {tool.name}.")
    srv.upcoming = [t for t in srv.upcoming if t.name != tool.name]
    srv.tools.append(tool)
    if not srv.up:
        raise Rejected(f"{e.server} is down; it can deploy once it is back.")
    st.say(f"{e.server} deployed a new tool, {tool.name}, from outside any request (a deploy).", "change")
    st.notify(st.srv(srv.behind) if srv.behind else srv, f"{tool.name} added")


def _remove_tool(st: _Step, e: RemoveTool) -> None:
    srv = st.srv(e.server)
    if not any(t.name == e.tool for t in srv.tools):
        raise Rejected(f"{e.server} has no tool called {e.tool}.")
    if not srv.up:
        raise Rejected(f"{e.server} is down.")
    srv.tools = [t for t in srv.tools if t.name != e.tool]
    st.say(f"{e.server} removed {e.tool} (a config reload).", "change")
    st.notify(st.srv(srv.behind) if srv.behind else srv, f"{e.tool} removed")


def _add_server(st: _Step, e: AddServer) -> None:
    srv = st.srv(e.server)
    if e.server in st.s.host.configured:
        raise Rejected(f"{e.server} is already in the host's config.")
    if srv.behind:
        raise Rejected(f"{e.server} sits behind gateway {srv.behind}; add it to the gateway instead.")
    st.s.host.configured.append(e.server)
    c = Client(server=e.server, era=st.s.host.era)
    st.s.host.clients[e.server] = c
    st.say(
        f"An admin added {e.server} ({srv.title}) through the {e.via}. Nothing in the protocol announced "
        "it: the host was told, and opens a new client.",
        "change",
    )
    st.connect(c)
    c.last_change = f"step {st.s.step}: added"


def _remove_server(st: _Step, e: RemoveServer) -> None:
    c = st.client(e.server)
    if c.era == "legacy" and c.session_id and c.status == "connected":
        st.emit(
            c,
            "",
            None,
            to_server=True,
            http="DELETE /mcp",
            headers=st.headers(c, "DELETE"),
            note="Ends the session politely.",
        )
    st.s.host.configured.remove(e.server)
    del st.s.host.clients[e.server]
    st.say(f"An admin removed {e.server} from the config. Its tools leave the next prompt.", "change")


def _dies(st: _Step, e: ServerDies) -> None:
    srv = st.srv(e.server)
    if not srv.up:
        raise Rejected(f"{e.server} is already down.")
    st.say(f"{e.server}'s process died.", "error")
    st.die(srv, restarting=False)
    if any(c.status == "connected" for c in st.s.host.clients.values() if c.server != e.server):
        st.say("The conversation lives in the host, so it survives; the other servers carry on.")


def _back(st: _Step, e: ServerBack) -> None:
    srv = st.srv(e.server)
    if srv.up:
        raise Rejected(f"{e.server} is already up: there is nothing to come back from.")
    if e.transport:
        srv.transport = e.transport
    st.say(f"{e.server}'s process is running again (a new process, over {srv.transport}).", "change")
    st.back(srv, restarted=False)


def _restart(st: _Step, e: RestartServer) -> None:
    srv = st.srv(e.server)
    if not srv.up:
        raise Rejected(f"{e.server} is down; bring it back instead.")
    st.say(f"{e.server} restarted: the old process is gone and a new one is running.", "change")
    st.die(srv, restarting=True)
    st.back(srv, restarted=True)
    for c in st.s.host.clients.values():
        if c.server == e.server and c.token == "revoked":
            st.say(
                "The user's token was issued by an authorization server inside the restarted process, "
                "with tokens in memory: it is gone. The next request will get 401.",
                "warn",
            )
        elif c.server == e.server and srv.transport == "http":
            st.say(
                "The user's token is still valid: it was issued by the authorization server, which "
                "did not restart, and every request carries it again."
            )
        elif c.server == e.server:
            st.say("On stdio there is no token flow: the new process reads its credentials from the environment again.")


def _default_calls(st: _Step, prompt: list[PromptTool]) -> list[ToolCall]:
    """The model carries on with each server it worked with; a brand-new tool gets tried first."""
    last = st.s.host.last_prompt
    servers = [s for s in st.s.host.configured if any(t.server == s for t in prompt + last)]
    servers += [t.server for t in last if t.server not in servers and t.server not in st.s.host.configured]
    calls: list[ToolCall] = []
    seen = tool_keys(last)
    for name in dict.fromkeys(servers):
        new = [t for t in prompt if t.server == name and (t.name, t.server) not in seen]
        now = [t for t in prompt if t.server == name]
        before = [t for t in last if t.server == name]
        pick = (new or now or before)[0]
        calls.append(ToolCall(server=name, tool=pick.name))
    return calls


def _turn(st: _Step, e: TakeTurn) -> None:
    h = st.s.host
    prompt = prompt_tools(st.s)
    before, now = tool_keys(h.last_prompt), tool_keys(prompt)
    new = [t for t in prompt if (t.name, t.server) not in before]
    removed = [t for t in h.last_prompt if (t.name, t.server) not in now]
    h.turns += 1
    if h.batching and h.pending_changes and prompt != h.last_prompt:
        h.cache_invalidations += 1
        st.say(
            f"{h.pending_changes} tool-list change(s) since the last turn, batched: they cost one prompt "
            "cache invalidation."
        )
    names = ", ".join(t.name for t in prompt) or "no tools"
    st.say(f"Turn {h.turns}: the host built the prompt with {len(prompt)} tools ({names}).", "model")
    if new and h.turns > 1:
        st.say("New since the last turn: " + ", ".join(f"{t.name} ({t.server})" for t in new) + ".", "model")
    if removed:
        st.say("Gone since the last turn: " + ", ".join(f"{t.name} ({t.server})" for t in removed) + ".", "model")
    h.conversation.append(Message(role="assistant", text=f"turn {h.turns}: sees {names}"))
    calls = e.calls if e.calls is not None else _default_calls(st, prompt)
    records: list[CallRecord] = []
    for call in calls:
        rec = st.call_tool(call)
        records.append(rec)
        st.deliver(rec)
        if rec.host_made:
            st.say(
                f"The model called {call.tool} on {call.server}: the host answered it with a tool error "
                f"it built itself ({rec.text}) The conversation goes on.",
                "error",
            )
        elif rec.is_error:
            st.say(f"The model called {call.tool} on {call.server} and got an error back: {rec.text}", "error")
        else:
            st.say(f"The model called {call.tool} on {call.server}: {rec.text}.", "model")
    if not calls:
        st.say("The model answered without calling a tool.", "model")
    h.last_prompt = prompt
    h.pending_changes = 0
    st.turn = TurnRecord(
        number=h.turns, tools_seen=prompt, new_tools=new if h.turns > 1 else [], removed_tools=removed, calls=records
    )


def _pick_tool(st: _Step, c: Client, tool: str | None) -> ToolDef:
    tools = {t.name: t for t in c.tools}
    if tool is None:
        if not c.tools:
            raise Rejected(f"The host knows no tools on {c.server}.")
        return c.tools[0]
    if tool not in tools:
        raise Rejected(f"{c.server} does not offer {tool}.")
    return tools[tool]


def _start_call(st: _Step, e: StartCall) -> None:
    c = st.client(e.server)
    if c.status != "connected":
        raise Rejected(f"{e.server} is {c.status}; the model cannot start a call there now.")
    tool = _pick_tool(st, c, e.tool)
    args = st.default_args(c, tool.name)
    rid = st.rpc(c, "tools/call", lambda i: w.call(c.era, i, tool.name, args), "tools/call")
    if rid is None:
        return
    c.in_flight.append(InFlight(request_id=rid, tool=tool.name, arguments=args, idempotent=tool.idempotent))
    st.say(
        f"The model called {tool.name} on {e.server}; the call is running and no result has come back "
        f"yet ({'idempotent' if tool.idempotent else 'not idempotent'}).",
        "model",
    )


QUESTION = "Forecast for which Portland?"  # the facts file's example: the answer is a US state


def _ask(st: _Step, e: AskUserInput) -> None:
    c = st.client(e.server)
    srv = st.srv(e.server)
    if c.status != "connected":
        raise Rejected(f"{e.server} is {c.status}.")
    if c.pending_input:
        raise Rejected(f"{e.server} is already waiting for the user's answer.")
    tool = _pick_tool(st, c, e.tool)
    args = st.default_args(c, tool.name)
    _begin_input_flow(st, c, srv, tool, args)


def _begin_input_flow(st: _Step, c: Client, srv: SimServer, tool: ToolDef, args: dict[str, str]) -> None:
    rid = st.rpc(c, "tools/call", lambda i: w.call(c.era, i, tool.name, args), "tools/call")
    if rid is None:
        return
    if c.era == "legacy":
        eid = srv.state_seq
        srv.state_seq += 1
        st.emit(
            c,
            "elicitation/create",
            w.elicit(eid, QUESTION),
            to_server=False,
            http="SSE event",
            note="A server-to-client request on the open call's stream, tied to the session.",
        )
        c.in_flight.append(InFlight(request_id=rid, tool=tool.name, arguments=args, idempotent=tool.idempotent))
        c.pending_input = PendingInput(
            tool=tool.name, arguments=args, question=QUESTION, request_id=eid, generation=srv.generation
        )
        st.say(
            f"{c.server} asked the user a question mid-call (elicitation/create on the session). The call "
            "stays open while the user thinks.",
            "model",
        )
    else:
        srv.state_seq += 1
        state = "v1.AEAD." + w.digest(srv.name, srv.generation, srv.state_seq, n=22)
        st.emit(
            c,
            "input_required",
            w.input_required(rid, QUESTION, state),
            to_server=False,
            http="200 OK",
            note="The request is finished; the client holds inputRequests and requestState.",
        )
        c.pending_input = PendingInput(
            tool=tool.name,
            arguments=args,
            question=QUESTION,
            request_id=rid,
            request_state=state,
            generation=srv.generation,
        )
        st.say(
            f"{c.server} answered input_required: the call is finished for now, and the client holds the "
            "question and the requestState. Nothing is open while the user thinks.",
            "model",
        )


def _answer(st: _Step, e: UserAnswers) -> None:
    c = st.client(e.server)
    srv = st.srv(e.server)
    p = c.pending_input
    if p is None:
        raise Rejected(f"{e.server} is not waiting for any answer.")
    if not srv.up or c.status == "down":
        raise Rejected(f"{e.server} is down; the answer has to wait until it is back.")
    tool = next((t for t in srv.tools if t.name == p.tool), ToolDef(name=p.tool, description=""))
    c.pending_input = None
    if c.era == "legacy":
        st.emit(
            c,
            "elicit result",
            w.elicit_result(p.request_id, e.answer),
            to_server=True,
            http="POST /mcp",
            headers=st.headers(c, "response"),
        )
        if c.session_id and c.session_id not in srv.sessions and srv.transport == "http":
            st.emit(c, "error", w.SESSION_NOT_FOUND, to_server=False, http="HTTP 404 Not Found")
            st.say(
                "The user's answer went out with the dead session id and got 404: the answer is lost. "
                "The client initializes again, re-lists, and calls the tool again, which asks again.",
                "error",
            )
            c.session_id = None
            st.initialize(c)
            st.relist(c)
        elif p.generation != srv.generation:
            st.emit(
                c,
                "",
                None,
                to_server=False,
                http="202 Accepted",
                note="Accepted, but the new process never asked this question.",
            )
            st.say(
                "The process that asked is gone, so the answer goes nowhere. The client calls the tool "
                "again, which asks again.",
                "error",
            )
        else:
            st.emit(c, "", None, to_server=False, http="202 Accepted")
            c.in_flight = [f for f in c.in_flight if f.tool != p.tool]
            text, err = st.run_tool(srv, p.tool, p.arguments)
            rid = c.next_id - 1
            st.emit(
                c,
                "tools/call result",
                w.result(rid, w.call_result_body("legacy", text, err)),
                to_server=False,
                http="SSE event",
                note="The open call finishes.",
            )
            st.say(f"The user answered {e.answer}; the call finished.", "model")
            st.deliver(CallRecord(server=c.server, tool=p.tool, text=text, is_error=err))
            return
        c.in_flight = [f for f in c.in_flight if f.tool != p.tool]
        _begin_input_flow(st, c, srv, tool, p.arguments)
        return
    # Modern: retry with a new id, the answers, and the requestState echoed byte for byte.
    state = p.request_state or ""
    rid = st.rpc(
        c,
        "tools/call",
        lambda i: w.call(
            "modern",
            i,
            p.tool,
            p.arguments,
            inputResponses={"confirm": {"action": "accept", "content": {"state": e.answer}}},
            requestState=state,
        ),
        "tools/call",
    )
    if rid is None:
        c.pending_input = p
        return
    verifiable = p.generation == srv.generation or srv.state_key_durable
    if verifiable and not e.after_expiry:
        text, err = st.run_tool(srv, p.tool, p.arguments)
        st.emit(
            c,
            "tools/call result",
            w.result(rid, w.call_result_body("modern", text, err)),
            to_server=False,
            http="200 OK",
        )
        if p.generation != srv.generation:
            st.say(
                "The retry (a new request id) reached the restarted server, which could still verify "
                "the requestState (its key survived the restart): the call finished.",
                "change",
            )
        else:
            st.say(f"The user answered {e.answer}; the retry (a new request id) finished the call.", "model")
        st.deliver(CallRecord(server=c.server, tool=p.tool, text=text, is_error=err))
        return
    st.emit(c, "error", w.error(rid, -32602, "Invalid or expired requestState"), to_server=False, http="200 OK")
    why = (
        "it has expired"
        if e.after_expiry
        else "the restarted process cannot verify it (the key lived only in the old process)"
    )
    st.say(f"The server rejected the requestState: {why}. The client starts the flow again.", "error")
    _begin_input_flow(st, c, srv, tool, p.arguments)


def _listen_drops(st: _Step, e: ListenDrops) -> None:
    c = st.client(e.server)
    srv = st.srv(e.server)
    if not c.listen.open:
        raise Rejected(f"The host has no open stream to {e.server}.")
    st.emit(c, "", None, to_server=False, http="stream closed", on_wire=False, note="The stream breaks with no result.")
    if c.era == "modern":
        st.say(
            f"The listen stream to {e.server} dropped. Nothing is replayed in this era, so the client "
            "re-sends subscriptions/listen, waits for the ack, and re-lists.",
            "warn",
        )
        st.open_stream(c)
        st.relist(c)
        return
    if srv.event_store and c.session_id in srv.sessions:
        st.get_stream(c, "Resume the stream from the last event seen.", resume=True)
        st.say(
            f"The GET stream to {e.server} dropped. The server stores events, so the client resumed "
            "it with Last-Event-ID and missed nothing.",
            "warn",
        )
        return
    st.say(
        f"The GET stream to {e.server} dropped. Without an event store there is nothing to resume: "
        "the client opens a new GET stream and re-lists.",
        "warn",
    )
    st.open_stream(c)
    st.relist(c)


def _token_expires(st: _Step, e: TokenExpires) -> None:
    c = st.client(e.server)
    if st.srv(e.server).transport == "stdio":
        raise Rejected("On stdio there is no token: credentials come from the environment.")
    if c.token != "valid":
        raise Rejected(f"The token for {e.server} is already {c.token}.")
    c.token = "expired"
    st.say(
        f"The user's token for {e.server} expired. The next request will get 401, then the client refreshes it.", "warn"
    )


def _token_refreshed(st: _Step, e: TokenRefreshed) -> None:
    c = st.client(e.server)
    if c.token == "valid":
        raise Rejected(f"The token for {e.server} is valid; there is nothing to refresh.")
    was = c.token
    c.token = "valid"
    if was == "revoked":
        st.say(f"The user signed in again; {e.server} accepts the new token.", "change")
        if c.status == "reconnecting":
            c.status = "connected"
            c.last_error = None
            if st.s.host.auto_listen and not c.listen.open:
                st.open_stream(c)
            st.relist(c)
    else:
        st.say(f"The client refreshed the token for {e.server} before its next request.", "change")


def _switch_era(st: _Step, e: SwitchEra) -> None:
    targets = [st.client(e.server)] if e.server else list(st.s.host.clients.values())
    if e.server is None:
        st.s.host.era = e.era
    todo = [c for c in targets if c.era != e.era]
    if not todo:
        raise Rejected(f"Already speaking {ERA_LABEL[e.era]}.")
    for c in todo:
        srv = st.s.servers[c.server]
        if c.era == "modern" and c.listen.open:
            st.emit(
                c,
                "",
                None,
                to_server=True,
                http="stream closed",
                on_wire=False,
                note="The client closes its listen stream.",
            )
        elif c.session_id and srv.up:
            st.emit(
                c,
                "",
                None,
                to_server=True,
                http="DELETE /mcp",
                headers=st.headers(c, "DELETE"),
                note="Ends the legacy session.",
            )
        c.era = e.era
        c.session_id = None
        c.listen = ListenStream()
        st.say(f"The client for {c.server} now speaks {ERA_LABEL[e.era]}.", "change")
        if srv.up and c.status != "down":
            st.connect(c)


def _gateway(st: _Step, name: str, backend: str) -> tuple[SimServer, SimServer]:
    gw = st.srv(name)
    if not gw.gateway:
        raise Rejected(f"{name} is not a gateway.")
    return gw, st.srv(backend)


def _backend_joins(st: _Step, e: BackendJoins) -> None:
    gw, b = _gateway(st, e.gateway, e.backend)
    if e.backend in gw.backends:
        raise Rejected(f"{e.backend} is already behind {e.gateway}.")
    if b.gateway or b.behind:
        raise Rejected(f"{e.backend} cannot join {e.gateway}: it is a gateway or already behind one.")
    if e.backend in st.s.host.configured:
        raise Rejected(f"The host reaches {e.backend} directly; remove it from the host's config first.")
    gw.backends.append(e.backend)
    b.behind = e.gateway
    st.say(f"{e.backend} joined gateway {e.gateway}. The host still holds one client, to the gateway.", "change")
    st.notify(gw, f"backend {e.backend} joined")


def _backend_leaves(st: _Step, e: BackendLeaves) -> None:
    gw, b = _gateway(st, e.gateway, e.backend)
    if e.backend not in gw.backends:
        raise Rejected(f"{e.backend} is not behind {e.gateway}.")
    gw.backends.remove(e.backend)
    gw.unhealthy = [n for n in gw.unhealthy if n != e.backend]
    b.behind = None
    st.say(f"{e.backend} left gateway {e.gateway}.", "change")
    st.notify(gw, f"backend {e.backend} left")


def _backend_fails(st: _Step, e: BackendFailsHealthCheck) -> None:
    gw, _ = _gateway(st, e.gateway, e.backend)
    if e.backend not in gw.backends:
        raise Rejected(f"{e.backend} is not behind {e.gateway}.")
    if e.backend in gw.unhealthy:
        raise Rejected(f"{e.backend} is already failing its health checks.")
    gw.unhealthy.append(e.backend)
    st.say(f"{e.backend} failed the gateway's health check. The gateway hides its tools.", "error")
    st.notify(gw, f"backend {e.backend} failed its health check")


def _backend_recovers(st: _Step, e: BackendRecovers) -> None:
    gw, b = _gateway(st, e.gateway, e.backend)
    if e.backend not in gw.unhealthy:
        raise Rejected(f"{e.backend} is not failing its health checks.")
    gw.unhealthy.remove(e.backend)
    b.up = True
    st.say(f"{e.backend} passes its health check again. The gateway shows its tools again.", "change")
    st.notify(gw, f"backend {e.backend} recovered")


def _basket_call(st: _Step, server: str, tool: str, args: dict[str, str]) -> None:
    c = st.client(server)
    if not any(t.name == tool for t in c.tools):
        raise Rejected(f"{server} does not offer {tool}.")
    rec = st.call_tool(ToolCall(server=server, tool=tool, arguments=args))
    st.deliver(rec)
    srv = st.s.servers[server]
    where = "its durable store" if srv.handles_durable else f"the memory of replica {srv.replica}"
    if rec.is_error:
        st.say(f"The model called {tool}: {rec.text}", "error")
    else:
        st.say(f"The model called {tool}; the server keeps the basket in {where}: {rec.text}", "model")


def _create_basket(st: _Step, e: CreateBasket) -> None:
    _basket_call(st, e.server, "create_basket", {"customer": "learner"})


def _add_item(st: _Step, e: AddItem) -> None:
    handle = e.basket_id or (st.s.host.handles[-1] if st.s.host.handles else None)
    if handle is None:
        raise Rejected("The model has no basket_id yet: create a basket first.")
    _basket_call(st, e.server, "add_item", {"basket_id": handle, "sku": e.sku})


def _replica(st: _Step, e: LandOnReplica) -> None:
    srv = st.srv(e.server)
    if not 1 <= e.replica <= srv.replicas:
        raise Rejected(f"{e.server} runs {srv.replicas} replica(s).")
    if srv.replica == e.replica:
        raise Rejected(f"Calls already land on replica {e.replica}.")
    srv.replica = e.replica
    st.say(f"The load balancer now sends {e.server}'s calls to replica {e.replica}.", "change")


def _undeclared(st: _Step, e: UndeclaredListChanged) -> None:
    srv = st.srv(e.server)
    c = st.client(e.server)
    if srv.list_changed:
        raise Rejected(f"{e.server} did declare tools.listChanged; its notifications are legitimate.")
    if c.era == "modern":
        st.say(
            f"{e.server} wants to send list_changed without having declared tools.listChanged. In this "
            "era the client never asked for that type on a listen stream, and a server must not send "
            "types the client did not ask for: nothing reaches the host, nothing changes.",
            "warn",
        )
        return
    st.emit(
        c,
        "list_changed",
        w.list_changed("legacy", None),
        to_server=False,
        http=None if srv.transport == "stdio" else "SSE event",
        note="Sent without the capability: a spec violation.",
    )
    c.ignored_notifications += 1
    st.say(
        f"{e.server} sent list_changed without declaring tools.listChanged: a spec violation the "
        "client need not react to. The host ignores it; nothing changes.",
        "warn",
    )


def _timer(st: _Step, e: TimerListChanged) -> None:
    srv = st.srv(e.server)
    c = st.client(e.server)
    if not srv.list_changed:
        raise Rejected(f"{e.server} never declared tools.listChanged.")
    if c.status != "connected" or not c.listen.open:
        raise Rejected(f"The host has no open stream to {e.server}.")
    st.emit(
        c,
        "list_changed",
        w.list_changed(c.era, c.listen.request_id),
        to_server=False,
        http="SSE event",
        note="Fired by a timer: nothing changed.",
    )
    changed = st.relist(c)
    if not changed:
        c.wasted_refetches += 1
        st.say(
            f"{e.server}'s timer fired list_changed with nothing changed. The client re-fetched for "
            f"nothing ({c.wasted_refetches} wasted re-fetch(es) so far).",
            "warn",
        )


def _batching(st: _Step, e: SetBatching) -> None:
    if st.s.host.batching == e.on:
        raise Rejected(f"Batching is already {'on' if e.on else 'off'}.")
    st.s.host.batching = e.on
    st.say(
        "The host now batches tool-list changes until the next turn."
        if e.on
        else "The host now rebuilds the tool list after every change."
    )


def _reauth(st: _Step, e: Reauthenticate) -> None:
    c = st.client(e.server)
    srv = st.srv(e.server)
    if c.role == e.role:
        raise Rejected(f"The user is already signed in to {e.server} as {e.role}.")
    if c.status != "connected":
        raise Rejected(f"{e.server} is {c.status}.")
    c.role = e.role
    st.say(
        f"The user signed in to {e.server} again, now as {e.role}. The tool list may vary by "
        "authorization, so the set of tools legitimately changes.",
        "change",
    )
    if srv.list_changed and c.listen.open:
        st.notify(srv, f"signed in as {e.role}")
    else:
        st.relist(c, "The host re-listed by itself, since it knows the credentials changed.")


HANDLERS: dict[str, Callable[[_Step, Any], None]] = {
    "deploy_tool": _deploy,
    "remove_tool": _remove_tool,
    "add_server": _add_server,
    "remove_server": _remove_server,
    "server_dies": _dies,
    "server_back": _back,
    "restart_server": _restart,
    "take_turn": _turn,
    "start_call": _start_call,
    "ask_user_input": _ask,
    "user_answers": _answer,
    "listen_drops": _listen_drops,
    "token_expires": _token_expires,
    "token_refreshed": _token_refreshed,
    "switch_era": _switch_era,
    "backend_joins": _backend_joins,
    "backend_leaves": _backend_leaves,
    "backend_fails": _backend_fails,
    "backend_recovers": _backend_recovers,
    "create_basket": _create_basket,
    "add_item": _add_item,
    "land_on_replica": _replica,
    "undeclared_list_changed": _undeclared,
    "timer_list_changed": _timer,
    "set_batching": _batching,
    "reauthenticate": _reauth,
}


def apply(state: State, event: Event) -> tuple[State, Outcome]:
    """Apply one event. The input state is left untouched; a senseless press changes nothing but
    the step count and says why."""
    st = _Step(state)
    st.s.step += 1
    before = _prompt_keys(st.s)
    try:
        HANDLERS[event.kind](st, event)
    except Rejected as why:
        rejected = state.model_copy(update={"step": state.step + 1})
        return rejected, Outcome(lines=[LogLine(text=str(why), tone="rejected")], wire=[], rejected=True)
    after = _prompt_keys(st.s)
    if after != before and event.kind != "take_turn":
        h = st.s.host
        h.pending_changes += 1
        if h.batching:
            st.say("The next prompt's tool list changed; the host holds the change until the next turn.")
        else:
            h.cache_invalidations += 1
            st.say(f"The host rebuilt the tool list: the prompt cache is invalidated ({h.cache_invalidations} so far).")
    if not st.lines:
        st.say("Nothing visible changed.")
    return st.s, Outcome(lines=st.lines, wire=st.wire, turn=st.turn)
