"""The lesson's rules, checked on what the simulation shows and sends, in both eras.

Expected behaviour comes from ../shared/mcp-facts.md, not from the code's own output.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from lesson.sim import Run, View, view
from lesson.sim.events import (
    AddItem,
    AddServer,
    AskUserInput,
    BackendFailsHealthCheck,
    BackendJoins,
    BackendRecovers,
    CreateBasket,
    DeployTool,
    Event,
    LandOnReplica,
    ListenDrops,
    Reauthenticate,
    RemoveTool,
    RestartServer,
    ServerBack,
    ServerDies,
    SetBatching,
    StartCall,
    SwitchEra,
    TakeTurn,
    TimerListChanged,
    TokenRefreshed,
    ToolCall,
    UndeclaredListChanged,
    UserAnswers,
)
from lesson.sim.frames import WireFrame
from lesson.sim.model import ToolDef
from tests.schemas import errors

from .support import ERAS, codes, in_order, index, label, labels, last_change, play, prompt, row, step, sub_id, wire

era_param = pytest.mark.parametrize("era", ERAS)

SESSION_NOT_FOUND = {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Session not found"}}

ROOT = Path(__file__).resolve().parents[2]


def tool_names(msg: WireFrame) -> list[str]:
    return [t["name"] for t in msg.payload["result"]["tools"]]


# --- 1. new servers are never discovered ---------------------------------------------------------


@era_param
def test_c_exists_but_no_event_other_than_add_server_brings_it_in(era: str) -> None:
    run = play("outage", era)
    assert "C" in run.state.servers  # the server runs...
    churn = [
        TakeTurn(),
        DeployTool(server="B"),
        ServerDies(server="A"),
        TakeTurn(),
        ServerBack(server="A"),
        RestartServer(server="B"),
        ListenDrops(server="B"),
        TakeTurn(),
    ]
    for event in churn:
        run, v = step(run, event)
        assert all(server != "C" for _, server in prompt(v))
        assert "C" not in [r.name for r in v.servers]
        assert all("C" not in (m.sender, m.receiver) for m in wire(run))
    assert set(run.state.host.clients) == {"A", "B"}

    run, v = step(run, AddServer(server="C"))
    assert ("find_slot", "C") in prompt(v) and ("book_meeting", "C") in prompt(v)
    assert row(v, "C").status == "connected"
    assert set(run.state.host.clients) == {"A", "B", "C"}


@era_param
def test_add_server_talks_only_to_the_server_it_was_told_about(era: str) -> None:
    run, _ = step(play("outage", era), AddServer(server="C", via="admin console"))
    msgs = wire(run)
    assert msgs, "connecting a new client sends something"
    assert {m.receiver for m in msgs if m.sender == "host"} == {"C"}
    assert {m.sender for m in msgs if m.receiver == "host"} == {"C"}
    first = "server/discover" if era == "modern" else "initialize"
    assert labels(msgs)[0] == first
    assert labels(msgs).count(first) == 1
    if era == "modern":
        assert "initialize" not in labels(msgs)
    else:
        assert "server/discover" not in labels(msgs)


# --- 2. live tool change ---------------------------------------------------------------------------


def test_modern_list_changed_carries_the_listen_request_id_then_relists() -> None:
    run = play("outage", "modern")
    listen_id = run.state.host.clients["B"].listen.request_id
    listen = row(view(run), "B").listen
    assert listen_id is not None and listen.params == {"id": listen_id}
    assert listen.code == "narration.table.listen.acknowledged"
    run, _ = step(run, DeployTool(server="B"))
    msgs = wire(run)
    i_changed, i_list, i_result = in_order(msgs, "notifications/tools/list_changed", "tools/list", "result")
    assert msgs[i_changed].sender == "B" and sub_id(msgs[i_changed]) == listen_id
    assert msgs[i_list].receiver == "B" and msgs[i_result].sender == "B"
    assert msgs[i_result].payload["id"] == msgs[i_list].payload["id"]
    assert "close_ticket" in tool_names(msgs[i_result])


def test_modern_new_listen_stream_is_acknowledged_first_and_its_id_is_used() -> None:
    run, _ = step(play("outage", "modern"), RestartServer(server="B"))
    msgs = wire(run)
    i_listen = index(msgs, "subscriptions/listen", receiver="B")
    assert i_listen >= 0
    listen_id = msgs[i_listen].payload["id"]
    assert msgs[i_listen].payload["params"]["notifications"] == {"toolsListChanged": True}
    first_from_b = next(m for m in msgs[i_listen + 1 :] if m.sender == "B")
    assert label(first_from_b) == "notifications/subscriptions/acknowledged"
    assert sub_id(first_from_b) == listen_id

    run, _ = step(run, DeployTool(server="B"))
    changed = [m for m in wire(run) if label(m) == "notifications/tools/list_changed"]
    assert [sub_id(m) for m in changed] == [listen_id]


def test_legacy_list_changed_has_no_subscription_id_then_relists() -> None:
    run, _ = step(play("outage", "legacy"), DeployTool(server="B"))
    msgs = wire(run)
    i_changed, i_list, i_result = in_order(msgs, "notifications/tools/list_changed", "tools/list", "result")
    assert msgs[i_changed].sender == "B"
    assert sub_id(msgs[i_changed]) is None
    assert "subscriptions/listen" not in labels(msgs)
    assert msgs[i_list].receiver == "B" and "close_ticket" in tool_names(msgs[i_result])


# --- 3. the model learns on its next turn ----------------------------------------------------------


@era_param
def test_new_tool_reaches_the_model_on_its_next_turn(era: str) -> None:
    run, _ = step(play("outage", era), TakeTurn())
    before = run.last.turn
    run, v = step(run, DeployTool(server="B"))
    entry = next(t for t in v.next_prompt.tools if t.name == "close_ticket")
    assert entry.server == "B" and entry.change == "new"
    assert ("close_ticket", "B") not in [(t.name, t.server) for t in before.tools_seen]

    run, v = step(run, TakeTurn())
    turn = run.last.turn
    assert ("close_ticket", "B") in [(t.name, t.server) for t in turn.tools_seen]
    assert [(t.name, t.server) for t in turn.new_tools] == [("close_ticket", "B")]
    assert next(t for t in v.next_prompt.tools if t.name == "close_ticket").change == "unchanged"


@era_param
def test_a_turn_whose_tool_list_changed_invalidates_the_prompt_cache_once(era: str) -> None:
    """The provider caches each turn's prompt; the next turn misses that cache if its tool list differs,
    once however many changes made it. A change says so when it happens, and nothing is counted before
    the turn: no request goes to the model in between."""
    run, v = step(play("outage", era), TakeTurn())
    start = v.next_prompt.cache_invalidations
    changes = [DeployTool(server="B"), DeployTool(server="B"), RemoveTool(server="B", tool="close_ticket")]
    for n, event in enumerate(changes):
        run, v = step(run, event)
        assert ("narration.cache_will_miss" if n == 0 else "narration.cache_still_misses") in codes(run)
        assert v.next_prompt.cache_invalidations == start
    assert v.next_prompt.pending_changes == len(changes)
    run, v = step(run, TakeTurn())
    assert "narration.cache_invalidated" in codes(run)
    assert (v.next_prompt.cache_invalidations, v.next_prompt.pending_changes) == (start + 1, 0)
    run, v = step(run, TakeTurn())  # the same list as the turn before: the cache is used
    assert v.next_prompt.cache_invalidations == start + 1


@era_param
def test_a_tool_list_changed_and_changed_back_before_the_turn_costs_nothing(era: str) -> None:
    """A dies and comes back before the next turn: that turn's tool list is the cached prompt's again."""
    run, v = step(play("outage", era), TakeTurn())
    start = v.next_prompt.cache_invalidations
    run, _ = step(run, ServerDies(server="A"))
    assert "narration.cache_will_miss" in codes(run)
    run, _ = step(run, ServerBack(server="A"))
    assert "narration.cache_matches_again" in codes(run)
    run, v = step(run, TakeTurn())
    assert not run.last.turn.new_tools and not run.last.turn.removed_tools
    assert v.next_prompt.cache_invalidations == start
    assert "narration.cache_invalidated" not in codes(run)


@era_param
def test_a_change_found_at_the_turn_after_an_announced_one_costs_one_invalidation(era: str) -> None:
    """P's announced change and Q's, found when the turn re-lists it, reach the model in one prompt."""
    run, _ = step(play("guide", era), TakeTurn())
    run, v = step(run, DeployTool(server="P", tool=ToolDef(name="archive_task", description="Archive a task")))
    run, _ = step(run, DeployTool(server="Q", tool=ToolDef(name="explain_query", description="Explain a plan")))
    run, v = step(run, TakeTurn())
    assert {"archive_task", "explain_query"} <= {t.name for t in run.last.turn.new_tools}
    assert (v.next_prompt.cache_invalidations, v.next_prompt.pending_changes) == (1, 0)


@pytest.mark.parametrize("batching", [False, True])
@era_param
def test_a_change_found_when_the_turn_re_lists_costs_an_invalidation(era: str, batching: bool) -> None:
    """Q never promised list_changed: its new tool is found only when the host re-lists it for the next
    turn. That prompt differs from the cached one all the same, so it costs one invalidation."""
    run = play("guide", era)
    if batching:
        run, _ = step(run, SetBatching(on=True))
    run, v = step(run, TakeTurn())
    run, v = step(run, DeployTool(server="Q", tool=ToolDef(name="explain_query", description="Explain a plan")))
    assert v.next_prompt.cache_invalidations == 0  # nothing the host knows has changed yet
    run, v = step(run, TakeTurn())
    assert [t.name for t in run.last.turn.new_tools] == ["explain_query"]
    assert (v.next_prompt.cache_invalidations, v.next_prompt.pending_changes) == (1, 0)
    run, v = step(run, TakeTurn())  # re-listed again, nothing changed: nothing to pay
    assert v.next_prompt.cache_invalidations == 1


@pytest.mark.parametrize("batching", [False, True])
@era_param
def test_before_the_first_turn_a_change_invalidates_nothing(era: str, batching: bool) -> None:
    """No request has gone to the model yet, so the provider has cached nothing: the change is counted
    as one since the last turn, and costs no invalidation, at once or at the first turn."""
    run = play("outage", era)
    if batching:
        run, _ = step(run, SetBatching(on=True))
    run, v = step(run, DeployTool(server="B"))
    assert (v.next_prompt.cache_invalidations, v.next_prompt.pending_changes) == (0, 1)
    assert "narration.no_cache_yet" in codes(run)
    run, v = step(run, TakeTurn())
    assert v.next_prompt.cache_invalidations == 0
    run, v = step(run, DeployTool(server="B"))
    run, v = step(run, TakeTurn())
    assert v.next_prompt.cache_invalidations == 1


@era_param
def test_batched_changes_cost_one_invalidation(era: str) -> None:
    run, v = step(play("outage", era), TakeTurn())
    run, v = step(run, SetBatching(on=True))
    start = v.next_prompt.cache_invalidations
    for event in [DeployTool(server="B"), DeployTool(server="B"), RemoveTool(server="B", tool="create_ticket")]:
        run, v = step(run, event)
        assert v.next_prompt.cache_invalidations == start
    assert v.next_prompt.pending_changes == 3
    run, v = step(run, TakeTurn())
    assert v.next_prompt.cache_invalidations == start + 1
    assert v.next_prompt.pending_changes == 0


# --- 4. a server going down fails calls, not the conversation --------------------------------------


@era_param
def test_server_down_fails_its_calls_and_nothing_else(era: str) -> None:
    run, v = step(play("outage", era), TakeTurn())
    sizes = [v.counters.conversation]
    run, v = step(run, ServerDies(server="A"))
    sizes.append(v.counters.conversation)
    assert row(v, "A").status == "down"
    assert all(server != "A" for _, server in prompt(v))
    assert ("create_ticket", "B") in prompt(v)

    calls = [ToolCall(server="A", tool="search_docs"), ToolCall(server="B", tool="create_ticket")]
    run, v = step(run, TakeTurn(calls=calls))
    sizes.append(v.counters.conversation)
    rec_a, rec_b = run.last.turn.calls
    assert (rec_a.server, rec_a.host_made, rec_a.is_error) == ("A", True, True)
    assert (rec_b.server, rec_b.host_made, rec_b.is_error) == ("B", False, False)

    msgs = wire(run)
    assert not [m for m in msgs if m.sender == "A" and m.on_wire], "a dead server sends nothing"
    made = [m for m in msgs if not m.on_wire and m.payload is not None]
    assert len(made) == 1
    assert made[0].payload["isError"] is True
    assert "CallToolResult" in [c.definition for c in made[0].checks]
    assert errors(made[0].payload, era, "CallToolResult") == []
    assert [label(m) for m in msgs if m.sender == "B"] == ["result"]
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]


# --- 5. coming back --------------------------------------------------------------------------------


def test_modern_back_relistens_waits_for_ack_then_relists() -> None:
    run = play("outage", "modern", ServerDies(server="A"))
    run, v = step(run, ServerBack(server="A"))
    msgs = wire(run)
    i_listen, i_ack, i_list, _ = in_order(
        msgs, "subscriptions/listen", "notifications/subscriptions/acknowledged", "tools/list", "result"
    )
    assert sub_id(msgs[i_ack]) == msgs[i_listen].payload["id"]
    assert "initialize" not in labels(msgs)
    assert all("Mcp-Session-Id" not in m.headers for m in msgs)
    assert ("search_docs", "A") in prompt(v) and row(v, "A").status == "connected"


def test_legacy_back_gets_404_then_initializes_a_new_session() -> None:
    run, _ = step(play("outage", "legacy"), TakeTurn(calls=[ToolCall(server="A", tool="search_docs")]))
    old = next(m.headers["Mcp-Session-Id"] for m in wire(run) if m.receiver == "A")
    run = play("outage", "legacy", TakeTurn(), ServerDies(server="A"))
    run, v = step(run, ServerBack(server="A"))
    msgs = wire(run)
    i_get, i_404, i_init, i_init_res, i_inited, i_list = in_order(
        msgs, "GET /mcp", "error", "initialize", "result", "notifications/initialized", "tools/list"
    )
    assert msgs[i_get].headers["Mcp-Session-Id"] == old
    assert msgs[i_404].http == "HTTP 404 Not Found" and msgs[i_404].payload == SESSION_NOT_FOUND
    assert "Mcp-Session-Id" not in msgs[i_init].headers
    new = msgs[i_init_res].headers["Mcp-Session-Id"]
    assert new != old
    assert msgs[i_inited].headers["Mcp-Session-Id"] == new
    assert msgs[i_list].headers["Mcp-Session-Id"] == new
    assert ("search_docs", "A") in prompt(v)


def test_legacy_server_without_session_ids_gives_no_404() -> None:
    run = play("restart", "legacy", ServerDies(server="W"), listen=True, issues_session_id=False)
    run, v = step(run, ServerBack(server="W"))
    msgs = wire(run)
    assert "error" not in labels(msgs)
    assert all(not (m.http or "").startswith("HTTP 404") for m in msgs)
    assert all("Mcp-Session-Id" not in m.headers for m in msgs)
    assert "tools/list" in labels(msgs)
    assert row(v, "W").status == "connected"


# --- 6. the restart table ------------------------------------------------------------------------


def restart(era: str, *events: Event, **options: bool | str) -> Run:
    return play("restart", era, *events, **options)


def test_restart_idle_legacy_404_and_new_initialize() -> None:
    run, _ = step(restart("legacy", RestartServer(server="W")), TakeTurn())
    msgs = wire(run)
    i_call, i_404, i_init, *_ = in_order(msgs, "tools/call", "error", "initialize", "notifications/initialized")
    assert msgs[i_404].payload == SESSION_NOT_FOUND and msgs[i_404].http == "HTTP 404 Not Found"
    assert "Mcp-Session-Id" not in msgs[i_init].headers
    i_list = index(msgs, "tools/list", i_init)
    i_retry = index(msgs, "tools/call", i_init)
    assert 0 <= i_list < i_retry, "re-lists after re-initializing, then retries"
    assert msgs[i_retry].payload["id"] != msgs[i_call].payload["id"]
    (rec,) = run.last.turn.calls
    assert not rec.is_error
    assert last_change(row(view(run), "W")) == (2, "narration.table.new_session", {})  # the table says what happened


def test_restart_idle_legacy_without_session_id_has_nothing_to_lose() -> None:
    run, _ = step(restart("legacy", RestartServer(server="W"), issues_session_id=False), TakeTurn())
    assert labels(wire(run)) == ["tools/call", "result"]
    assert not run.last.turn.calls[0].is_error


def test_restart_idle_modern_nothing_to_do() -> None:
    run = restart("modern", RestartServer(server="W"))
    assert wire(run) == []
    run, _ = step(run, TakeTurn())
    assert labels(wire(run)) == ["tools/call", "result"]
    assert not run.last.turn.calls[0].is_error


def test_restart_idle_stdio_legacy_the_new_process_needs_initialize() -> None:
    run = restart("legacy", RestartServer(server="W"), transport="stdio")
    in_order(wire(run), "initialize", "result", "notifications/initialized", "tools/list")
    run, _ = step(run, TakeTurn())
    assert labels(wire(run)) == ["tools/call", "result"]


def test_restart_idle_stdio_modern_needs_no_initialize() -> None:
    run = restart("modern", RestartServer(server="W"), transport="stdio")
    assert "initialize" not in labels(wire(run))
    run, _ = step(run, TakeTurn())
    assert labels(wire(run)) == ["tools/call", "result"]


def test_restart_call_in_flight_legacy_is_lost_reinitialized_and_reissued() -> None:
    run = restart("legacy", StartCall(server="W", tool="get_forecast"))
    first = wire(run)[0].payload["id"]
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    _, i_init, i_call, i_result = in_order(msgs, "error", "initialize", "tools/call", "result")
    assert msgs[i_call].payload["params"]["name"] == "get_forecast"
    assert msgs[i_call].payload["id"] != first
    assert msgs[i_result].payload["id"] == msgs[i_call].payload["id"]
    assert all("Last-Event-ID" not in m.headers for m in msgs), "no event store: nothing to resume"
    assert run.state.host.conversation[-1].text.startswith("get_forecast: ")


def test_restart_call_in_flight_legacy_event_store_alone_does_not_resume() -> None:
    run = restart("legacy", StartCall(server="W", tool="get_forecast"), event_store=True)
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    in_order(msgs, "error", "initialize", "tools/call", "result")
    assert not any(m.http == "SSE event" and label(m) == "result" for m in msgs)


def test_restart_call_in_flight_legacy_resumes_when_everything_is_durable() -> None:
    run = restart("legacy", StartCall(server="W", tool="get_forecast"), sessions_durable=True, event_store=True)
    first = wire(run)[0]
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    assert "initialize" not in labels(msgs) and "error" not in labels(msgs)
    i_get = next(i for i, m in enumerate(msgs) if m.http == "GET /mcp" and "Last-Event-ID" in m.headers)
    assert msgs[i_get].headers["Mcp-Session-Id"] == first.headers["Mcp-Session-Id"]
    replayed = [m for m in msgs[i_get:] if label(m) == "result" and m.payload["id"] == first.payload["id"]]
    assert len(replayed) == 1 and "content" in replayed[0].payload["result"]
    assert [m for m in msgs if label(m) == "tools/call"] == [], "resumed, not re-issued"


@era_param
def test_restart_call_in_flight_not_idempotent_is_reported_not_retried(era: str) -> None:
    run, _ = step(restart(era, StartCall(server="W", tool="send_alert")), RestartServer(server="W"))
    msgs = wire(run)
    assert "tools/call" not in labels(msgs)
    made = [m for m in msgs if not m.on_wire and m.payload is not None]
    assert len(made) == 1 and made[0].payload["isError"] is True
    assert errors(made[0].payload, era, "CallToolResult") == []
    assert "send_alert" in run.state.host.conversation[-1].text


def test_restart_call_in_flight_modern_is_retried_with_a_new_id() -> None:
    run = restart("modern", StartCall(server="W", tool="get_forecast"))
    first = wire(run)[0].payload["id"]
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    assert "initialize" not in labels(msgs)
    i_call = index(msgs, "tools/call")
    i_result = index(msgs, "result", i_call)
    assert 0 <= i_call < i_result
    assert msgs[i_call].payload["id"] != first
    assert msgs[i_result].payload["id"] == msgs[i_call].payload["id"]
    assert msgs[i_result].payload["result"]["resultType"] == "complete"


def test_restart_modern_with_listen_and_in_process_auth_does_not_say_it_just_works() -> None:
    # Tokens held by an authorization server inside the process are gone (mcp-facts claim 5): the listen gets 401.
    run = restart("modern", RestartServer(server="W"), listen=True, auth_in_process=True)
    said = codes(run)
    assert "narration.back_modern_token_gone" in said and "narration.back_modern" not in said
    assert said.index("narration.back_modern_token_gone") < said.index("narration.token_gone_sign_in")
    (listen,) = [m for m in wire(run) if label(m) == "subscriptions/listen"]
    assert wire(run)[wire(run).index(listen) + 1].http == "HTTP 401 Unauthorized"


@pytest.mark.parametrize(
    ("events", "options"),
    [
        ([StartCall(server="W", tool="get_forecast")], {}),  # a call in flight over HTTP
        ([], {"transport": "stdio"}),  # stdio: the host relaunches the process
        ([], {}),  # idle over HTTP
    ],
    ids=["in-flight-http", "stdio", "idle-http"],
)
def test_restart_modern_without_a_listen_stream_does_not_relist(events: list[Event], options: dict) -> None:
    # Nothing is replayed (claim 3), but re-listing follows a lost listen stream (claim 5); with none open there
    # was no notification to miss, so a modern client re-lists in none of these restarts.
    run = restart("modern", *events, **options)
    run, _ = step(run, RestartServer(server="W"))
    assert "tools/list" not in labels(wire(run))
    assert "narration.back_modern" not in codes(run)
    if events:
        assert "narration.call_lost_reissued" in codes(run) and "tools/call" in labels(wire(run))


def test_restart_modern_with_a_listen_stream_relistens_then_relists() -> None:
    run = restart("modern", RestartServer(server="W"), listen=True)
    in_order(wire(run), "subscriptions/listen", "notifications/subscriptions/acknowledged", "tools/list", "result")
    assert "narration.back_modern" in codes(run)


def test_restart_call_in_flight_modern_stdio_relaunches_the_process_first() -> None:
    run = restart("modern", StartCall(server="W", tool="get_forecast"), transport="stdio")
    run, _ = step(run, RestartServer(server="W"))
    said = codes(run)
    assert said.index("narration.stdio_relaunch") < said.index("narration.call_lost_reissued")
    msgs = wire(run)
    assert all(m.http is None and m.headers == {} for m in msgs), "stdio has no HTTP"
    assert "tools/call" in labels(msgs) and "initialize" not in labels(msgs)


def test_restart_waiting_for_input_legacy_answer_gets_404_and_the_flow_restarts() -> None:
    run = restart("legacy", AskUserInput(server="W"))
    old = wire(run)[0].headers["Mcp-Session-Id"]
    assert "elicitation/create" in labels(wire(run))
    run, _ = step(run, RestartServer(server="W"))
    assert not [m for m in wire(run) if label(m) in ("tools/call", "result")], "the call is not re-run unasked"
    run, _ = step(run, UserAnswers(server="W", answer="OR"))
    msgs = wire(run)
    i_answer, i_404, i_init, _, i_call, i_ask = in_order(
        msgs, "result", "error", "initialize", "tools/list", "tools/call", "elicitation/create"
    )
    assert msgs[i_answer].sender == "host" and msgs[i_answer].headers["Mcp-Session-Id"] == old
    assert msgs[i_404].payload == SESSION_NOT_FOUND
    assert "Mcp-Session-Id" not in msgs[i_init].headers
    assert msgs[i_call].headers["Mcp-Session-Id"] != old
    assert not [m for m in msgs[i_404:] if label(m) == "result" and "content" in m.payload.get("result", {})]
    # The table says the client now has a new session, as it does when any other request meets the 404.
    assert last_change(row(view(run), "W")) == (run.state.step, "narration.table.new_session", {})


def test_restart_waiting_for_input_legacy_durable_resumes_the_call_and_takes_the_answer() -> None:
    # Session, stored events and unfinished work outside the process: the answer is accepted by the new
    # process and the result arrives on the call's stream, resumed with GET + Last-Event-ID (mcp-facts claim 4).
    run = restart("legacy", AskUserInput(server="W"), sessions_durable=True, event_store=True)
    call, ask = wire(run)[0], next(m for m in wire(run) if label(m) == "elicitation/create")
    assert ask.http.endswith("event id 1")
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    (get,) = [m for m in msgs if m.http == "GET /mcp"]
    assert get.headers["Last-Event-ID"] == "1" and get.headers["Mcp-Session-Id"] == call.headers["Mcp-Session-Id"]
    assert "narration.question_stream_resumed" in codes(run)
    run, _ = step(run, UserAnswers(server="W", answer="OR"))
    msgs = wire(run)
    assert labels(msgs) == ["result", "HTTP 202 Accepted", "result"], "no re-initialize, no new call, no new question"
    assert msgs[0].sender == "host" and msgs[0].payload["id"] == ask.payload["id"]
    assert msgs[2].http.startswith("SSE event") and msgs[2].payload["id"] == call.payload["id"]
    assert "content" in msgs[2].payload["result"]
    assert "narration.answer_lost_process_gone" not in codes(run)
    assert run.state.host.conversation[-1].text.startswith("get_forecast: ")


def _example_input_key() -> str:
    """The input request's key in the worked example of the lesson on a question across a restart (and in
    the shared example, when present): the simulation's wire must use the same name the lesson shows."""
    lesson = (ROOT / "content" / "lessons" / "05-a-question-across-a-restart.md").read_text()
    keys = set(re.findall(r'"inputResponses": \{"([A-Za-z_]+)"', lesson))
    shared = ROOT.parent / "shared" / "mcp-examples" / "modern" / "13-input-required-response.json"
    if shared.is_file():
        keys |= set(json.loads(shared.read_text())["result"]["inputRequests"])
    assert len(keys) == 1, keys
    return keys.pop()


