"""Properties that hold after any sequence of presses, in both eras."""

from __future__ import annotations

import typing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from pydantic_core import to_json

from lesson.playground.runcache import compact
from lesson.sim import Run, Start, State, advance, at_step, begin, run_from_start, start, undo, view
from lesson.sim import events as ev

from .support import ERAS, codes, label, wire
from .wire_rules import WireWatch

STATE = TypeAdapter(State)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _start_names(start_name: str) -> tuple[list[str], list[str]]:
    state = start(Start(name=start_name))
    tools = sorted({t.name for s in state.servers.values() for t in s.tools + s.upcoming})
    return sorted(state.servers), tools


def builders(start_name: str) -> dict[type, st.SearchStrategy]:
    """A strategy per event class, with the start's server and tool names (and names that do not exist)."""
    names, tool_names = _start_names(start_name)
    server = st.sampled_from(names * 3 + ["Z"])
    tool = st.sampled_from(tool_names + ["no_such_tool"])
    call = st.builds(ev.ToolCall, server=server, tool=tool)
    via = st.sampled_from(["config", "admin console", "gateway"])
    transport = st.sampled_from([None, None, "http", "stdio"])
    return {
        ev.DeployTool: st.builds(ev.DeployTool, server=server, tool=st.none()),
        ev.RemoveTool: st.builds(ev.RemoveTool, server=server, tool=tool),
        ev.AddServer: st.builds(ev.AddServer, server=server, via=via),
        ev.RemoveServer: st.builds(ev.RemoveServer, server=server),
        ev.ServerDies: st.builds(ev.ServerDies, server=server),
        ev.ServerBack: st.builds(ev.ServerBack, server=server, transport=transport),
        ev.RestartServer: st.builds(ev.RestartServer, server=server),
        ev.TakeTurn: st.builds(ev.TakeTurn, calls=st.none() | st.lists(call, max_size=3)),
        ev.StartCall: st.builds(ev.StartCall, server=server, tool=st.none() | tool),
        ev.AskUserInput: st.builds(ev.AskUserInput, server=server, tool=st.none() | tool),
        ev.UserAnswers: st.builds(
            ev.UserAnswers, server=server, answer=st.sampled_from(["OR", "ME"]), after_expiry=st.booleans()
        ),
        ev.ListenDrops: st.builds(ev.ListenDrops, server=server),
        ev.TokenExpires: st.builds(ev.TokenExpires, server=server),
        ev.TokenRefreshed: st.builds(ev.TokenRefreshed, server=server),
        ev.SwitchEra: st.builds(ev.SwitchEra, era=st.sampled_from(ERAS), server=st.none() | server),
        ev.BackendJoins: st.builds(ev.BackendJoins, gateway=server, backend=server),
        ev.BackendLeaves: st.builds(ev.BackendLeaves, gateway=server, backend=server),
        ev.BackendFailsHealthCheck: st.builds(ev.BackendFailsHealthCheck, gateway=server, backend=server),
        ev.BackendRecovers: st.builds(ev.BackendRecovers, gateway=server, backend=server),
        ev.CreateBasket: st.builds(ev.CreateBasket, server=server),
        ev.AddItem: st.builds(
            ev.AddItem, server=server, sku=st.sampled_from(["A-100", "B-200"]), basket_id=st.none() | st.just("bsk_0")
        ),
        ev.LandOnReplica: st.builds(ev.LandOnReplica, server=server, replica=st.integers(1, 3)),
        ev.UndeclaredListChanged: st.builds(ev.UndeclaredListChanged, server=server),
        ev.TimerListChanged: st.builds(ev.TimerListChanged, server=server),
        ev.SetBatching: st.builds(ev.SetBatching, on=st.booleans()),
        ev.Reauthenticate: st.builds(ev.Reauthenticate, server=server, role=st.sampled_from(["member", "admin"])),
    }


