"""The model takes turns and calls tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .. import frames as f
from .. import wire as w
from ..clients import client_for
from ..model import Client, Message, PromptTool, ToolCall, ToolDef, said
from ..notify import poll_silent_servers
from ..prompt import default_calls, last_prompt_keys, prompt_cached, prompt_keys, prompt_tools
from ..step import CallRecord, Rejected, Step, TurnRecord, count, listed, msg, word
from .base import EventBase, handles


class TakeTurn(EventBase):
    """The host calls the model; the model may call tools."""

    kind: Literal["take_turn"] = "take_turn"
    calls: list[ToolCall] | None = None  # None: the model carries on with each server's work


def call_tool(st: Step, call: ToolCall) -> CallRecord:
    if call.server not in st.s.host.clients:
        # Built by the host, like the error for a server that is down: shown as such, never sent.
        text = f"No server '{call.server}' is configured in this host."
        srv = st.s.servers.get(call.server)
        body = w.call_result_body(st.s.host.era, text, True)
        note = said("narration.note.built_no_server")
        st.show(f.host_built(st.s.host.era, srv.transport if srv else "http", body, note))
        return CallRecord(server=call.server, tool=call.tool, text=text, is_error=True, host_made=True)
    return client_for(st, st.s.host.clients[call.server]).call_tool(call)


def _listed(tools: list[PromptTool]) -> Any:
    """Tools named with their servers, as the log lists them: "explain_query (B), search (A)"."""
    return listed([msg("narration.tool_on", tool=t.name, server=t.server) for t in tools])


def deliver(st: Step, rec: CallRecord) -> None:
    st.s.host.conversation.append(Message(role="tool", text=f"{rec.tool}: {rec.text}"))


@dataclass
class _TurnStart:
    prompt: list[PromptTool]
    new: list[PromptTool]
    removed: list[PromptTool]


def turn_begins(st: Step) -> _TurnStart:
    """The host calls the model: the tools in this turn's prompt, and what changed since the last one."""
    h = st.s.host
    for name in h.configured:
        # The model's last call waits for the user's answer: the host calls the model again with its result.
        if (asked := h.clients[name].pending_input) is not None:
            raise Rejected("refusal.turn_waits_for_answer", server=name, tool=asked.tool)
        # The model's last call is still running: the turn goes on only once its result (or an error) is in.
        if running := h.clients[name].in_flight:
            raise Rejected("refusal.turn_waits_for_call", server=name, tool=running[0].tool)
    cached = prompt_cached(st)  # before this turn sends its own
    listed = prompt_keys(st.s)
    poll_silent_servers(st)
    if prompt_keys(st.s) != listed:
        # A server re-listed for this turn changed its tools: a change like any other, found only now.
        h.pending_changes += 1
    prompt = prompt_tools(st.s)
    # Compared as (name, server) pairs: all a PromptTool holds, without pydantic's __eq__.
    keys_now, keys_before = [(t.name, t.server) for t in prompt], last_prompt_keys(st.s)
    before, now = set(keys_before), set(keys_now)
    new = [t for t, key in zip(prompt, keys_now, strict=True) if key not in before]
    removed = [t for t, key in zip(h.last_prompt, keys_before, strict=True) if key not in now]
    h.turns += 1
    changed = keys_now != keys_before  # in order
    names = ", ".join(t.name for t in prompt) or "no tools"
    if prompt:
        st.say("narration.turn_prompt", "model", turn=h.turns, tools=count(len(prompt), "tool"), names=names)
    else:
        st.say("narration.turn_prompt_empty", "model", turn=h.turns)
    if new and h.turns > 1:
        st.say("narration.new_since_last_turn", "model", tools=_listed(new))
    if removed:
        st.say("narration.gone_since_last_turn", "model", tools=_listed(removed))
    if changed and cached:
        # The prompt the provider cached (the last turn's) no longer matches: missed once, whatever the
        # number of changes since, and whether the host held them back or rebuilt its list each time.
        h.cache_invalidations += 1
        if h.batching and h.pending_changes:
            changes = count(h.pending_changes, "change")
            st.say("narration.batched_changes", changes=changes, cache_invalidations=h.cache_invalidations)
        else:
            st.say("narration.cache_invalidated", cache_invalidations=h.cache_invalidations)
    h.conversation.append(Message(role="assistant", text=f"turn {h.turns}: sees {names}"))
    return _TurnStart(prompt, new, removed)


def turn_ends(st: Step, turn: _TurnStart, records: list[CallRecord]) -> None:
    h = st.s.host
    h.last_prompt = turn.prompt
    h.pending_changes = 0
    st.turn = TurnRecord(
        number=h.turns,
        tools_seen=turn.prompt,
        new_tools=turn.new if h.turns > 1 else [],
        removed_tools=turn.removed,
        calls=records,
    )


@handles(TakeTurn)
def _turn(st: Step, e: TakeTurn) -> None:
    turn = turn_begins(st)
    prompt, now = turn.prompt, {(t.name, t.server) for t in turn.prompt}
    if e.calls is not None:
        calls = e.calls
    else:
        calls, held = default_calls(st, prompt)
        for t in held:
            st.say("narration.destructive_held", "model", tool=t.name, server=t.server)
    records: list[CallRecord] = []
    for call in calls:
        rec = call_tool(st, call)
        records.append(rec)
        deliver(st, rec)
        if rec.host_made and (call.tool, call.server) not in now:
            # A tool from an earlier turn: the model may still call it, and the host must answer.
            st.say("narration.model_called_gone_tool", "failed", tool=call.tool, server=call.server, result=rec.text)
        elif rec.host_made:
            st.say("narration.model_called_host_error", "failed", tool=call.tool, server=call.server, result=rec.text)
        elif rec.is_error:
            st.say("narration.model_called_error", "failed", tool=call.tool, server=call.server, result=rec.text)
        else:
            st.say("narration.model_called", "model", tool=call.tool, server=call.server, result=rec.text)
    if not calls:
        st.say("narration.no_tool_called", "model")
    turn_ends(st, turn, records)


def pick_tool(c: Client, tool: str | None) -> ToolDef:
    tools = {t.name: t for t in c.tools}
    if tool is None:
        if not c.tools:
            raise Rejected("refusal.no_known_tools", server=c.server)
        return c.tools[0]
    if tool not in tools:
        raise Rejected("refusal.tool_not_offered", server=c.server, tool=tool)
    return tools[tool]


class StartCall(EventBase):
    """A model turn in which the model calls a tool whose result has not come back yet (the model acts
    only when the host calls it, so this is a turn like any other, with one call left running)."""

    kind: Literal["start_call"] = "start_call"
    server: str
    tool: str | None = None


@handles(StartCall)
def _start_call(st: Step, e: StartCall) -> None:
    # The turn first: the model picks from the tools this turn shows it (a refusal after it discards
    # the whole step, its lines included).
    turn = turn_begins(st)
    c = st.client(e.server)
    if c.status != "connected":
        raise Rejected("refusal.call_while_not_connected", server=e.server, status=word("status", c.shown_status()))
    tool = pick_tool(c, e.tool)
    if not client_for(st, c).start_call(tool):
        turn_ends(st, turn, [])
        return
    code = "narration.call_running_idempotent" if tool.idempotent else "narration.call_running_not_idempotent"
    st.say(code, "model", tool=tool.name, server=e.server)
    turn_ends(st, turn, [])