def _mrtr(run: Run) -> tuple[WireFrame, str]:
    """The first round: the call and its input_required result."""
    msgs = wire(run)
    call = next(m for m in msgs if label(m) == "tools/call")
    res = next(m for m in msgs if label(m) == "result")
    assert res.payload["result"]["resultType"] == "input_required"
    assert set(res.payload["result"]["inputRequests"]) == {_example_input_key()}
    return call, res.payload["result"]["requestState"]


def _retry(msgs: list[WireFrame], state: str) -> WireFrame:
    retry = next(m for m in msgs if label(m) == "tools/call")
    assert retry.payload["params"]["requestState"] == state
    # The answer is keyed like the request it answers, with the name the lesson's example uses.
    assert set(retry.payload["params"]["inputResponses"]) == {_example_input_key()}
    return retry


def test_restart_waiting_for_input_modern_unverifiable_state_is_rejected() -> None:
    run = restart("modern", AskUserInput(server="W"))
    call, state = _mrtr(run)
    run, _ = step(run, RestartServer(server="W"))
    assert wire(run) == [], "nothing is open while the user thinks"
    run, _ = step(run, UserAnswers(server="W"))
    msgs = wire(run)
    retry = _retry(msgs, state)
    assert retry.payload["id"] != call.payload["id"]
    err = next(m for m in msgs if label(m) == "error")
    assert err.payload["id"] == retry.payload["id"]
    assert err.payload["error"] == {"code": -32602, "message": "Invalid or expired requestState"}
    again = [m for m in msgs[msgs.index(err) :] if label(m) == "result"]
    assert again and again[0].payload["result"]["resultType"] == "input_required", "the flow starts again"