def event_strategy(start_name: str) -> st.SearchStrategy[ev.Event]:
    return st.one_of(*builders(start_name).values())


def _event_classes() -> set[type]:
    union = typing.get_args(ev.Event)[0]
    return set(typing.get_args(union))


@pytest.mark.parametrize("start_name", ["outage", "gateway", "restart", "baskets", "guide", "eras"])
def test_the_strategy_covers_every_event_class(start_name: str) -> None:
    assert set(builders(start_name)) == _event_classes()


def check_step(prev: Run, run: Run, event: ev.Event, *, fresh: bool) -> None:
    s, v = run.state, view(run)

    # the conversation is never lost
    before = prev.state.host.conversation
    assert s.host.conversation[: len(before)] == before

    # only AddServer gives the host a new client
    added = set(s.host.clients) - set(prev.state.host.clients)
    if added:
        assert isinstance(event, ev.AddServer) and added == {event.server}

    # nothing the host cannot use, or the gateway hides, is in the prompt
    for r in v.servers:
        if r.status != "connected":
            shown = [t for t in v.next_prompt.tools if t.server == r.name]
            assert shown == [], f"{r.name} is {r.status} but {shown} are in the next prompt"
    for gw in [srv for srv in s.servers.values() if srv.gateway]:
        shown = [t for t in v.next_prompt.tools if t.server == gw.name and t.origin in gw.unhealthy]
        assert shown == [], f"{gw.name} hides {gw.unhealthy} but {shown} are in the next prompt"

    # every tool in the prompt comes from a connected client with an up-to-date list
    for t in v.next_prompt.tools:
        c, srv = s.host.clients[t.server], s.servers[t.server]
        assert c.status == "connected"
        assert t.name in [x.name for x in c.tools]
        if fresh and srv.list_changed:
            assert c.listed_seq == srv.change_seq, f"{t.server} changed after it was last listed"
            assert c.listed_generation == srv.generation, f"{t.server} restarted after it was last listed"

    # a call still running when its connection is dropped (era switch, removal) ends with a host-built error
    if isinstance(event, (ev.RemoveServer, ev.SwitchEra)) and not run.last.rejected:
        dropped = [
            c for n, c in prev.state.host.clients.items() if n not in s.host.clients or c.era != s.host.clients[n].era
        ]
        running = sum(len(c.in_flight) for c in dropped)
        built = [m for m in run.last.wire if m.kind == "host_built"]
        assert len(built) >= running, f"{running} calls were running, {len(built)} host-built errors"

    # plain data: JSON round trips are exact (a view's log lines leave their values in the run)
    assert STATE.validate_json(STATE.dump_json(s)) == s
    assert STATE.validate_json(STATE.dump_json(run.twin)) == run.twin
    assert type(v).model_validate_json(v.model_dump_json()).model_dump() == v.model_dump()

    # every step says something, in both eras
    assert run.log[-1].step == s.step == prev.state.step + 1
    assert run.log[-1].lines and run.other.lines
    assert [(x.code, x.params) for x in v.log[-1].lines] == [(x.code, x.params) for x in run.last.lines]


def drive(spec: Start, events: list[ev.Event], *, fresh: bool) -> list[Run]:
    runs = [begin(spec)]
    watch = WireWatch()
    for event in events:
        prev = runs[-1]
        frozen = (to_json(prev.state), to_json(prev.twin))
        run = advance(prev, event)  # never raises: a senseless press is a rejected outcome
        assert (to_json(prev.state), to_json(prev.twin)) == frozen, "apply changed its input"
        check_step(prev, run, event, fresh=fresh)
        watch.check(run, prev, event)
        runs.append(run)
    return runs


