"""The defects the typed frames fixed, each pinned to what the protocol or the SDK does (../shared/mcp-facts.md)."""

from __future__ import annotations

import pytest

from lesson.narration import line_text
from lesson.sim import at_step, undo, view
from lesson.sim.events import (
    AddItem,
    AskUserInput,
    CreateBasket,
    DeployTool,
    LandOnReplica,
    ListenDrops,
    Reauthenticate,
    RemoveServer,
    RestartServer,
    ServerBack,
    ServerDies,
    StartCall,
    SwitchEra,
    TakeTurn,
    TokenExpires,
    TokenRefreshed,
    ToolCall,
    UserAnswers,
)
from lesson.sim.frames import HostBuilt, HttpRequest, HttpResponse, SseEvent, StdioLine, StreamEnd
from lesson.sim.model import ToolDef
from lesson.sim.starts import Start, opening

from .support import ERAS, codes, in_order, label, labels, play, prompt, step, wire

era_param = pytest.mark.parametrize("era", ERAS)


@era_param
def test_a_dead_servers_tool_error_is_built_by_the_host_not_sent_by_the_server(era: str) -> None:
    run = play("outage", era, ServerDies(server="A"))
    run, _ = step(run, TakeTurn(calls=[ToolCall(server="A", tool="search_docs")]))
    (made,) = [m for m in wire(run) if m.payload and m.payload.get("isError")]
    assert isinstance(made, HostBuilt) and not made.on_wire
    assert (made.sender, made.receiver) == ("host", "model")
    assert not [m for m in wire(run) if m.sender == "A"], "a server that is not running sends nothing"


@era_param
def test_a_call_in_flight_when_the_server_dies_ends_with_a_stream_end_and_a_host_built_error(era: str) -> None:
    run = play("outage", era, StartCall(server="A", tool="search_docs"))
    run, v = step(run, ServerDies(server="A"))
    kinds = [m.kind for m in wire(run)]
    assert kinds == ["stream_end", "host_built"]
    assert [m.on_wire for m in wire(run)] == [False, False]
    assert v.servers[0].status == "down"


def test_modern_posts_carry_accept_version_method_and_name() -> None:
    run, _ = step(play("outage", "modern"), TakeTurn(calls=[ToolCall(server="A", tool="search_docs")]))
    (post,) = [m for m in wire(run) if isinstance(m, HttpRequest)]
    assert post.method == "POST"
    assert post.headers["Accept"] == "application/json, text/event-stream"
    assert post.headers["MCP-Protocol-Version"] == "2026-07-28"
    assert post.headers["Mcp-Method"] == "tools/call"
    assert post.headers["Mcp-Name"] == post.payload["params"]["name"] == "search_docs"


def test_legacy_client_after_an_era_switch_while_down_starts_with_initialize() -> None:
    run = play("outage", "modern", ServerDies(server="A"), SwitchEra(era="legacy"))
    run, _ = step(run, ServerBack(server="A"))
    to_a = [m for m in wire(run) if m.sender == "host" and m.receiver == "A" and m.payload]
    assert [label(m) for m in to_a][:2] == ["initialize", "notifications/initialized"]


def test_legacy_elicitation_answer_and_result_carry_the_ids_they_answer() -> None:
    run = play("restart", "legacy", AskUserInput(server="W", tool="get_forecast"))
    call = next(m for m in wire(run) if label(m) == "tools/call")
    ask = next(m for m in wire(run) if label(m) == "elicitation/create")
    run = play("restart", "legacy", AskUserInput(server="W", tool="get_forecast"), TakeTurn())
    run, _ = step(run, UserAnswers(server="W"))
    answer, result = [m for m in wire(run) if m.payload and "result" in m.payload]
    assert answer.sender == "host" and answer.payload["id"] == ask.payload["id"]
    assert result.sender == "W" and result.payload["id"] == call.payload["id"]
    assert isinstance(result, SseEvent), "the open call's stream carries the result"