def test_restart_waiting_for_input_modern_durable_key_succeeds() -> None:
    run = restart("modern", AskUserInput(server="W"), RestartServer(server="W"), state_key_durable=True)
    state = run.state.host.clients["W"].pending_input.request_state
    run, _ = step(run, UserAnswers(server="W"))
    msgs = wire(run)
    retry = _retry(msgs, state)
    (res,) = [m for m in msgs if label(m) == "result"]
    assert res.payload["id"] == retry.payload["id"]
    assert res.payload["result"]["resultType"] == "complete" and not res.payload["result"].get("isError")
    assert "error" not in labels(msgs)


def test_restart_waiting_for_input_modern_expired_state_is_rejected() -> None:
    run = restart("modern", AskUserInput(server="W"), RestartServer(server="W"), state_key_durable=True)
    run, _ = step(run, UserAnswers(server="W", after_expiry=True))
    err = next(m for m in wire(run) if label(m) == "error")
    assert err.payload["error"]["code"] == -32602


def test_a_legacy_answer_after_expiry_is_refused_there_is_no_request_state() -> None:
    run = restart("legacy", AskUserInput(server="W"))
    run, _ = step(run, UserAnswers(server="W", after_expiry=True))
    assert run.last.rejected and codes(run)[-1] == "refusal.no_request_state"
    assert run.state.host.clients["W"].pending_input is not None  # the question still stands
    run, _ = step(run, UserAnswers(server="W"))
    assert not run.last.rejected and run.state.host.clients["W"].pending_input is None
    # With no question pending, the era's reason still comes first: it is why this press never works here.
    run, _ = step(run, UserAnswers(server="W", after_expiry=True))
    assert run.last.rejected and codes(run)[-1] == "refusal.no_request_state"


