"""The shortcuts the simulation takes around pydantic leave models pydantic would have made."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lesson.sim.model import Client, SimServer, ToolDef, make, replace
from lesson.sim.step import LogLine


def test_a_made_model_equals_the_validated_one_and_dumps_the_same() -> None:
    made = make(LogLine, text="A is back", tone="change")
    checked = LogLine(text="A is back", tone="change")
    assert made == checked
    assert made.model_dump_json() == checked.model_dump_json()
    assert make(LogLine, text="x").tone == "info"  # a default the caller left out


def test_replace_changes_only_what_it_is_given() -> None:
    tool = ToolDef(name="search", description="Search")
    other = replace(tool, name="fetch")
    assert (other.name, other.description, tool.name) == ("fetch", "Search", "search")
    assert other == ToolDef(name="fetch", description="Search")


def test_a_mutable_model_takes_its_fields_and_refuses_anything_else() -> None:
    c = Client.model_validate({"server": "A", "era": "modern"})
    c.status = "down"
    assert c.model_dump()["status"] == "down"
    assert "status" in c.model_fields_set
    with pytest.raises(ValueError, match="no field"):
        c.statuss = "down"  # type: ignore[attr-defined]  # a typo must not pass silently
    srv = SimServer.model_validate({"name": "A", "title": "Docs", "tools": []})
    srv.up = False
    assert SimServer.model_validate_json(srv.model_dump_json()) == srv
    with pytest.raises(ValidationError):
        SimServer.model_validate({"name": "A", "title": "Docs", "tools": [], "upp": False})


def test_a_working_copy_settles_to_what_it_forked_and_shares_the_rest() -> None:
    from lesson.sim import Start, begin
    from lesson.sim.step import Step

    state = begin(Start(name="outage")).state
    st = Step(state)
    reached = st.s.servers["A"]  # a rule reached A: forked
    assert reached is not state.servers["A"]
    done = st.done()
    assert type(done.servers) is dict and type(done.host.clients) is dict
    assert done.servers["A"] is reached and done.servers["B"] is state.servers["B"]  # B never forked
    assert done.host.clients["A"] is state.host.clients["A"]
