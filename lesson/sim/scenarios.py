"""Named start scenarios: the servers, the host's config, and the clients already connected."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from .clients import client_for
from .frames import Frame
from .model import Client, Era, Host, Message, SimServer, State, Strict, ToolDef
from .step import Step


class Start(Strict):
    """A start scenario: its name, the era new clients speak, and server options."""

    name: str
    era: Era = "modern"
    options: dict[str, bool | str] = Field(default_factory=dict)


def _t(name: str, description: str, arg: str = "query", **kw: bool) -> ToolDef:
    return ToolDef(name=name, description=description, arg=arg, **kw)


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
                _t("add_item", "Add an item to a basket", "sku", idempotent=False),
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


SCENARIOS: dict[str, tuple[str, Callable[[dict], tuple[list[SimServer], list[str]]]]] = {
    "outage": ("Servers A and B, each with a stream open for change notices; C exists but is not configured", _outage),
    "restart": ("One server, W, with nothing open yet: set up a situation, then restart it", _restart),
    "gateway": ("One client, to gateway G, which fronts A and B; C can join", _gateway),
    "baskets": ("A shop server S with two replicas and explicit basket handles", _baskets),
    "guide": ("A project-management server P (declares listChanged) and a postgres server Q (does not)", _guide),
    "eras": ("No server configured yet: L speaks only 2025-11-25, M only 2026-07-28, both over stdio", _eras),
}


def start(spec: Start) -> State:
    """Build the scenario's first state: every configured client already connected and listed."""
    return opening(spec)[0]


def opening(spec: Start) -> tuple[State, list[Frame]]:
    """The scenario's first state and the frames its opening sent (each client's greeting, stream and first list)."""
    if spec.name not in SCENARIOS:
        raise KeyError(f"unknown scenario {spec.name!r}; known: {', '.join(SCENARIOS)}")
    servers, configured = SCENARIOS[spec.name][1](spec.options)
    host = Host(
        era=spec.era,
        configured=configured,
        auto_listen=spec.name != "restart" or bool(spec.options.get("listen")),
        dual_era=bool(spec.options.get("dual_era")),
        conversation=[Message(role="user", text="Help me get release 2.0 out of the door.")],
    )
    state = State(scenario=spec.name, host=host, servers={s.name: s for s in servers})
    st = Step(state)
    for name in configured:
        c = Client(server=name, era=spec.era)
        st.s.host.clients[name] = c
        client_for(st, c).connect()
        c.last_change = "step 0: connected"
    st.s.host.pending_changes = 0
    return st.done(), st.frames