def test_restart_listen_open_legacy_drops_404_reinitialize_new_get_relist() -> None:
    run = restart("legacy", listen=True)
    old = run.state.host.clients["W"].session_id
    run, v = step(run, RestartServer(server="W"))
    msgs = wire(run)
    i_drop, i_get, i_404, i_init, _, i_get2, i_list = in_order(
        msgs, "stream closed", "GET /mcp", "error", "initialize", "notifications/initialized", "GET /mcp", "tools/list"
    )
    assert not msgs[i_drop].on_wire
    assert msgs[i_get].headers["Mcp-Session-Id"] == old
    assert msgs[i_404].payload == SESSION_NOT_FOUND
    assert msgs[i_get2].headers["Mcp-Session-Id"] not in (None, old)
    assert msgs[i_list].headers["Mcp-Session-Id"] == msgs[i_get2].headers["Mcp-Session-Id"]
    assert row(v, "W").listen.code in ("narration.table.listen.session", "narration.table.listen.sse")


@pytest.mark.parametrize("event_came", [False, True])
def test_restart_listen_open_legacy_resumes_only_if_the_session_outlived_the_restart(event_came: bool) -> None:
    """Resumption goes on from the last id the stream carried; with no event yet there is no id to send."""
    run = restart("legacy", listen=True, sessions_durable=True, event_store=True)
    if event_came:
        run = restart(
            "legacy",
            DeployTool(server="W", tool=ToolDef(name="get_alerts", description="Alerts", arg="city")),
            listen=True,
            sessions_durable=True,
            event_store=True,
        )
    sent = [m.event_id for m in wire(run) if getattr(m, "event_id", None)]
    old = run.state.host.clients["W"].session_id
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    assert "initialize" not in labels(msgs) and "error" not in labels(msgs)
    (get,) = [m for m in msgs if m.http == "GET /mcp"]
    assert get.headers["Mcp-Session-Id"] == old
    assert get.headers.get("Last-Event-ID") == (sent[-1] if event_came else None)


