"""A playground: a start scenario plus a list of events. Replaying them gives the same state
every time; undo is the replay of all but the last.

A run keeps a twin that starts in the other era and receives the same events, so every step can
say what it would have done there.
"""

from __future__ import annotations

from pydantic import Field

from .events import EVENT, Event, SwitchEra
from .host import LogLine, Outcome, apply
from .model import ERA_LABEL, State, Strict, other_era
from .scenarios import SCENARIOS, Start, start
from .view import StepLog, View, build_view

MAX_EVENTS = 500  # a playground longer than this is refused: it is a lesson, not a log store


class Playground(Strict):
    start: Start
    events: list[Event] = Field(default_factory=list)


class Run(Strict):
    playground: Playground
    state: State
    twin: State
    log: list[StepLog]
    last: Outcome | None = None
    other: Outcome | None = None


_LABELS = {
    "deploy_tool": "{server} deploys a new tool",
    "remove_tool": "{server} removes {tool}",
    "add_server": "an admin adds {server}",
    "remove_server": "an admin removes {server}",
    "server_dies": "{server} dies",
    "server_back": "{server} is back",
    "restart_server": "{server} restarts",
    "take_turn": "the model takes a turn",
    "start_call": "the model starts a call on {server}",
    "ask_user_input": "{server} asks the user a question",
    "user_answers": "the user answers {server}",
    "listen_drops": "the stream to {server} drops",
    "token_expires": "the token for {server} expires",
    "token_refreshed": "the token for {server} is renewed",
    "switch_era": "the host switches to the {era} era",
    "backend_joins": "{backend} joins gateway {gateway}",
    "backend_leaves": "{backend} leaves gateway {gateway}",
    "backend_fails": "{backend} fails its health check",
    "backend_recovers": "{backend} recovers",
    "create_basket": "the model calls create_basket",
    "add_item": "the model calls add_item",
    "land_on_replica": "calls land on replica {replica}",
    "undeclared_list_changed": "{server} sends list_changed without declaring it",
    "timer_list_changed": "{server}'s timer fires list_changed",
    "set_batching": "batching {on}",
    "reauthenticate": "the user signs in to {server} as {role}",
}


def describe(event: Event) -> str:
    """A short label for the log: what was pressed, in the lesson's words."""
    fields = {k: ("on" if v is True else "off" if v is False else v) for k, v in event.model_dump().items()}
    if fields.get("tool") is None:
        fields["tool"] = "a tool"
    elif isinstance(fields["tool"], dict):
        fields["tool"] = fields["tool"]["name"]
    text = _LABELS[event.kind].format_map(fields)
    return text[0].upper() + text[1:]


def _for_twin(event: Event) -> Event:
    if isinstance(event, SwitchEra):
        return event.model_copy(update={"era": other_era(event.era)})
    return event


def begin(spec: Start) -> Run:
    state = start(spec)
    twin = start(spec.model_copy(update={"era": other_era(spec.era)}))
    intro = LogLine(text=f"{SCENARIOS[spec.name][0]}. The host speaks {ERA_LABEL[spec.era]}.")
    return Run(
        playground=Playground(start=spec), state=state, twin=twin, log=[StepLog(step=0, label="start", lines=[intro])]
    )


def advance(run: Run, event: Event) -> Run:
    """Apply one press to the run (and its twin); the input run is not changed."""
    if len(run.playground.events) >= MAX_EVENTS:
        raise ValueError(f"a playground holds at most {MAX_EVENTS} events; reset to go on")
    event = EVENT.validate_python(event)
    state, outcome = apply(run.state, event)
    twin, other = apply(run.twin, _for_twin(event))
    # Everything below is already valid; re-validating the whole history would cost O(events) per step.
    return Run.model_construct(
        playground=Playground.model_construct(start=run.playground.start, events=[*run.playground.events, event]),
        state=state,
        twin=twin,
        log=[*run.log, StepLog(step=state.step, label=describe(event), lines=outcome.lines)],
        last=outcome,
        other=other,
    )


def replay(playground: Playground) -> Run:
    run = begin(playground.start)
    for event in playground.events:
        run = advance(run, event)
    return run


def undo(run: Run) -> Run:
    pg = run.playground
    return replay(Playground(start=pg.start, events=pg.events[:-1]))


def view(run: Run) -> View:
    return build_view(run.state, run.log, run.last, run.other)