@era_param
def test_stdio_has_no_http_and_an_exit_is_an_eof(era: str) -> None:
    run = play("restart", era, StartCall(server="W", tool="get_forecast"), transport="stdio", listen=True)
    assert all(isinstance(m, StdioLine) for m in wire(run))
    run, v = step(run, ServerDies(server="W"))
    (eof, *_rest) = wire(run)
    assert isinstance(eof, StreamEnd) and eof.how == "eof" and not eof.on_wire and eof.http is None
    assert not [m for m in wire(run) if isinstance(m, (HttpRequest, HttpResponse, SseEvent))]
    assert v.servers[0].status == "down", "the host owns the process, so it sees the exit at once"
    run, _ = step(run, ServerBack(server="W"))
    assert all(m.http is None and m.headers == {} for m in wire(run))
    assert "202" not in " ".join(str(m.http) for m in wire(run))


@era_param
def test_signing_in_again_re_lists_without_any_list_changed(era: str) -> None:
    run, v = step(play("guide", era), Reauthenticate(server="P", role="admin"))
    assert "notifications/tools/list_changed" not in labels(wire(run))
    in_order(wire(run), "tools/list", "result")
    assert ("delete_workspace", "P") in prompt(v)
    if era == "modern":
        res = next(m for m in wire(run) if label(m) == "result")
        assert res.payload["result"]["cacheScope"] == "private"


@era_param
def test_each_sign_in_is_a_new_token_and_the_list_is_fetched_under_it(era: str) -> None:
    """A list may vary by the authorization on the request (tools.mdx): the re-list after a sign-in carries
    the new sign-in's token, never the one the old list came under."""

    def tokens(run) -> set[str]:
        return {m.headers["Authorization"] for m in wire(run) if isinstance(m, HttpRequest) and m.receiver == "P"}

    first = tokens(play("guide", era, TakeTurn(calls=[ToolCall(server="P", tool="create_ticket")])))
    run, _ = step(play("guide", era), Reauthenticate(server="P", role="admin"))
    admin = tokens(run)
    run, _ = step(run, Reauthenticate(server="P", role="member"))
    member = tokens(run)
    assert len(first) == len(admin) == len(member) == 1
    assert len(first | admin | member) == 3


def test_a_tool_that_takes_a_handle_declares_it_in_its_input_schema() -> None:
    """The model passes what an earlier call returned as an argument: the tool's schema says so (tools.mdx,
    stateful tools), and a call carries exactly what the schema requires."""
    run = play("baskets", "modern", CreateBasket(server="S"))
    run, _ = step(run, AddItem(server="S"))
    schema = next(t for t in run.state.servers["S"].tools if t.name == "add_item")
    [sent] = [m.payload["params"]["arguments"] for m in wire(run) if label(m) == "tools/call"]
    lists = [m.payload["result"].get("tools") for m in opening(Start(name="baskets"))[1] if label(m) == "result"]
    listed = next(t["inputSchema"] for tools in lists if tools for t in tools if t["name"] == "add_item")
    assert set(listed["required"]) == set(sent) == {schema.handle, schema.arg} == {"basket_id", "sku"}


@era_param
def test_a_server_that_never_sends_list_changed_is_re_listed_before_the_turn(era: str) -> None:
    run = play("guide", era, DeployTool(server="Q", tool=ToolDef(name="explain", description="Explain", arg="sql")))
    assert ("explain", "Q") not in prompt(view(run)), "nothing told the host"
    run, v = step(run, TakeTurn())
    i_list = next(i for i, m in enumerate(wire(run)) if label(m) == "tools/list" and m.receiver == "Q")
    assert i_list < next(i for i, m in enumerate(wire(run)) if label(m) == "tools/call")
    assert ("explain", "Q") in [(t.name, t.server) for t in run.last.turn.tools_seen]


def test_legacy_restart_while_the_user_answers_drops_the_stream_then_404_and_a_new_session() -> None:
    run = play("restart", "legacy", AskUserInput(server="W", tool="get_forecast"))
    run, _ = step(run, RestartServer(server="W"))
    (drop,) = [m for m in wire(run) if isinstance(m, StreamEnd)]
    assert drop.sender == "W" and not drop.on_wire
    run, _ = step(run, UserAnswers(server="W"))
    msgs = wire(run)
    i_answer, i_404, *_ = in_order(msgs, "result", "error", "initialize", "notifications/initialized", "tools/call")
    assert isinstance(msgs[i_404], HttpResponse) and msgs[i_404].status == 404