def test_restart_listen_open_modern_drops_without_result_then_listen_ack_list() -> None:
    run = restart("modern", listen=True)
    old = run.state.host.clients["W"].listen.request_id
    run, _ = step(run, RestartServer(server="W"))
    msgs = wire(run)
    i_drop, i_listen, i_ack, i_list = in_order(
        msgs, "stream closed", "subscriptions/listen", "notifications/subscriptions/acknowledged", "tools/list"
    )
    assert not msgs[i_drop].on_wire and msgs[i_drop].payload is None
    assert not [m for m in msgs[:i_listen] if label(m) == "result"], "an abrupt drop has no listen result"
    new = msgs[i_listen].payload["id"]
    assert new != old and sub_id(msgs[i_ack]) == new
    assert "initialize" not in labels(msgs)


@era_param
def test_restart_token_still_valid(era: str) -> None:
    run = restart(era, RestartServer(server="W"))
    assert "narration.restart_token_valid" in codes(run)
    run, v = step(run, TakeTurn())
    assert all(m.http != "HTTP 401 Unauthorized" for m in wire(run))
    assert not run.last.turn.calls[0].is_error
    assert row(v, "W").status == "connected"


@era_param
def test_restart_token_in_process_authorization_server_means_sign_in_again(era: str) -> None:
    run, v = step(restart(era, RestartServer(server="W"), auth_in_process=True), TakeTurn())
    assert "HTTP 401 Unauthorized" in [m.http for m in wire(run)]
    (rec,) = run.last.turn.calls
    assert rec.host_made and rec.is_error
    assert row(v, "W").status == "signed_out" and row(v, "W").last_error.code == "narration.table.token_gone"
    assert last_change(row(v, "W")) == (2, "narration.table.signed_out", {}), "the row says when it changed"
    assert prompt(v) == []
    run, v = step(run, TokenRefreshed(server="W"))
    assert row(v, "W").status == "connected" and prompt(v)
    again = "narration.table.new_session" if era == "legacy" else "narration.table.signed_in"  # legacy initializes anew
    assert last_change(row(v, "W")) == (3, again, {})


@era_param
def test_restart_token_on_stdio_there_is_no_token_flow(era: str) -> None:
    run = restart(era, RestartServer(server="W"), auth_in_process=True, transport="stdio")
    assert "narration.restart_stdio_no_token" in codes(run)
    run, _ = step(run, TakeTurn())
    assert all(m.http is None for m in wire(run))
    assert not run.last.turn.calls[0].is_error


