"""Named starts: the servers, the host's config, and the clients already connected.

A start may also declare servers of its own (``servers``): plain data, added to the named start's
servers when it is built, so a panel can bring a server without a new start here. (A scripted
walk-through, a scenario, is content: ``lesson/content/scenarios.py``.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, Field, model_validator

from .clients import client_for
from .frames import WireFrame
from .model import Client, Era, Host, Message, SimServer, State, Strict, ToolDef, Transport
from .spelling import did_you_mean
from .step import Step, changed, listed, msg

# MCP 2025-11-25 (server/tools, "Tool names"): 1 to 128 characters, ASCII letters, digits, '_', '-', '.'.
TOOL_NAME = r"^[A-Za-z0-9_.-]{1,128}$"
# A server's name is what events, goal paths ("servers[name=D]") and the page's table show: short, no spaces.
SERVER_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,23}$"


def _named(pattern: str, what: str) -> Callable[[str], str]:
    def check(name: str) -> str:
        if not re.fullmatch(pattern, name):
            raise ValueError(f"{what} {name!r}: {RULES[what]}")
        return name

    return check


RULES = {
    "tool name": "MCP tool names are 1 to 128 letters, digits, '_', '-' or '.', with no spaces",
    "server name": "a server's name is a letter, then up to 23 letters, digits, '-' or '_'",
}
# The pattern is also in the JSON Schema, for editors; the check says the rule in words.
ToolName = Annotated[
    str, AfterValidator(_named(TOOL_NAME, "tool name")), Field(json_schema_extra={"pattern": TOOL_NAME})
]
ServerName = Annotated[
    str,
    AfterValidator(_named(SERVER_NAME_PATTERN, "server name")),
    Field(json_schema_extra={"pattern": SERVER_NAME_PATTERN}),
]


class ToolSpec(Strict):
    """A tool of a declared server."""

    name: ToolName
    description: Annotated[str, Field(min_length=1)]
    arg: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,31}$")] = "query"
    read_only: bool = False
    idempotent: bool = True
    destructive: bool = False

    def tool(self) -> ToolDef:
        return ToolDef(
            name=self.name,
            description=self.description,
            arg=self.arg,
            read_only=self.read_only,
            idempotent=self.idempotent,
            destructive=self.destructive,
        )


class ServerSpec(Strict):
    """A server a start declares beside its scenario's own."""

    name: ServerName
    title: Annotated[str, Field(min_length=1, max_length=40)]
    transport: Transport = "http"
    tools: list[ToolSpec] = Field(default_factory=list)
    list_changed: bool = True
    configured: bool = False  # in the host's config from the start (connected at step 0); else an admin adds it

    @model_validator(mode="after")
    def _unique_tools(self) -> ServerSpec:
        names = [t.name for t in self.tools]
        if twice := next((n for i, n in enumerate(names) if n in names[:i]), None):
            raise ValueError(f"server {self.name} lists tool {twice!r} twice: a server's tool names are unique")
        return self

    def server(self) -> SimServer:
        return SimServer(
            name=self.name,
            title=self.title,
            transport=self.transport,
            tools=[t.tool() for t in self.tools],
            list_changed=self.list_changed,
        )


class Start(Strict):
    """A start: its name, the era new clients speak, server options, and servers it declares."""

    name: str
    era: Era = "modern"
    options: dict[str, bool | str] = Field(default_factory=dict)
    servers: list[ServerSpec] = Field(default_factory=list)


def _t(name: str, description: str, arg: str = "query", handle: str | None = None, **kw: bool) -> ToolDef:
    return ToolDef(name=name, description=description, arg=arg, handle=handle, **kw)


DOCS = [
    _t("search_docs", "Search the product docs", read_only=True),
    _t("read_page", "Read one docs page", "page", read_only=True),
]
TRACKER = [
    _t("create_ticket", "Create a ticket", "title", idempotent=False),
    _t("assign_ticket", "Assign a ticket to someone", "ticket", idempotent=False),
]
CALENDAR = [
    _t("find_slot", "Find a free meeting slot", "who", read_only=True),
    _t("book_meeting", "Book a meeting", "slot", idempotent=False),
]


def _outage(opts: dict) -> tuple[list[SimServer], list[str]]:
    return [
        SimServer(name="A", title="docs", tools=DOCS),
        SimServer(
            name="B",
            title="tracker",
            tools=TRACKER,
            upcoming=[
                _t("close_ticket", "Close a ticket", "ticket", idempotent=False),
                _t("link_tickets", "Link two tickets", "pair", idempotent=False),
            ],
        ),
        SimServer(name="C", title="calendar", tools=CALENDAR),
    ], ["A", "B"]


def _restart(opts: dict) -> tuple[list[SimServer], list[str]]:
    transport = "stdio" if opts.get("transport") == "stdio" else "http"
    return [
        SimServer(
            name="W",
            title="weather",
            transport=transport,
            auth=True,
            tools=[
                _t("get_forecast", "Forecast for a city", "city", read_only=True),
                _t("send_alert", "Send a weather alert to a team", "team", idempotent=False),
            ],
            issues_session_id=bool(opts.get("issues_session_id", True)),
            event_store=bool(opts.get("event_store", False)),
            sessions_durable=bool(opts.get("sessions_durable", False)),
            state_key_durable=bool(opts.get("state_key_durable", False)),
            auth_in_process=bool(opts.get("auth_in_process", False)),
        )
    ], ["W"]