def check_history(runs: list[Run]) -> None:
    last = runs[-1]
    # A cached run drops its log history and outcomes: never a change of its states, nor of any step after.
    for run in runs:
        before = (to_json(run.state), to_json(run.twin))
        kept = compact(run)
        assert (to_json(kept.state), to_json(kept.twin)) == before
        assert advance(kept, ev.TakeTurn()).state == advance(run, ev.TakeTurn()).state
    assert run_from_start(last.playground) == last
    if len(runs) > 1:
        assert undo(last) == runs[-2]
    for n in sorted({0, len(runs) // 2, len(runs) - 1}):
        assert at_step(last, n) == runs[n], f"at_step({n}) differs from the run at step {n}"


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("start_name", ["outage", "gateway"])
@SETTINGS
@given(data=st.data())
def test_any_sequence_keeps_the_invariants(start_name: str, era: str, data: st.DataObject) -> None:
    events = data.draw(st.lists(event_strategy(start_name), max_size=25), label="events")
    runs = drive(Start(name=start_name, era=era), events, fresh=True)
    check_history(runs)


OPTIONS = {
    "restart": st.fixed_dictionaries(
        {
            k: st.booleans()
            for k in (
                "listen",
                "issues_session_id",
                "event_store",
                "sessions_durable",
                "state_key_durable",
                "auth_in_process",
            )
        },
        optional={"transport": st.sampled_from(["http", "stdio"])},
    ),
    "baskets": st.fixed_dictionaries({"handles_durable": st.booleans()}),
    "guide": st.just({}),
    "eras": st.fixed_dictionaries({"dual_era": st.booleans()}),
}


@SETTINGS
@given(data=st.data())
def test_other_starts_keep_the_invariants(data: st.DataObject) -> None:
    start_name = data.draw(st.sampled_from(sorted(OPTIONS)), label="start")
    era = data.draw(st.sampled_from(ERAS), label="era")
    options = data.draw(OPTIONS[start_name], label="options")
    events = data.draw(st.lists(event_strategy(start_name), max_size=25), label="events")
    # without an open listen stream the host learns of a change only when it next asks, by design
    fresh = start_name != "restart" or bool(options.get("listen"))
    runs = drive(Start(name=start_name, era=era, options=options), events, fresh=fresh)
    check_history(runs)


def test_a_sessionless_legacy_server_back_on_the_same_endpoint_needs_no_new_initialize() -> None:
    """Found by the property above: W, which never issued a session id, dies and comes back over
    HTTP; the legacy client carries on with tools/list, which the wire rules must allow."""
    options = {"listen": False, "issues_session_id": False}
    events = [ev.ServerDies(server="W"), ev.TakeTurn(), ev.ServerBack(server="W", transport="http")]
    runs = drive(Start(name="restart", era="legacy", options=options), events, fresh=False)
    check_history(runs)
    first = next(m for m in runs[-1].last.wire if m.sender == "host" and m.on_wire)
    assert first.payload["method"] == "tools/list"


# Sequences that once broke a wire rule above, each with the rule it broke: kept so that the rule is proven to
# catch it (run against the code before each fix, each fails).
FOUND = {
    "auth before session work: a revoked token's first answer is 401": (
        "legacy",
        {"listen": True, "auth_in_process": True},
        [ev.StartCall(server="W", tool="get_forecast"), ev.RestartServer(server="W")],
    ),
    "auth before session work: an expired token's first answer is 401": (
        "legacy",
        {"listen": True},
        [ev.TokenExpires(server="W"), ev.RestartServer(server="W")],
    ),
    "a bearer token on every request to a server that wants one; a refused token never again": (
        "legacy",
        {"listen": True},
        [ev.TokenExpires(server="W"), ev.RestartServer(server="W")],
    ),
    "a bearer token on every request after signing in again": (
        "modern",
        {"listen": True, "auth_in_process": True},
        [ev.RestartServer(server="W"), ev.TokenRefreshed(server="W"), ev.TakeTurn()],
    ),
    "resume only from an id the stream sent": (
        "legacy",
        {"listen": True, "sessions_durable": True, "event_store": True},
        [ev.StartCall(server="W", tool="get_forecast"), ev.RestartServer(server="W")],
    ),
    "resume the listen stream only from an id it sent": (
        "legacy",
        {"listen": True, "event_store": True},
        [ev.ListenDrops(server="W")],
    ),
    "nothing sent to a process that never asked": (
        "legacy",
        {"listen": True, "transport": "stdio"},
        [ev.AskUserInput(server="W"), ev.RestartServer(server="W"), ev.UserAnswers(server="W")],
    ),
    "no GET to reopen a stream that was never opened": (
        "legacy",
        {"listen": False},
        [ev.StartCall(server="W", tool="get_forecast"), ev.RestartServer(server="W")],
    ),
    "a server removed and added again signs in afresh: never a token it refused": (
        "legacy",
        {"listen": True},
        [ev.TokenExpires(server="W"), ev.RemoveServer(server="W"), ev.AddServer(server="W")],
    ),
    "a call still running on a dropped connection ends with a host-built error": (
        "modern",
        {},
        [ev.StartCall(server="W", tool="get_forecast"), ev.RemoveServer(server="W")],
    ),
}


def test_a_call_s_broken_stream_is_resumed_with_a_get_even_without_a_listen_stream() -> None:
    """2025-11-25 resumability: a client that never opened a GET stream may still GET with Last-Event-ID
    to resume a call's broken response stream, here after a restart that kept the session and the events
    outside the process. The wire rules allow that GET, and the call's answer comes back on it."""
    options = {"listen": False, "sessions_durable": True, "event_store": True}
    events = [ev.StartCall(server="W", tool="get_forecast"), ev.RestartServer(server="W")]
    last = drive(Start(name="restart", era="legacy", options=options), events, fresh=False)[-1].last
    gets = [f for f in last.wire if f.kind == "http_request" and f.method == "GET"]
    assert [g.headers.get("Last-Event-ID") for g in gets] == ["1"]
    assert any(f.kind == "sse_event" and f.payload.get("id") == 3 and "result" in f.payload for f in last.wire)


@pytest.mark.parametrize("name", sorted(FOUND))
def test_the_wire_rules_hold_on_the_sequences_that_broke_them(name: str) -> None:
    era, options, events = FOUND[name]
    check_history(drive(Start(name="restart", era=era, options=options), events, fresh=False))


@pytest.mark.parametrize(
    ("era", "before"),
    [("legacy", []), ("legacy", [ev.TakeTurn()]), ("modern", [ev.TakeTurn()])],
    ids=["legacy-delete-401", "legacy-call-401", "modern-call-401"],
)
def test_after_a_401_for_good_a_new_era_waits_for_sign_in(era: str, before: list[ev.Event]) -> None:
    """Found by the property above: a restart took W's in-process tokens, and W refused the token with
    401 (the legacy client's DELETE as it leaves, or an earlier call). The new era's connection must not
    carry that token again; it opens, with the new era's greeting, once the user signs in."""
    options = {"listen": False, "issues_session_id": True, "auth_in_process": True}
    other = "modern" if era == "legacy" else "legacy"
    events = [ev.RestartServer(server="W"), *before, ev.SwitchEra(era=other), ev.TokenRefreshed(server="W")]
    # drive's WireWatch fails the test if a token refused with 401 is sent again
    runs = drive(Start(name="restart", era=era, options=options), events, fresh=False)
    switched, signed_in = runs[-2], runs[-1]
    assert switched.state.host.clients["W"].status == "signed_out"
    assert "narration.era_waits_for_sign_in" in codes(switched)
    assert not [m for m in wire(switched) if m.sender == "host" and m.on_wire and m.method == "POST"]
    client = signed_in.state.host.clients["W"]
    assert (client.era, client.status) == (other, "connected")
    first = next(m for m in wire(signed_in) if m.sender == "host" and m.on_wire)
    assert label(first) == ("server/discover" if other == "modern" else "initialize")