@pytest.mark.parametrize(("durable", "outcome"), [(False, "input_required"), (True, "complete")])
def test_modern_mrtr_across_a_restart_costs_the_flow_unless_the_key_is_durable(durable: bool, outcome: str) -> None:
    run = play("restart", "modern", AskUserInput(server="W"), RestartServer(server="W"), state_key_durable=durable)
    assert ("narration.key.lost" in codes(run, parts=True)) is not durable
    run, _ = step(run, UserAnswers(server="W"))
    results = [m for m in wire(run) if isinstance(m, HttpResponse) and m.payload]
    if not durable:
        err = results[0]
        assert err.status == 400 and err.payload["error"]["code"] == -32602
    assert results[-1].payload["result"]["resultType"] == outcome


@pytest.mark.parametrize(("era", "status"), [("modern", 400), ("legacy", 200)])
def test_an_unknown_tool_is_a_json_rpc_error_whose_http_status_follows_the_era(era: str, status: int) -> None:
    """2026-07-28 answers invalid params with 400 (basic/index.mdx); 2025-11-25 answers a request with a
    body, and the SDK's legacy transport sends 200 whatever the handler returned."""
    run, _ = step(play("outage", era), TakeTurn(calls=[ToolCall(server="A", tool="no_such_tool")]))
    (res,) = [m for m in wire(run) if isinstance(m, HttpResponse)]
    assert res.status == status and res.payload["error"]["code"] == -32602


def test_tool_annotations_say_something_useful() -> None:
    run, _ = step(play("guide", "modern"), Reauthenticate(server="P", role="admin"))
    tools = {
        t["name"]: t["annotations"]
        for t in next(m for m in wire(run) if label(m) == "result").payload["result"]["tools"]
    }
    assert tools["delete_workspace"] == {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False}
    for hints in tools.values():
        assert hints.get("readOnlyHint") is True or "destructiveHint" in hints
    q = play("guide", "modern").state.host.clients["Q"].tools
    assert all(t.read_only for t in q)


@era_param
def test_the_model_does_not_call_a_destructive_tool_on_its_own_and_passes_fitting_arguments(era: str) -> None:
    run = play("guide", era, TakeTurn(), Reauthenticate(server="P", role="admin"))
    run, _ = step(run, TakeTurn())
    called = [(c.server, c.tool) for c in run.last.turn.calls]
    assert ("P", "delete_workspace") not in called
    held = [line.params for line in run.last.lines if line.code == "narration.destructive_held"]
    assert held == [{"tool": "delete_workspace", "server": "P"}]
    args = [m.payload["params"]["arguments"] for m in wire(run) if label(m) == "tools/call"]
    values = [v for a in args for v in a.values()]
    assert len(set(values)) == len(values) > 1, "each argument gets a value that fits it"


def test_undo_and_at_step_use_checkpoints_and_match_a_replay() -> None:
    events = [TakeTurn(), ServerDies(server="A"), TakeTurn(), ServerBack(server="A")] * 5
    runs = [play("outage", "legacy")]
    for e in events:
        runs.append(step(runs[-1], e)[0])
    last = runs[-1]
    assert last.checkpoint is not None and len(last.checkpoint.playground.events) < len(events)
    for n in (0, 3, 8, 13, 19):
        assert at_step(last, n) == runs[n]
    assert undo(last) == runs[-2]
    with pytest.raises(ValueError):
        at_step(last, len(events) + 1)


def test_the_view_json_types_every_wire_item() -> None:
    run = play("outage", "legacy", StartCall(server="A", tool="search_docs"))
    run, v = step(run, ServerDies(server="A"))
    dumped = v.model_dump(mode="json")
    assert "wire" not in dumped  # carried once, in the comparison
    items = dumped["comparison"]["this"]["wire"]
    assert [(i["kind"], i["on_wire"]) for i in items] == [("stream_end", False), ("host_built", False)]
    assert all({"sender", "receiver", "http", "headers", "payload", "note"} <= set(i) for i in items)