@era_param
def test_restart_token_in_process_with_a_stream_open_the_stream_is_refused_too(era: str) -> None:
    run, v = step(restart(era, listen=True, auth_in_process=True), RestartServer(server="W"))
    msgs = wire(run)
    assert "notifications/subscriptions/acknowledged" not in labels(msgs)
    assert [m.http for m in msgs].count("HTTP 401 Unauthorized") >= 1
    assert row(v, "W").status == "signed_out" and row(v, "W").listen.code == "narration.table.listen.none"
    run, v = step(run, TokenRefreshed(server="W"))
    assert row(v, "W").status == "connected" and row(v, "W").listen.code != "narration.table.listen.none"
    assert "tools/list" in labels(wire(run))


@era_param
def test_restart_token_in_process_nobody_signs_in_while_the_process_is_gone(era: str) -> None:
    run = restart(era, RestartServer(server="W"), listen=True, auth_in_process=True)
    run, _ = step(run, ServerDies(server="W"))
    run, v = step(run, TokenRefreshed(server="W"))
    assert run.last.rejected and wire(run) == []  # nothing reaches a server that is not running
    assert row(v, "W").status == "signed_out" and prompt(v) == []


# --- 7. gateway ----------------------------------------------------------------------------------


def origins(v: View) -> set[str | None]:
    return {t.origin for t in v.next_prompt.tools}


@era_param
def test_gateway_one_client_hides_and_restores_backends(era: str) -> None:
    run = play("gateway", era)
    v = view(run)
    assert list(run.state.host.clients) == ["G"]
    # The host sees one server: what sits behind it shows only as G's tools changing.
    assert [r.name for r in v.servers] == ["G"]
    assert {t.server for t in v.next_prompt.tools} == {"G"} and origins(v) == {"A", "B"}

    run, v = step(run, BackendFailsHealthCheck(gateway="G", backend="A"))
    assert origins(v) == {"B"} and row(v, "G").status == "connected"
    assert last_change(row(v, "G")) == (1, "narration.table.tools_removed", {"tools": "search_docs, read_page"})
    changed = [m for m in wire(run) if label(m) == "notifications/tools/list_changed"]
    assert {m.receiver for m in changed} == {"host", "host-2", "host-3"}
    assert all(m.sender == "G" for m in changed)
    assert index(wire(run), "tools/list", receiver="G") >= 0

    run, v = step(run, BackendJoins(gateway="G", backend="C"))
    assert origins(v) == {"B", "C"} and ("find_slot", "G") in prompt(v)
    assert [r.name for r in v.servers] == ["G"] and "find_slot" in row(v, "G").tools
    assert {m.receiver for m in wire(run) if label(m) == "notifications/tools/list_changed"} == {
        "host",
        "host-2",
        "host-3",
    }

    run, v = step(run, BackendRecovers(gateway="G", backend="A"))
    assert origins(v) == {"A", "B", "C"}
    assert last_change(row(v, "G")) == (3, "narration.table.tools_added", {"tools": "search_docs, read_page"})
    assert list(run.state.host.clients) == ["G"]


@era_param
def test_gateway_dead_backend_is_hidden_only_after_its_health_check(era: str) -> None:
    run, v = step(play("gateway", era), ServerDies(server="B"))
    assert "B" in origins(v), "the gateway has not noticed yet"
    before = row(view(play("gateway", era)), "G")
    assert row(v, "G") == before, "nor has the host: nobody told it"
    run, _ = step(run, TakeTurn(calls=[ToolCall(server="G", tool="create_ticket")]))
    (rec,) = run.last.turn.calls
    assert rec.is_error and not rec.host_made, "the gateway is up and answers with a tool error"
    res = next(m for m in wire(run) if m.sender == "G" and label(m) == "result")
    assert res.on_wire and res.payload["result"]["isError"] is True
    run, v = step(run, BackendFailsHealthCheck(gateway="G", backend="B"))
    assert "B" not in origins(v) and "create_ticket" not in row(v, "G").tools


# --- 8. explicit handles ---------------------------------------------------------------------------


def call_result(run: Run) -> WireFrame:
    """The answer to the step's tools/call (a legacy client may first renew its session on the way)."""
    return next(m for m in wire(run) if label(m) == "result" and "content" in m.payload["result"])


def items_of(run: Run) -> list[str]:
    res = call_result(run)
    return json.loads(res.payload["result"]["content"][0]["text"])["items"]


@era_param
def test_durable_basket_survives_restart_and_replica(era: str) -> None:
    run, v = step(play("baskets", era), CreateBasket(server="S"))
    assert len(v.handles) == 1 and v.handles[0].startswith("bsk_")
    run, _ = step(run, AddItem(server="S"))
    assert items_of(run) == ["A-100"]
    run, _ = step(run, RestartServer(server="S"))
    run, _ = step(run, AddItem(server="S", sku="B-200"))
    assert items_of(run) == ["A-100", "B-200"]
    run, _ = step(run, LandOnReplica(server="S", replica=2))
    run, _ = step(run, AddItem(server="S", sku="C-300"))
    assert items_of(run) == ["A-100", "B-200", "C-300"]


@era_param
@pytest.mark.parametrize("lose", [RestartServer(server="S"), LandOnReplica(server="S", replica=2)])
def test_in_memory_basket_is_lost_and_the_server_says_so(era: str, lose: Event) -> None:
    run = play("baskets", era, CreateBasket(server="S"), AddItem(server="S"), handles_durable=False)
    handle = view(run).handles[-1]
    run, _ = step(run, lose)
    run, _ = step(run, AddItem(server="S"))
    res = call_result(run)
    assert res.sender == "S" and res.on_wire
    body = res.payload["result"]
    assert body["isError"] is True and "basket_id" in body["content"][0]["text"]
    assert handle in body["content"][0]["text"] and "nknown" in body["content"][0]["text"]
    assert not [m for m in wire(run) if not m.on_wire and m.payload], "a tool execution error, not host-made"


@era_param
@pytest.mark.parametrize("start_name", ["baskets", "outage", "guide"])
def test_calling_tools_never_changes_a_tool_list(era: str, start_name: str) -> None:
    run = play(start_name, era)
    lists = {r.name: r.tools for r in view(run).servers}
    calls = [TakeTurn(), TakeTurn()]
    if start_name == "baskets":
        calls += [CreateBasket(server="S"), AddItem(server="S")]
    for event in calls:
        run, v = step(run, event)
        assert {r.name: r.tools for r in v.servers} == lists
        assert "notifications/tools/list_changed" not in labels(wire(run))
    # the same list over a new connection, and over the other era's connection
    other = {n: [t.name for t in c.tools] for n, c in run.twin.host.clients.items()}
    assert other == lists


@era_param
def test_tool_list_may_vary_by_authorization(era: str) -> None:
    run = play("guide", era)
    assert ("delete_workspace", "P") not in prompt(view(run))
    run, v = step(run, Reauthenticate(server="P", role="admin"))
    assert ("delete_workspace", "P") in prompt(v)
    run, v = step(run, Reauthenticate(server="P", role="member"))
    assert ("delete_workspace", "P") not in prompt(v)


