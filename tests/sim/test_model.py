"""The simulation's state is plain data: a step works on a copy, and what a copy shares cannot change."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from lesson.sim import Start, begin
from lesson.sim import events as ev
from lesson.sim.host import apply
from lesson.sim.model import Client, Host, InFlight, Message, SimServer, ToolDef, copy_state


def test_a_changeable_model_takes_its_fields_and_refuses_anything_else() -> None:
    c = Client.model_validate({"server": "A", "era": "modern"})
    c.status = "down"
    assert c.model_dump()["status"] == "down"
    with pytest.raises(ValueError, match="no field"):
        c.statuss = "down"  # type: ignore[attr-defined]  # a typo must not pass silently
    srv = SimServer.model_validate({"name": "A", "title": "Docs", "tools": []})
    srv.up = False
    assert SimServer.model_validate_json(srv.model_dump_json()) == srv
    with pytest.raises(ValidationError):
        SimServer.model_validate({"name": "A", "title": "Docs", "tools": [], "upp": False})


def test_a_value_copies_share_cannot_be_changed_in_place() -> None:
    tool = ToolDef(name="search", description="Search")
    with pytest.raises(ValidationError, match="frozen"):
        tool.name = "fetch"  # type: ignore[misc]
    assert tool.model_copy(update={"name": "fetch"}).name == "fetch"  # values are replaced instead


def test_changing_a_copy_leaves_the_original_as_it_was() -> None:
    state = begin(Start(name="outage")).state
    before = state.model_dump_json()
    copy = copy_state(state)
    copy.servers["A"].up = False
    copy.servers["A"].tools.clear()
    copy.host.clients["A"].in_flight.append(InFlight(request_id=1, tool="t", arguments={}, idempotent=True))
    copy.host.clients.pop("B")
    copy.host.configured.append("C")
    copy.step += 1
    assert state.model_dump_json() == before
    assert copy.model_dump_json() != before


def test_a_step_returns_a_new_state_and_leaves_its_input_alone() -> None:
    state = begin(Start(name="outage")).state
    before = state.model_dump_json()
    after, outcome = apply(state, ev.ServerDies(server="A"))
    assert not outcome.rejected
    assert state.model_dump_json() == before and state.servers["A"].up
    assert not after.servers["A"].up


def test_a_conversation_message_is_validated_frozen_and_written_as_its_fields() -> None:
    host = Host.model_validate({"conversation": [{"role": "user", "text": "hi"}]})
    assert host.conversation == [Message(role="user", text="hi")]
    assert '"conversation":[{"role":"user","text":"hi"}]' in host.model_dump_json()
    with pytest.raises(ValidationError):
        Host.model_validate({"conversation": [{"role": "user", "text": "hi", "txt": "typo"}]})
    with pytest.raises(dataclasses.FrozenInstanceError):
        host.conversation[0].text = "changed"  # type: ignore[misc]