def test_every_event_has_its_handler_beside_it_and_a_heading_that_names_only_its_fields() -> None:
    import string
    import typing

    from lesson.i18n import DEFAULT, catalogue
    from lesson.sim.events import HANDLERS, Event

    classes = typing.get_args(typing.get_args(Event)[0])
    assert {c.model_fields["kind"].default for c in classes} == set(HANDLERS)
    for cls in classes:
        kind = cls.model_fields["kind"].default
        assert HANDLERS[kind].__module__ == cls.__module__
        heading = catalogue(DEFAULT)[f"narration.event.{kind}"]
        named = {field for _, field, _, _ in string.Formatter().parse(heading) if field}
        assert named <= set(cls.model_fields) - {"kind"}, (kind, named)


def test_a_legacy_server_with_an_event_store_numbers_its_events_and_the_client_resumes_from_the_last() -> None:
    run = play("restart", "legacy", listen=True, event_store=True)
    run, _ = step(run, DeployTool(server="W", tool=ToolDef(name="get_alerts", description="Alerts", arg="city")))
    (event,) = [m for m in wire(run) if isinstance(m, SseEvent)]
    assert event.event_id is not None
    run, _ = step(run, ListenDrops(server="W"))
    (get,) = [m for m in wire(run) if isinstance(m, HttpRequest) and m.method == "GET"]
    assert get.headers["Last-Event-ID"] == event.event_id


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_gateway_that_is_down_tells_nobody(era: str) -> None:
    """Found by the property tests: a backend's change behind a dead gateway reached other hosts."""
    from lesson.sim import Start, advance, begin, parse_event, view

    run = begin(Start(name="gateway", era=era))
    dies = {"kind": "server_dies", "server": "G"}
    for event in (dies, {"kind": "remove_tool", "server": "B", "tool": "assign_ticket"}):
        run = advance(run, parse_event(event))
    assert not [w for w in view(run).wire if w.sender == "G"]


@pytest.mark.parametrize("listen", [True, False])
def test_a_revoked_token_gets_401_before_any_session_work_on_a_legacy_restart(listen: bool) -> None:
    """The SDK's auth middleware wraps the whole endpoint: no initialize is answered, no session id is
    issued and no notification is accepted for a token the new process never issued."""
    run = play("restart", "legacy", StartCall(server="W", tool="get_forecast"), listen=listen, auth_in_process=True)
    run, v = step(run, RestartServer(server="W"))
    responses = [m for m in wire(run) if isinstance(m, HttpResponse)]
    assert [r.status for r in responses] == [401], "one 401, and the client stops: the user must sign in"
    assert "initialize" not in labels(wire(run))
    assert not [r for r in responses if "Mcp-Session-Id" in r.headers]
    assert v.servers[0].status == "signed_out"
    run, _ = step(run, TokenRefreshed(server="W"))
    statuses = [m.status for m in wire(run) if isinstance(m, HttpResponse)]
    assert 401 not in statuses and 404 in statuses and "initialize" in labels(wire(run))


def test_an_expired_token_gets_401_before_the_404_of_a_dead_legacy_session() -> None:
    run = play("restart", "legacy", TokenExpires(server="W"), listen=True)
    run, _ = step(run, RestartServer(server="W"))
    statuses = [m.status for m in wire(run) if isinstance(m, HttpResponse)]
    assert statuses[:2] == [401, 404], "refreshed after the 401, the retry meets the dead session"
    in_order(wire(run), "initialize", "result", "notifications/initialized", "tools/list")


def test_a_legacy_call_resumes_on_its_own_stream_from_the_id_its_response_carried() -> None:
    """Resumption (2025-11-25) is a GET with the last event id seen on that stream; the server replays that
    stream's messages only. A call's result needs a call stream with event ids to be resumed."""
    options = {"listen": True, "sessions_durable": True, "event_store": True}
    run = play("restart", "legacy", StartCall(server="W", tool="get_forecast"), **options)
    (call,) = [m for m in wire(run) if label(m) == "tools/call"]
    (primed,) = [m for m in wire(run) if isinstance(m, HttpResponse)]
    assert primed.sse and primed.event_id and primed.payload is None, "the call's stream opens with an id, no data"
    run, _ = step(run, RestartServer(server="W"))
    gets = [m for m in wire(run) if isinstance(m, HttpRequest) and m.method == "GET"]
    assert [g.headers.get("Last-Event-ID") for g in gets] == [None, primed.event_id]
    i_resume = wire(run).index(gets[-1])
    (result,) = [m for m in wire(run)[i_resume:] if label(m) == "result" and isinstance(m, SseEvent)]
    assert result.payload["id"] == call.payload["id"]