# --- 9. list_changed guide -------------------------------------------------------------------------


@era_param
def test_undeclared_list_changed_changes_nothing(era: str) -> None:
    run = play("guide", era)
    before = view(run)
    run, v = step(run, UndeclaredListChanged(server="Q"))
    assert prompt(v) == prompt(before)
    assert "tools/list" not in labels(wire(run))
    assert v.next_prompt.cache_invalidations == before.next_prompt.cache_invalidations
    if era == "modern":
        assert "notifications/tools/list_changed" not in labels(wire(run))
        assert v.counters.ignored_notifications == before.counters.ignored_notifications
    else:
        (m,) = [m for m in wire(run) if label(m) == "notifications/tools/list_changed"]
        assert m.sender == "Q"
        assert v.counters.ignored_notifications == before.counters.ignored_notifications + 1


@era_param
def test_a_server_that_never_promised_the_notice_is_re_listed_before_a_turn(era: str) -> None:
    """Q never declared listChanged, so only asking shows its new tool. In the modern era its list says
    it is stale at once (ttlMs 0), which is what makes asking before every turn right; P, which will
    announce a change, lets its list be reused (a ttlMs above 0) and is not asked."""
    run = play("guide", era)
    tool = ToolDef(name="explain_query", description="Explain a query's plan", read_only=True)
    run, v = step(run, DeployTool(server="Q", tool=tool))
    assert "tools/list" not in labels(wire(run)) and ("explain_query", "Q") not in prompt(v)
    assert row(v, "Q").status == "connected", "the host cannot know of a change nobody announced"
    # The next prompt says so: Q is listed again before the turn, so its tools there may change.
    assert v.next_prompt.relisted_first == ["Q"] and view(play("outage", era)).next_prompt.relisted_first == []
    run, v = step(run, TakeTurn())
    asked = [m for m in wire(run) if label(m) == "tools/list"]
    assert [m.receiver for m in asked] == ["Q"]
    assert ("explain_query", "Q") in prompt(v)
    if era == "modern":
        (answer,) = [m for m in wire(run) if label(m) == "result" and "tools" in m.payload["result"]]
        assert answer.sender == "Q" and answer.payload["result"]["ttlMs"] == 0
        run, _ = step(run, TimerListChanged(server="P"))  # P's own notice brings its list
        (answer,) = [m for m in wire(run) if label(m) == "result" and "tools" in m.payload["result"]]
        assert answer.sender == "P" and answer.payload["result"]["ttlMs"] > 0


@era_param
def test_timer_list_changed_is_a_wasted_refetch(era: str) -> None:
    run = play("guide", era)
    before = view(run)
    run, v = step(run, TimerListChanged(server="P"))
    in_order(wire(run), "notifications/tools/list_changed", "tools/list", "result")
    assert v.counters.wasted_refetches == before.counters.wasted_refetches + 1
    assert v.counters.refetches == before.counters.refetches + 1
    assert prompt(v) == prompt(before)
    assert v.next_prompt.cache_invalidations == before.next_prompt.cache_invalidations


# --- presses that make no sense --------------------------------------------------------------------


SENSELESS = [
    ("outage", [], ServerBack(server="A")),
    ("outage", [], AddServer(server="A")),
    ("outage", [AddServer(server="C")], AddServer(server="C")),
    ("outage", [ServerDies(server="A")], ServerDies(server="A")),
    ("outage", [ServerDies(server="A")], RestartServer(server="A")),
    ("outage", [], AddServer(server="Z")),
    ("outage", [], UserAnswers(server="A")),
    ("outage", [], SetBatching(on=False)),
    ("outage", [], TokenRefreshed(server="A")),
    ("outage", [], DeployTool(server="A")),  # nothing upcoming
    ("gateway", [], BackendJoins(gateway="G", backend="A")),
    ("gateway", [], BackendJoins(gateway="G", backend="G")),
    ("gateway", [], BackendRecovers(gateway="G", backend="A")),
    ("gateway", [], AddServer(server="A")),  # behind the gateway
    ("baskets", [], AddItem(server="S")),  # no basket yet
    ("baskets", [], LandOnReplica(server="S", replica=1)),
    ("guide", [], UndeclaredListChanged(server="P")),
    ("guide", [], Reauthenticate(server="P", role="member")),
    ("restart", [], ListenDrops(server="W")),
]


@era_param
@pytest.mark.parametrize(
    ("start_name", "before", "press"), SENSELESS, ids=[f"{s}-{i}-{p.kind}" for i, (s, _, p) in enumerate(SENSELESS)]
)
def test_senseless_press_is_rejected_and_changes_only_the_step(
    era: str, start_name: str, before: list[Event], press: Event
) -> None:
    run = play(start_name, era, *before)
    old = run.state
    run, v = step(run, press)
    assert run.last.rejected
    (line,) = run.last.lines
    assert line.tone == "rejected" and line.code.startswith("refusal.")
    assert run.last.wire == [] and run.last.turn is None
    assert run.state.step == old.step + 1
    assert dataclasses.replace(run.state, step=old.step) == old
    assert v.log[-1].lines == [line]


# --- an era switch is a new connection: what ran on the old one ends, and says so -------------------


@era_param
def test_an_era_switch_mid_call_hands_the_model_a_host_built_error(era: str) -> None:
    other = "legacy" if era == "modern" else "modern"
    run, _ = step(play("outage", era), StartCall(server="A"))
    run, v = step(run, SwitchEra(era=other))
    built = [m for m in wire(run) if m.kind == "host_built"]
    assert len(built) == 1 and built[0].payload["isError"] is True
    abandoned = [line for line in run.last.lines if line.code == "narration.call_abandoned"]
    assert [(line.tone, line.params["tools"]) for line in abandoned] == [("warn", "search_docs")]
    run, v = step(run, ServerDies(server="A"))
    run, v = step(run, TakeTurn())
    # The abandoned call got its one result, the host-built one, and the conversation went on: this turn's
    # own calls on A (a tool the model saw in the call's turn) are answered by the host, A being down.
    said = run.state.host.conversation
    tool_results = [m.text for m in said if m.role == "tool" and m.text.startswith("search_docs")]
    on_a = [c for c in run.last.turn.calls if c.server == "A"]
    assert len(tool_results) == 1 + len(on_a) and all(c.host_made for c in on_a)
    assert run.state.host.turns == 2  # the call's turn, and this one


@era_param
def test_an_era_switch_while_the_user_answers_says_the_question_is_gone(era: str) -> None:
    other = "legacy" if era == "modern" else "modern"
    run, _ = step(play("restart", era), AskUserInput(server="W", tool="get_forecast"))
    run, _ = step(run, SwitchEra(era=other))
    gone = [line for line in run.last.lines if line.code == "narration.question_dropped"]
    assert [(line.tone, line.params) for line in gone] == [("warn", {"server": "W", "tool": "get_forecast"})]
    assert run.state.host.clients["W"].pending_input is None


