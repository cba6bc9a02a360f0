"""Goals and expectations: the condition language over a view, and scenario files as (start, events)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from lesson.content.course import load_panels
from lesson.content.goals import Condition, Goal, describe, holds, path_problem, resolve
from lesson.content.scenarios import scenario_events
from lesson.sim import Start, advance, begin, parse_event, run_from_start, view
from lesson.sim.run import Playground

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "content"
CONDITION = TypeAdapter(Condition)


def cond(data: object) -> Condition:
    return CONDITION.validate_python(data)


@pytest.fixture(scope="module")
def a_down() -> dict:
    run = begin(Start(name="outage"))
    for e in ({"kind": "server_dies", "server": "A"}, {"kind": "take_turn"}):
        run = advance(run, parse_event(e))
    return view(run).model_dump(mode="json")


def test_paths_walk_keys_lists_and_selections(a_down: dict) -> None:
    assert resolve(a_down, "servers[name=A].status") == "down"
    assert resolve(a_down, "servers[0].name") == "A"
    assert resolve(a_down, "next_prompt.tools[*].server") == ["B", "B"]
    assert resolve(a_down, "servers[name=Z].status") is None


def test_a_view_model_reads_as_its_json_does() -> None:
    """Goals read the view model as it is (no dump per press); every path and test must agree with
    the same view dumped as JSON, the form authors write paths against."""
    run = begin(Start(name="outage"))
    events = [
        {"kind": "server_dies", "server": "A"},
        {"kind": "take_turn"},
        {"kind": "server_back", "server": "A"},
        {"kind": "take_turn"},
    ]
    conditions = [
        {"path": "servers[name=A].status", "equals": "down"},
        {"path": "servers[0].tools", "at_least": 1},
        {"path": "next_prompt.tools[*].server", "contains": "A"},
        {"path": "next_prompt.turns", "at_most": 0},
        {"path": "wire[*].kind", "contains": "http_request"},
        {"path": "comparison.other.era", "equals": "modern"},
        {"path": "counters.conversation", "at_least": 2},
        {"path": "servers[transport=http].name", "equals": "A"},
        {"not": {"path": "servers[name=B].last_error.code", "contains": "x"}},
    ]
    seen = set()
    for event in [None, *events]:
        if event is not None:
            run = advance(run, parse_event(event))
        shown = view(run)
        # ``wire`` is a path too; the JSON leaves it out (it repeats comparison.this.wire).
        dumped = shown.model_dump(mode="json") | {"wire": [f.model_dump(mode="json") for f in shown.wire]}
        for data in conditions:
            c = cond(data)
            assert holds(c, shown) == holds(c, dumped), (event, data)
            seen.add(holds(c, dumped))
        for path in ("servers[name=A]", "next_prompt.tools[*]", "wire[*].payload", "wire[*].headers", "turn"):
            assert resolve(shown, path) == resolve(dumped, path)
    assert seen == {True, False}  # the conditions tell states apart


def test_a_compiled_path_reads_what_resolve_reads() -> None:
    """``holds`` walks a path without [*] through one value, not resolve's lists: the two must agree,
    misses included (a missing list, an index past the end, a selection that matches nothing)."""
    from lesson.content.goals import _read_one

    run = begin(Start(name="outage"))
    paths = [
        "servers[name=A].status",
        "servers[name=Z].status",
        "servers[1].tools",
        "servers[7].name",
        "servers[transport=http].tools[0]",
        "turn.number",
        "turn.calls[0].text",
        "turn.calls[is_error=False].tool",  # a selection compares the text of a value that is not text
        "comparison.other.wire[0].payload",
        "era[0]",
        "counters",
        "next_prompt.removed",
    ]
    for event in [None, {"kind": "server_dies", "server": "A"}, {"kind": "take_turn"}]:
        if event is not None:
            run = advance(run, parse_event(event))
        shown = view(run)
        for data in (shown, shown.model_dump(mode="json")):
            for path in paths:
                read = _read_one(path)
                assert read is not None and read(data) == resolve(data, path), (event, path)
    assert _read_one("servers[*].name") is None  # a fanned path is left to resolve


def test_tests_and_combinators(a_down: dict) -> None:
    assert holds(cond({"path": "servers[name=A].status", "equals": "down"}), a_down)
    assert not holds(cond({"path": "next_prompt.tools[*].server", "contains": "A"}), a_down)
    assert holds(cond({"not": {"path": "next_prompt.tools[*].server", "contains": "A"}}), a_down)
    assert holds(cond({"path": "next_prompt.tools", "at_least": 2}), a_down)  # a list compares by length
    assert not holds(cond({"path": "next_prompt.tools", "at_most": 1}), a_down)
    both = {"all": [{"path": "counters.conversation", "at_least": 2}, {"path": "era", "equals": "modern"}]}
    assert holds(cond(both), a_down)
    assert holds(cond({"any": [{"path": "era", "equals": "legacy"}, {"path": "turn.number", "equals": 1}]}), a_down)


def test_equals_null_tests_for_a_value_the_view_shows_as_null(a_down: dict) -> None:
    """A server with no error, a change not yet seen: the view says null, and a goal can ask for it."""
    no_error = cond({"path": "servers[name=B].last_error.code", "equals": None})
    assert holds(no_error, a_down)
    assert not holds(cond({"path": "servers[name=A].last_error.code", "equals": None}), a_down)
    assert "equals null" in describe(no_error)
    for op in ("contains", "at_least", "at_most"):
        with pytest.raises(ValidationError, match=f"{op} needs a value"):
            cond({"path": "era", op: None})


def test_a_path_must_name_something_in_a_view() -> None:
    assert path_problem("servers[name=A].status") is None
    assert "no 'talk' here" in (path_problem("counters.talk") or "")
    assert "is not a list" in (path_problem("era[*]") or "")
    assert "no field 'nam'" in (path_problem("servers[nam=A].status") or "")
    with pytest.raises(ValidationError, match="exactly one of"):
        cond({"path": "era", "equals": "modern", "at_least": 1})
    with pytest.raises(ValidationError, match="is text: at_least counts a number or a list"):
        cond({"path": "servers[name=A].status", "at_least": 1})
    assert holds(cond({"path": "servers[*].status", "at_least": 1}), {"servers": [{"status": "down"}]})
    with pytest.raises(ValidationError, match="no 'nope' here"):
        TypeAdapter(Goal).validate_python({"text": "x", "when": {"all": [{"path": "nope", "equals": 1}]}})


def test_a_value_a_closed_set_never_holds_is_refused() -> None:
    """A status the view never shows (``dead`` for ``down``) would make a goal no press can meet."""
    with pytest.raises(ValidationError, match="never 'dead'"):
        cond({"path": "servers[name=A].status", "equals": "dead"})
    with pytest.raises(ValidationError, match="never 'gone'"):
        cond({"path": "servers[*].status", "contains": "gone"})
    with pytest.raises(ValidationError, match="did you mean 'legacy'"):
        cond({"path": "era", "equals": "legasy"})
    cond({"path": "servers[name=A].status", "equals": "down"})
    cond({"path": "next_prompt.tools[*].server", "contains": "Z"})  # a name is no closed set
    cond({"path": "servers[name=A].status", "contains": "connect"})  # a piece of one text: "connected"


def test_a_panel_goal_is_met_by_playing_it() -> None:
    panel = load_panels(FIXTURE)["lights"]
    assert panel.goal is not None
    run = begin(panel.start)
    assert not holds(panel.goal.when, view(run))
    run = advance(run, panel.button("kill").event)
    assert holds(panel.goal.when, view(run))


def test_a_scenario_file_is_a_start_and_its_events() -> None:
    start, events = scenario_events(FIXTURE / "scenarios" / "story.yaml")
    assert start == Start(name="outage", era="modern")
    assert [e.kind for e in events] == ["server_dies", "take_turn", "server_back"]
    run = run_from_start(Playground(start=start, events=events))
    assert resolve(view(run).model_dump(mode="json"), "servers[name=A].status") == "connected"