def test_a_delete_with_an_expired_token_meets_401_before_the_session_ends() -> None:
    run = play("restart", "legacy", TokenExpires(server="W"))
    run, _ = step(run, RemoveServer(server="W"))
    deletes = [m for m in wire(run) if isinstance(m, HttpRequest) and m.method == "DELETE"]
    statuses = [m.status for m in wire(run) if isinstance(m, HttpResponse)]
    assert len(deletes) == 2 and statuses == [401, 200], "refreshed after the 401, the DELETE is sent again"
    first, retry = (d.headers["Authorization"] for d in deletes)
    assert first != retry, "the DELETE is sent again with the refreshed token"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_requests_carry_the_bearer_token_only_to_a_server_that_wants_one(era: str) -> None:
    """The SDK client's auth puts ``Authorization: Bearer`` on every HTTP request (POST, GET, DELETE) to a
    protected server; the retry after a 401 for an expired token carries the refreshed token."""
    run = play("restart", era, TokenExpires(server="W"), listen=True)
    run, _ = step(run, TakeTurn())
    requests = [m for m in wire(run) if isinstance(m, HttpRequest)]
    assert requests and all(m.headers.get("Authorization", "").startswith("Bearer ") for m in requests)
    expired, retry = requests[0].headers["Authorization"], requests[-1].headers["Authorization"]
    assert [m.status for m in wire(run) if isinstance(m, HttpResponse)][0] == 401
    assert expired != retry, "the call is sent again with the refreshed token"
    outage = play("outage", era, TakeTurn())
    assert not [m for m in wire(outage) if isinstance(m, HttpRequest) and "Authorization" in m.headers]


def test_a_new_stdio_process_is_sent_no_answer_it_never_asked_for_and_counts_its_own_ids() -> None:
    run = play("restart", "legacy", AskUserInput(server="W", tool="get_forecast"), transport="stdio", listen=True)
    (first_ask,) = [m for m in wire(run) if label(m) == "elicitation/create"]
    run = play(
        "restart",
        "legacy",
        AskUserInput(server="W", tool="get_forecast"),
        RestartServer(server="W"),
        transport="stdio",
        listen=True,
    )
    run, _ = step(run, UserAnswers(server="W"))
    assert not [m for m in wire(run) if m.sender == "host" and m.payload and "result" in m.payload]
    assert labels(wire(run)) == ["tools/call", "elicitation/create"], "the tool is called again, and asks again"
    ask = wire(run)[1]
    assert ask.payload["id"] == first_ask.payload["id"], "a new process counts its own request ids from the start"


@pytest.mark.parametrize("how", ["restart", "dies and comes back"])
def test_a_modern_stdio_client_meets_every_new_process_with_server_discover(how: str) -> None:
    events = [RestartServer(server="W")] if how == "restart" else [ServerDies(server="W"), ServerBack(server="W")]
    run = play("restart", "modern", *events[:-1], transport="stdio", listen=True)
    run, _ = step(run, events[-1])
    in_order(wire(run), "server/discover", "result", "subscriptions/listen", "tools/list")


def test_a_legacy_client_that_never_listened_sends_no_get_after_a_restart() -> None:
    run = play("restart", "legacy", StartCall(server="W", tool="get_forecast"), listen=False)
    run, _ = step(run, RestartServer(server="W"))
    assert not [m for m in wire(run) if isinstance(m, HttpRequest) and m.method == "GET"]
    i_404, _, i_call = in_order(wire(run), "error", "initialize", "tools/call")
    assert wire(run)[i_404].status == 404, "its next request carried the old session id and met the 404"


@era_param
def test_a_call_to_a_removed_server_is_answered_by_a_host_built_error_that_the_wire_shows(era: str) -> None:
    run = play("outage", era, RemoveServer(server="A"))
    run, _ = step(run, TakeTurn(calls=[ToolCall(server="A", tool="search_docs", arguments={"query": "x"})]))
    (made,) = wire(run)
    assert isinstance(made, HostBuilt) and not made.on_wire, "nothing is sent; the model's error is the host's"
    assert made.payload["isError"] is True and made.receiver == "model"
    assert run.state.host.conversation[-1].role == "tool", "the model is told the call failed"