@era_param
def test_an_era_switch_is_compared_with_nothing_and_the_next_press_with_its_twin(era: str) -> None:
    """The twin switches the other way to stay in the other era; that is not this step's counterpart."""
    other = "legacy" if era == "modern" else "modern"
    run, v = step(play("outage", era), SwitchEra(era=other))
    assert v.comparison is not None and v.comparison.this.wire  # this era re-connects, on the wire
    assert v.comparison.other.wire == [] and v.comparison.other.lines[0].code == "narration.no_twin"
    assert run.twin.host.era == era  # the twin did switch: it stays the other era
    _, v = step(run, ServerDies(server="A"))
    assert v.comparison.other.era == era and v.comparison.other.wire


def test_the_tables_last_change_follows_every_new_list() -> None:
    """Whatever brings the host a new list (its own re-list before a turn, a sign-in with another
    role, a list_changed), the server table's "last change" names what the new list changed, with its step."""
    tool = {"name": "explain_query", "description": "Explain a query's plan", "read_only": True}
    _, v = step(play("guide", "modern", DeployTool(server="Q", tool=tool)), TakeTurn())
    added = "narration.table.tools_added"
    assert last_change(row(v, "Q")) == (2, added, {"tools": "explain_query"})  # Q never sends list_changed
    _, v = step(play("guide", "legacy"), Reauthenticate(server="P", role="admin"))
    step_no, code, values = last_change(row(v, "P"))
    assert (step_no, code) == (1, added) and "delete_workspace" in values["tools"].split(", ")
    _, v = step(play("outage", "modern"), RemoveTool(server="B", tool="assign_ticket"))
    # After a list_changed too: the notice says only that the list changed; the new list shows what.
    assert last_change(row(v, "B")) == (1, "narration.table.tools_removed", {"tools": "assign_ticket"})


def test_a_server_back_over_stdio_after_an_unnoticed_death_is_initialized_first() -> None:
    """Found by the property tests: an HTTP server with nothing open dies unnoticed and comes back over
    stdio. The host launched that process itself, so it meets it from scratch before any call."""
    run = play("restart", "legacy", listen=False, issues_session_id=False)
    run, _ = step(run, ServerDies(server="W"))
    run, _ = step(run, ServerBack(server="W", transport="stdio"))
    sent = [(m.payload or {}).get("method") for m in wire(run) if m.sender == "host"]
    assert sent[:2] == ["initialize", "notifications/initialized"], sent
    run, _ = step(run, TakeTurn())
    assert [(m.payload or {}).get("method") for m in wire(run) if m.sender == "host"] == ["tools/call"]


def test_a_modern_stdio_restart_says_the_host_met_the_new_process_from_scratch() -> None:
    """Over stdio the host launches the new process and discovers it again: the log says so, not that the
    next request simply works, and the wire shows the server/discover."""
    run, _ = step(play("restart", "modern", transport="stdio"), RestartServer(server="W"))
    assert "narration.back_modern_stdio_no_stream" in codes(run)
    assert "narration.back_modern_no_stream" not in codes(run)
    sent = [(m.payload or {}).get("method") for m in wire(run) if m.sender == "host"]
    assert sent == ["server/discover"]


@era_param
def test_no_model_turn_while_the_model_s_call_is_still_running(era: str) -> None:
    """The model's call on A has not come back: the model waits for its result, so a turn pressed meanwhile
    is refused, naming the call. Once A dies and the host hands the model its own error, the turn goes on."""
    run, before = step(play("outage", era), StartCall(server="A", tool="search_docs"))
    for event in (TakeTurn(), StartCall(server="B")):
        run, v = step(run, event)
        assert run.last.rejected and codes(run)[-1] == "refusal.turn_waits_for_call"
        assert run.last.lines[-1].params == {"server": "A", "tool": "search_docs"}
        assert v.next_prompt.turns == before.next_prompt.turns
    run, _ = step(run, ServerDies(server="A"))
    run, v = step(run, TakeTurn())
    assert not run.last.rejected and v.next_prompt.turns == before.next_prompt.turns + 1


@era_param
def test_no_model_turn_while_a_call_waits_for_the_user(era: str) -> None:
    """The model's call asked the user a question: the model waits for that call's result, so the host
    calls the model again only once the user has answered. A turn pressed meanwhile changes nothing."""
    run, before = step(play("restart", era), AskUserInput(server="W", tool="get_forecast"))
    for event in (TakeTurn(), StartCall(server="W", tool="get_forecast")):
        run, v = step(run, event)
        assert run.last.rejected and codes(run)[-1] == "refusal.turn_waits_for_answer"
        assert (v.next_prompt.turns, v.counters.conversation) == (
            before.next_prompt.turns,
            before.counters.conversation,
        )
    run, _ = step(run, UserAnswers(server="W"))
    run, v = step(run, TakeTurn())
    assert not run.last.rejected and v.next_prompt.turns == before.next_prompt.turns + 1


def test_a_modern_stdio_restart_with_a_listen_open_also_says_the_host_met_the_new_process() -> None:
    """With a listen stream open as without: over stdio the new process is met from scratch, and the
    client listens and lists again."""
    run, _ = step(play("restart", "modern", transport="stdio", listen=True), RestartServer(server="W"))
    assert "narration.back_modern_stdio" in codes(run)
    assert "narration.back_modern" not in codes(run)
    sent = [(m.payload or {}).get("method") for m in wire(run) if m.sender == "host"]
    assert sent[0] == "server/discover" and "subscriptions/listen" in sent and "tools/list" in sent, sent


def test_a_call_to_a_server_of_the_other_era_says_so_not_that_it_is_unreachable() -> None:
    """L runs, but once the host speaks only the modern era it cannot talk to L: a call the model makes
    from its last prompt gets the host's error, which names the versions, not an outage."""
    run = play("eras", "legacy", AddServer(server="L"), TakeTurn())
    run, v = step(run, SwitchEra(era="modern"))
    assert row(v, "L").status == "incompatible"
    run, _ = step(run, TakeTurn())
    built = [f for f in wire(run) if f.kind == "host_built"]
    assert built, "the model called L's tool from its last prompt"
    text = json.dumps([f.payload for f in built])
    assert "not reachable" not in text and "protocol version" in text


def test_a_call_lost_in_a_restart_that_cannot_be_sent_again_is_said_in_the_log() -> None:
    """Legacy, the authorization server inside the restarted process: the client is signed out when it
    would send the lost call again, so the host builds the model's error, and the log says so."""
    run = play("restart", "legacy", auth_in_process=True)
    run, _ = step(run, StartCall(server="W"))
    run, _ = step(run, RestartServer(server="W"))
    assert "narration.call_lost_not_retried" in codes(run)
    assert any(f.kind == "host_built" for f in wire(run))
