"""Every wire message the simulation emits, in both eras and every start, against the official schemas."""

from __future__ import annotations

import copy
import functools
import json
import typing
from dataclasses import dataclass, field

import pytest

from lesson.sim import Run, Start, advance, begin
from lesson.sim import events as ev
from lesson.sim.frames import WireFrame
from lesson.sim.model import VERSION, ToolDef
from lesson.sim.wire import CHECKS
from tests import schemas

from .support import ERAS

# --- the sweep: stories per start, and every kind of press tried at every point of each story ----------


def stories() -> dict[str, list[ev.Event]]:
    return {
        "outage": [
            ev.TakeTurn(),
            ev.DeployTool(server="B"),
            ev.TakeTurn(),
            ev.ServerDies(server="A"),
            ev.TakeTurn(),
            ev.ServerBack(server="A"),
            ev.AddServer(server="C"),
            ev.StartCall(server="A"),
            ev.RestartServer(server="A"),
            ev.AskUserInput(server="B"),
            ev.RestartServer(server="B"),
            ev.UserAnswers(server="B"),
            ev.TokenExpires(server="A"),
            ev.TakeTurn(),
            ev.ListenDrops(server="B"),
            ev.SetBatching(on=True),
            ev.DeployTool(server="B"),
            ev.TakeTurn(),
        ],
        "restart": [
            ev.StartCall(server="W", tool="get_forecast"),
            ev.StartCall(server="W", tool="send_alert"),
            ev.RestartServer(server="W"),
            ev.AskUserInput(server="W"),
            ev.RestartServer(server="W"),
            ev.UserAnswers(server="W"),
            ev.TakeTurn(),
            ev.TokenExpires(server="W"),
            ev.TakeTurn(),
            ev.ServerDies(server="W"),
            ev.TakeTurn(),
            ev.ServerBack(server="W"),
            ev.ListenDrops(server="W"),
        ],
        "gateway": [
            ev.TakeTurn(),
            ev.BackendFailsHealthCheck(gateway="G", backend="A"),
            ev.TakeTurn(),
            ev.BackendJoins(gateway="G", backend="C"),
            ev.ServerDies(server="B"),
            ev.TakeTurn(),
            ev.BackendRecovers(gateway="G", backend="A"),
            ev.BackendLeaves(gateway="G", backend="C"),
            ev.RestartServer(server="G"),
            ev.StartCall(server="G"),
            ev.ServerDies(server="G"),
            ev.ServerBack(server="G"),
        ],
        "baskets": [
            ev.CreateBasket(server="S"),
            ev.AddItem(server="S"),
            ev.RestartServer(server="S"),
            ev.AddItem(server="S"),
            ev.LandOnReplica(server="S", replica=2),
            ev.AddItem(server="S"),
            ev.TakeTurn(),
        ],
        "guide": [
            ev.UndeclaredListChanged(server="Q"),
            ev.TimerListChanged(server="P"),
            ev.Reauthenticate(server="P", role="admin"),
            ev.TakeTurn(),
            ev.DeployTool(server="Q", tool=ToolDef(name="explain", description="Explain a query", arg="sql")),
            ev.ListenDrops(server="P"),
            ev.RestartServer(server="Q"),
            ev.TakeTurn(),
            ev.Reauthenticate(server="Q", role="admin"),
        ],
    }


MAIN = {"outage": "B", "restart": "W", "gateway": "G", "baskets": "S", "guide": "P"}
SECOND = {"outage": "C", "restart": "W", "gateway": "C", "baskets": "S", "guide": "Q"}


def menu(start_name: str) -> list[ev.Event]:
    """One press of every kind, with names that make sense at the start."""
    s, other = MAIN[start_name], SECOND[start_name]
    return [
        ev.DeployTool(server=s),
        ev.DeployTool(server=s, tool=ToolDef(name="fresh_tool", description="A fresh tool")),
        ev.RemoveTool(server=s, tool="create_ticket"),
        ev.RemoveTool(server="A", tool="search_docs"),
        ev.AddServer(server=other),
        ev.RemoveServer(server=s),
        ev.ServerDies(server=s),
        ev.ServerBack(server=s),
        ev.ServerBack(server=s, transport="stdio"),
        ev.RestartServer(server=s),
        ev.TakeTurn(),
        ev.TakeTurn(calls=[ev.ToolCall(server=s, tool="no_such_tool")]),
        ev.StartCall(server=s),
        ev.AskUserInput(server=s),
        ev.UserAnswers(server=s),
        ev.UserAnswers(server=s, after_expiry=True),
        ev.ListenDrops(server=s),
        ev.TokenExpires(server=s),
        ev.TokenRefreshed(server=s),
        ev.SwitchEra(era="legacy"),
        ev.SwitchEra(era="modern"),
        ev.SwitchEra(era="legacy", server=s),
        ev.BackendJoins(gateway="G", backend="C"),
        ev.BackendLeaves(gateway="G", backend="A"),
        ev.BackendFailsHealthCheck(gateway="G", backend="B"),
        ev.BackendRecovers(gateway="G", backend="A"),
        ev.CreateBasket(server=s),
        ev.AddItem(server=s),
        ev.AddItem(server=s, basket_id="bsk_gone"),
        ev.LandOnReplica(server=s, replica=2),
        ev.UndeclaredListChanged(server=other),
        ev.TimerListChanged(server=s),
        ev.SetBatching(on=True),
        ev.Reauthenticate(server=s, role="admin"),
    ]


