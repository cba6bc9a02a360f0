"""The simulation's state is plain data: a step works on a copy, and what a copy shares cannot change."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_json

from lesson.sim import Start, begin
from lesson.sim import events as ev
from lesson.sim.host import apply
from lesson.sim.model import Client, Host, InFlight, Message, SimServer, ToolDef, copy_state


def test_a_changeable_part_takes_its_fields_and_refuses_anything_else() -> None:
    clients, servers = TypeAdapter(Client), TypeAdapter(SimServer)
    c = clients.validate_python({"server": "A", "era": "modern"})
    c.status = "down"
    assert clients.dump_python(c)["status"] == "down"
    with pytest.raises(AttributeError):
        c.statuss = "down"  # type: ignore[attr-defined]  # a typo must not pass silently
    srv = servers.validate_python({"name": "A", "title": "Docs", "tools": []})
    srv.up = False
    assert servers.validate_json(servers.dump_json(srv)) == srv
    with pytest.raises(ValidationError):
        servers.validate_python({"name": "A", "title": "Docs", "tools": [], "upp": False})


def test_a_value_copies_share_cannot_be_changed_in_place() -> None:
    tool = ToolDef(name="search", description="Search")
    with pytest.raises(ValidationError, match="frozen"):
        tool.name = "fetch"  # type: ignore[misc]
    assert tool.model_copy(update={"name": "fetch"}).name == "fetch"  # values are replaced instead


def test_changing_a_copy_leaves_the_original_as_it_was() -> None:
    state = begin(Start(name="outage")).state
    before = to_json(state)
    copy = copy_state(state)
    copy.servers["A"].up = False
    copy.servers["A"].tools.clear()
    copy.host.clients["A"].in_flight.append(InFlight(request_id=1, tool="t", arguments={}, idempotent=True))
    copy.host.clients.pop("B")
    copy.host.configured.append("C")
    copy.step += 1
    assert to_json(state) == before
    assert to_json(copy) != before


def test_a_step_returns_a_new_state_and_leaves_its_input_alone() -> None:
    state = begin(Start(name="outage")).state
    before = to_json(state)
    after, outcome = apply(state, ev.ServerDies(server="A"))
    assert not outcome.rejected
    assert to_json(state) == before and state.servers["A"].up
    assert not after.servers["A"].up


def test_a_conversation_message_is_validated_frozen_and_written_as_its_fields() -> None:
    hosts = TypeAdapter(Host)
    host = hosts.validate_python({"conversation": [{"role": "user", "text": "hi"}]})
    assert host.conversation == [Message(role="user", text="hi")]
    assert b'"conversation":[{"role":"user","text":"hi"}]' in hosts.dump_json(host)
    with pytest.raises(ValidationError):
        hosts.validate_python({"conversation": [{"role": "user", "text": "hi", "txt": "typo"}]})
    with pytest.raises(dataclasses.FrozenInstanceError):
        host.conversation[0].text = "changed"  # type: ignore[misc]


def test_a_field_no_copy_could_keep_apart_is_refused_when_the_copier_is_built() -> None:
    """A set or a tuple would be shared by a step's copy and its input, and so would a changeable part in
    a union with anything but None."""

    @dataclasses.dataclass(slots=True)
    class Holder:
        name: str
        names: set[str] = dataclasses.field(default_factory=set)

    @dataclasses.dataclass(slots=True)
    class Either:
        name: str
        client: Client | list[str] | None = None

    for kind in (Holder, Either):
        with pytest.raises(TypeError, match="cannot copy"):
            copy_state(kind(name="x"))


def test_an_optional_changeable_part_is_copied_when_present() -> None:
    @dataclasses.dataclass(slots=True)
    class Holder:
        name: str
        client: Client | None = None
        said: dict[str, str] | None = None

    empty = copy_state(Holder(name="x"))
    assert empty.client is None and empty.said is None
    full = Holder(name="x", client=Client(server="A", era="modern"), said={"code": "c"})
    copy = copy_state(full)
    assert copy == full and copy.client is not full.client and copy.said is not full.said
    copy.client.status = "down"
    copy.said["code"] = "changed"
    assert full.client.status == "connected" and full.said == {"code": "c"}