@era_param
def test_a_call_in_flight_to_a_removed_server_gets_a_host_built_error(era: str) -> None:
    run = play("outage", era, StartCall(server="A", tool="search_docs"))
    run, _ = step(run, RemoveServer(server="A"))
    (made,) = [m for m in wire(run) if isinstance(m, HostBuilt)]
    assert made.payload["isError"] is True and not made.on_wire
    assert run.state.host.conversation[-1].role == "tool", "the model is told the call ended"


def test_a_legacy_session_lives_in_the_memory_of_the_replica_that_issued_it() -> None:
    run = play("baskets", "legacy", LandOnReplica(server="S", replica=2))
    run, _ = step(run, CreateBasket(server="S"))
    assert [m.status for m in wire(run) if isinstance(m, HttpResponse)] == [404, 200, 202, 200, 200, 200]
    # A host that listens opens the new session's GET stream, as the SDK's client does on connecting.
    sent = [(m.method, (m.payload or {}).get("method")) for m in wire(run) if isinstance(m, HttpRequest)]
    assert sent[3:] == [("GET", None), ("POST", "tools/list"), ("POST", "tools/call")]
    run, _ = step(run, CreateBasket(server="S"))
    assert [m.status for m in wire(run) if isinstance(m, HttpResponse)] == [200], "the new session is on replica 2"
    run = play("baskets", "modern", LandOnReplica(server="S", replica=2))
    run, _ = step(run, CreateBasket(server="S"))
    assert [m.status for m in wire(run) if isinstance(m, HttpResponse)] == [200], "no session in 2026-07-28"


def test_the_modern_listen_stream_tells_proxies_not_to_buffer_it() -> None:
    run, _ = step(play("restart", "modern", listen=True), ListenDrops(server="W"))
    (opened,) = [m for m in wire(run) if isinstance(m, HttpResponse) and m.sse]
    assert opened.headers["X-Accel-Buffering"] == "no" and opened.headers["Content-Type"] == "text/event-stream"


def test_the_legacy_get_stream_tells_proxies_not_to_buffer_it_too() -> None:
    _, frames = opening(Start(name="restart", era="legacy", options={"listen": True}))
    streams = [m for m in frames if isinstance(m, HttpResponse) and m.sse]
    assert streams, "the opening opens the session's GET stream"
    assert all(m.headers["X-Accel-Buffering"] == "no" for m in streams)


@era_param
def test_the_restart_log_says_what_became_of_the_token_before_the_401_and_never_calls_a_bad_token_valid(
    era: str,
) -> None:
    run = play("restart", era, StartCall(server="W", tool="get_forecast"), listen=True, auth_in_process=True)
    run, _ = step(run, RestartServer(server="W"))
    said = [(line.tone, line.code) for line in run.last.lines]
    gone = said.index(("warn", "narration.restart_token_gone"))
    answered = said.index(("error", "narration.token_gone_sign_in"))
    assert gone < answered, "the token's fate is told before the answer it causes"
    run, _ = step(play("restart", era, TokenExpires(server="W"), listen=True), RestartServer(server="W"))
    said = codes(run)
    assert "narration.restart_token_expired" in said and "narration.restart_token_valid" not in said


def test_no_session_is_promised_where_the_server_issues_none() -> None:
    run = play("restart", "legacy", AskUserInput(server="W", tool="get_forecast"), issues_session_id=False)
    run, _ = step(run, RestartServer(server="W"))
    said = codes(run, parts=True)
    assert "narration.then.ask_again" in said and "narration.then.new_session" not in said


@pytest.mark.parametrize("issues", [True, False])
def test_a_get_stream_is_called_the_sessions_only_where_a_session_id_was_issued(issues: bool) -> None:
    _, frames = opening(Start(name="restart", era="legacy", options={"listen": True, "issues_session_id": issues}))
    [get] = [m for m in frames if isinstance(m, HttpRequest) and m.method == "GET"]
    assert ("Mcp-Session-Id" in get.headers) is issues
    assert get.note.code == ("narration.note.opens_session_stream" if issues else "narration.note.opens_stream")


def test_the_legacy_opening_speaks_of_no_listen_stream() -> None:
    run = play("outage", "legacy")
    assert "listen stream" not in " ".join(line_text(line) for step in run.log for line in step.lines)