def _gateway(opts: dict) -> tuple[list[SimServer], list[str]]:
    return [
        SimServer(
            name="G", title="gateway", tools=[], gateway=True, backends=["A", "B"], other_listeners=["host-2", "host-3"]
        ),
        SimServer(name="A", title="docs", tools=DOCS, behind="G"),
        SimServer(name="B", title="tracker", tools=TRACKER, behind="G"),
        SimServer(name="C", title="calendar", tools=CALENDAR),
    ], ["G"]


def _baskets(opts: dict) -> tuple[list[SimServer], list[str]]:
    return [
        SimServer(
            name="S",
            title="shop",
            replicas=2,
            handles_durable=bool(opts.get("handles_durable", True)),
            tools=[
                _t("create_basket", "Create a basket; returns a basket_id", "customer", idempotent=False),
                _t("add_item", "Add an item to a basket", "sku", handle="basket_id", idempotent=False),
            ],
        ),
    ], ["S"]


def _guide(opts: dict) -> tuple[list[SimServer], list[str]]:
    return [
        SimServer(
            name="P",
            title="project-management",
            auth=True,  # signs users in: its tool list varies by who is signed in
            tools=TRACKER
            + [
                _t(
                    "delete_workspace",
                    "Delete the workspace (admins only)",
                    "workspace",
                    idempotent=False,
                    admin_only=True,
                    destructive=True,
                )
            ],
        ),
        SimServer(
            name="Q",
            title="postgres",
            list_changed=False,
            tools=[
                _t("query", "Run a read-only SQL query", "sql", read_only=True),
                _t("list_tables", "List the tables", "schema", read_only=True),
            ],
        ),
    ], ["P", "Q"]


def _eras(opts: dict) -> tuple[list[SimServer], list[str]]:
    # Launched over stdio by the host, neither declares listChanged: the wire shows the greeting alone.
    return [
        SimServer(name="L", title="docs", transport="stdio", speaks=["legacy"], list_changed=False, tools=DOCS),
        SimServer(name="M", title="calendar", transport="stdio", speaks=["modern"], list_changed=False, tools=CALENDAR),
    ], []


# Each start's builder. What a start holds is said once, in the catalogue (``narration.starts.<name>``):
# the narration says it in the reader's language, and the content schema describes the start with it.
STARTS: dict[str, Callable[[dict], tuple[list[SimServer], list[str]]]] = {
    "outage": _outage,
    "restart": _restart,
    "gateway": _gateway,
    "baskets": _baskets,
    "guide": _guide,
    "eras": _eras,
}


def builtin_servers(spec: Start) -> list[str]:
    """The names of the servers the named start brings itself; raises KeyError for an unknown start."""
    if spec.name not in STARTS:
        hint = did_you_mean(spec.name, STARTS)
        raise KeyError(f"unknown start {spec.name!r}{hint} (known: {', '.join(STARTS)})")
    return [s.name for s in STARTS[spec.name](spec.options)[0]]


def declared_problems(spec: Start) -> list[tuple[int, str]]:
    """(index in ``servers``, what is wrong) for each declared server whose name is taken: by a server of
    the named start, or by an earlier declared one. Empty when the start can be built."""
    builtin = builtin_servers(spec)
    out: list[tuple[int, str]] = []
    seen: list[str] = []
    for n, server in enumerate(spec.servers):
        if server.name in builtin:
            why = f"is already a server of start {spec.name!r} ({', '.join(builtin)})"
            out.append((n, f"server {server.name!r} {why}: give the declared server another name"))
        elif server.name in seen:
            out.append((n, f"server {server.name!r} is declared twice: each server needs a name of its own"))
        seen.append(server.name)
    return out


def summary(spec: Start) -> dict[str, Any]:
    """One sentence on where a start begins, as a message: the named start's summary, then the servers it declares."""
    text = msg(f"narration.starts.{spec.name}")
    if not spec.servers:
        return text
    declared = [
        msg(f"narration.declared.{'configured' if s.configured else 'not_configured'}", server=s.name, title=s.title)
        for s in spec.servers
    ]
    return msg("narration.starts.declared_here", summary=text, servers=listed(declared))


def start(spec: Start) -> State:
    """Build the start's first state: every configured client already connected and listed."""
    return opening(spec)[0]


def opening(spec: Start) -> tuple[State, list[WireFrame]]:
    """The start's first state and the frames its opening sent (each client's greeting, stream and first list)."""
    if problems := declared_problems(spec):
        raise ValueError(problems[0][1])
    servers, configured = STARTS[spec.name](spec.options)
    servers += [s.server() for s in spec.servers]
    configured += [s.name for s in spec.servers if s.configured]
    host = Host(
        era=spec.era,
        configured=configured,
        auto_listen=spec.name != "restart" or bool(spec.options.get("listen")),
        dual_era=bool(spec.options.get("dual_era")),
        conversation=[Message(role="user", text="Help me get release 2.0 out of the door.")],
    )
    state = State(start=spec.name, host=host, servers={s.name: s for s in servers})
    st = Step(state)
    for name in configured:
        c = Client(server=name, era=spec.era)
        st.s.host.clients[name] = c
        client_for(st, c).connect()
        c.last_change = changed(0, msg("narration.table.connected"))
    st.s.host.pending_changes = 0
    return st.done(), st.frames