VARIANTS: list[tuple[str, dict[str, bool | str]]] = [
    ("outage", {}),
    ("gateway", {}),
    ("baskets", {}),
    ("baskets", {"handles_durable": False}),
    ("guide", {}),
    ("restart", {}),
    ("restart", {"listen": True}),
    ("restart", {"issues_session_id": False}),
    ("restart", {"issues_session_id": False, "listen": True}),
    ("restart", {"event_store": True}),
    ("restart", {"sessions_durable": True, "event_store": True}),
    ("restart", {"listen": True, "sessions_durable": True, "event_store": True}),
    ("restart", {"state_key_durable": True}),
    ("restart", {"auth_in_process": True}),
    ("restart", {"transport": "stdio"}),
    ("restart", {"transport": "stdio", "listen": True}),
]
CASES = [(name, opts, era) for name, opts in VARIANTS for era in ERAS]


def case_id(case: tuple[str, dict, str]) -> str:
    name, opts, era = case
    return "-".join([name, era, *(f"{k}={v}" for k, v in sorted(opts.items()))])


@dataclass
class Sweep:
    messages: list[WireFrame] = field(default_factory=list)
    accepted: set[str] = field(default_factory=set)  # event kinds that had an effect
    driven: set[str] = field(default_factory=set)


def _collect(out: Sweep, run: Run, event: ev.Event) -> None:
    out.driven.add(event.kind)
    if not run.last.rejected:
        out.accepted.add(event.kind)
    out.messages += run.last.wire + run.other.wire


@functools.cache
def sweep(case: tuple[str, tuple[tuple[str, bool | str], ...], str]) -> Sweep:
    name, opts, era = case
    out = Sweep()
    run = begin(Start(name=name, era=era, options=dict(opts)))
    for event in stories()[name]:
        for press in menu(name):
            _collect(out, advance(run, press), press)
        run = advance(run, event)
        _collect(out, run, event)
    for press in menu(name):
        _collect(out, advance(run, press), press)
    return out


def swept(case: tuple[str, dict, str]) -> Sweep:
    name, opts, era = case
    return sweep((name, tuple(sorted(opts.items())), era))


def everything() -> Sweep:
    total = Sweep()
    for case in CASES:
        s = swept(case)
        total.messages += s.messages
        total.accepted |= s.accepted
        total.driven |= s.driven
    return total


def unique(msgs: list[WireFrame]) -> list[WireFrame]:
    seen: dict[str, WireFrame] = {}
    for m in msgs:
        key = json.dumps([m.era, m.payload, [c.model_dump() for c in m.checks]], sort_keys=True)
        seen.setdefault(key, m)
    return list(seen.values())


# --- conformance -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_emitted_message_validates_against_its_era_schema(case: tuple[str, dict, str]) -> None:
    msgs = unique(swept(case).messages)
    assert msgs
    failures = []
    for m in msgs:
        if m.payload is None:
            assert m.checks == [], "a message without a payload has nothing to check"
            continue
        assert m.checks, f"no schema check for {m.http} {json.dumps(m.payload)[:120]}"
        assert m.era in ERAS
        for check in m.checks:
            errs = schemas.errors(m.payload, m.era, check.definition, check.pointer)
            if errs:
                failures.append(f"{m.era} {check.definition}{check.pointer}: {errs[0]}\n  {json.dumps(m.payload)}")
    assert not failures, "\n".join(failures)


def test_every_event_kind_is_driven_and_has_an_effect_somewhere() -> None:
    union = typing.get_args(ev.Event)[0]
    kinds = {cls.model_fields["kind"].default for cls in typing.get_args(union)}
    total = everything()
    assert total.driven == kinds
    assert total.accepted == kinds, f"never accepted: {sorted(kinds - total.accepted)}"


def test_every_check_in_the_table_is_exercised() -> None:
    used = {(m.era, tuple((c.definition, c.pointer) for c in m.checks)) for m in everything().messages}
    unused = {key for key, cs in CHECKS.items() if (key[0], tuple((c.definition, c.pointer) for c in cs)) not in used}
    assert unused == set()


def test_every_check_names_a_definition_of_both_validators() -> None:
    pairs = {(era, c.definition) for (era, _), cs in CHECKS.items() for c in cs}
    pairs |= {(m.era, c.definition) for m in everything().messages for c in m.checks}
    for era, definition in sorted(pairs):
        schemas._model_errors({}, era, definition)  # raises KeyError for a name the fallback cannot check
        if schemas.have_shared_schemas():
            assert definition in schemas._schema(era)["$defs"], f"{VERSION[era]} schema has no {definition}"


# --- negative controls: the validators do reject bad messages -------------------------------------------------

official = pytest.mark.skipif(not schemas.have_shared_schemas(), reason="needs ../shared/mcp-schema")

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
BAD = [
    ("modern", "ListToolsRequest", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ("modern", "CallToolRequest", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}),
    (
        "modern",
        "ListToolsResultResponse",
        {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": [], "cacheScope": "public"}},
    ),
    ("modern", "CallToolResult", {"content": [{"type": "text", "text": "no resultType"}]}),
    (
        "modern",
        "SubscriptionsListenRequest",
        {"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {"_meta": META}},
    ),
    ("legacy", "JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "x"}}),
    (
        "legacy",
        "InitializeRequest",
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
    ),
    ("legacy", "ElicitResult", {"action": "maybe"}),
]


@official
@pytest.mark.parametrize(("era", "definition", "payload"), BAD, ids=[f"{e}-{d}" for e, d, _ in BAD])
def test_official_schema_rejects_bad_messages(era: str, definition: str, payload: dict) -> None:
    assert schemas.errors(payload, era, definition) != []


def _spoiled(m: WireFrame, pointer: str) -> dict:
    bad = copy.deepcopy(m.payload)
    if pointer:
        bad["result"] = {"content": "not a list", "resultType": 7, "tools": 7, "action": 7, "protocolVersion": 7}
    elif "jsonrpc" in bad:
        bad["jsonrpc"] = "1.0"
    else:
        bad["content"] = "not a list"
    return bad


@official
def test_official_schema_rejects_every_emitted_message_once_spoiled() -> None:
    for m in unique(everything().messages):
        for check in m.checks:
            assert schemas.errors(_spoiled(m, check.pointer), m.era, check.definition, check.pointer), (
                f"{check.definition}{check.pointer} accepted a spoiled {json.dumps(m.payload)[:100]}"
            )


# --- the fallback: mcp-types wire models, used when ../shared is absent ------------------------------------------


@pytest.fixture
def fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schemas, "have_shared_schemas", lambda: False)

    def no_json_schema(*args: object) -> None:
        raise AssertionError("the fallback must not read the official schema")

    monkeypatch.setattr(schemas, "_validator", no_json_schema)


def _one_per_definition() -> list[tuple[WireFrame, str, str]]:
    picked: dict[tuple[str, str, str], WireFrame] = {}
    for m in everything().messages:
        for c in m.checks:
            picked.setdefault((m.era, c.definition, c.pointer), m)
    return [(m, d, p) for (_, d, p), m in sorted(picked.items())]


@pytest.mark.usefixtures("fallback")
def test_fallback_accepts_what_the_official_schema_accepts() -> None:
    sample = [(m.payload, m.era, d, p) for m, d, p in _one_per_definition()]
    assert {(e, d, p) for _, e, d, p in sample} == {
        (e, c.definition, c.pointer) for (e, _), cs in CHECKS.items() for c in cs
    }
    for payload, era, definition, pointer in sample:
        assert schemas.errors(payload, era, definition, pointer) == [], f"{era} {definition}"


@pytest.mark.usefixtures("fallback")
@pytest.mark.parametrize(("era", "definition", "payload"), BAD, ids=[f"{e}-{d}" for e, d, _ in BAD])
def test_fallback_rejects_bad_messages(era: str, definition: str, payload: dict) -> None:
    assert schemas.errors(payload, era, definition) != []


@pytest.mark.usefixtures("fallback")
def test_fallback_rejects_a_modern_request_without_meta() -> None:
    bad = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert schemas.errors(bad, "modern", "ListToolsRequest") != []
    good = next(m for m, d, _ in _one_per_definition() if m.era == "modern" and d == "ListToolsRequest")
    assert schemas.errors(good.payload, "modern", "ListToolsRequest") == []


@pytest.mark.usefixtures("fallback")
def test_fallback_rejects_spoiled_json_rpc() -> None:
    for m, definition, pointer in _one_per_definition():
        if pointer == "" and "jsonrpc" in m.payload:
            assert schemas.errors(_spoiled(m, ""), m.era, definition) != [], f"{definition} took jsonrpc 1.0"
