"""The view: what one step shows, ready for the web layer to render as is."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from .frames import WireFrame
from .model import Client, Era, PromptTool, SimServer, State, Strict, other_era
from .notify import silent_servers
from .prompt import prompt_defs, tool_keys
from .step import LogLine, Outcome, Said, TurnRecord

# A row's status, an id the page names from its catalogue (``js.status.*``) and a goal can test. The
# table shows what the host knows, so a change nobody announced leaves a row "connected" with its old
# tools (a notice is answered with a re-list at once). "incompatible" is a server that refused the
# greeting: running, but unusable; "signed_out" waits for the user to sign in again.
RowStatus = Literal["connected", "down", "incompatible", "signed_out"]


class ServerRow(Strict):
    name: str
    title: str
    status: RowStatus
    era: Era | None  # None: the host and the server have no era in common (the page names it)
    transport: str
    listen: Said  # the stream the host listens on for changes, if any
    tools: list[str]
    last_change: Said | None
    last_error: Said | None


class PromptEntry(Strict):
    name: str
    server: str
    origin: str | None = None
    change: str  # "new" or "unchanged"


class NextPrompt(Strict):
    tools: list[PromptEntry]
    removed: list[PromptTool]
    cache_invalidations: int
    batching: bool
    pending_changes: int
    turns: int
    # Listed again before the turn (they never announce a change): their tools here may not be the turn's.
    relisted_first: list[str] = Field(default_factory=list)


class StepLog(Strict):
    step: int
    label: Said  # what was pressed (``narration.event.<kind>``)
    lines: list[LogLine]


class EraSide(Strict):
    """One era's side of the comparison; the page names the era from its catalogue."""

    era: Era
    lines: list[LogLine]
    wire: list[WireFrame]


class Comparison(Strict):
    """What the last step did in this era, beside what it does in the other."""

    this: EraSide
    other: EraSide


class Counters(Strict):
    conversation: int
    wasted_refetches: int
    ignored_notifications: int
    lost_answers: int = 0
    refetches: int


class Store(Strict):
    """Where a server keeps baskets: its durable store, or one replica's process memory."""

    label: Said  # which store: ``narration.store.*``
    current: bool  # the replica the next call lands on
    baskets: dict[str, list[str]]


class View(Strict):
    start: str  # the name of the playground's start
    era: Era
    dual_era: bool = False  # the host speaks both eras: the era the playground names changes nothing
    step: int
    servers: list[ServerRow]
    next_prompt: NextPrompt
    log: list[StepLog]
    # The last step's frames: the same list as ``comparison.this.wire``, so JSON carries it there only
    # (a quarter of an answer) and validation takes it back from there.
    wire: list[WireFrame] = Field(default_factory=list, exclude=True)
    turn: TurnRecord | None
    comparison: Comparison | None
    counters: Counters
    handles: list[str]
    stores: list[Store] = Field(default_factory=list)

    @model_validator(mode="after")
    def _wire_from_comparison(self) -> View:
        if self.comparison is not None and not self.wire:
            self.wire = self.comparison.this.wire
        return self


def _said(message: dict[str, Any]) -> Said:
    """A message the state holds (``msg``'s dict) as the view carries it."""
    return Said(code=message["code"], params=message["params"])


def _listen(c: Client, srv: SimServer) -> Said:
    if not c.listen.open:
        return Said(code="narration.table.listen.none")
    if c.era == "modern":
        code = "narration.table.listen.acknowledged" if c.listen.acknowledged else "narration.table.listen.waiting"
        return Said(code=code, params={"id": c.listen.request_id})
    if srv.transport == "stdio":
        return Said(code="narration.table.listen.stdout")
    if c.session_id:
        return Said(code="narration.table.listen.session", params={"session": c.session_id[:8]})
    return Said(code="narration.table.listen.sse")


def server_rows(state: State) -> list[ServerRow]:
    """One row per server the host connects to. A gateway is one server to the host: what sits behind it
    shows only as its tool list changing (the gateway's list_changed names no backend)."""
    rows: list[ServerRow] = []
    for name in state.host.configured:
        c = state.host.clients[name]
        srv = state.servers[name]
        rows.append(
            ServerRow(
                name=name,
                title=srv.title,
                status=c.shown_status(),
                era=None if c.era_refused else c.era,
                transport=srv.transport,
                listen=_listen(c, srv),
                tools=[t.name for t in c.tools] if c.status == "connected" else [],
                last_change=_said(c.last_change) if c.last_change else None,
                last_error=_said(c.last_error) if c.last_error else None,
            )
        )
    return rows


def next_prompt(state: State) -> NextPrompt:
    h = state.host
    defs = prompt_defs(state)
    last = tool_keys(h.last_prompt)
    now = {(t.name, server) for server, t in defs}
    return NextPrompt(
        tools=[
            PromptEntry(
                name=t.name,
                server=server,
                origin=t.origin,
                change="new" if h.turns and (t.name, server) not in last else "unchanged",
            )
            for server, t in defs
        ],
        removed=[t for t in h.last_prompt if (t.name, t.server) not in now],
        cache_invalidations=h.cache_invalidations,
        batching=h.batching,
        pending_changes=h.pending_changes,
        turns=h.turns,
        relisted_first=silent_servers(state),
    )


def in_moments(change: Said | None, moment_of: dict[int, int]) -> Said | None:
    """A server's last change, "step 6: down", as the moment that step belongs to, "moment 5: down", for a
    stepper, which counts moments (``lesson/content/stepper.py``); ``moment_of``: each step's moment."""
    if change is None or change.code != "narration.table.change":
        return change
    moment = moment_of[change.params["step"]]
    return Said(code="narration.table.change_in_moment", params={"moment": moment, "what": change.params["what"]})


def counters(state: State) -> Counters:
    wasted = ignored = lost = refetches = 0
    for c in state.host.clients.values():  # one pass: this runs on every press
        wasted += c.wasted_refetches
        ignored += c.ignored_notifications
        lost += c.lost_answers
        refetches += c.refetches
    return Counters(
        conversation=len(state.host.conversation),
        wasted_refetches=wasted,
        ignored_notifications=ignored,
        lost_answers=lost,
        refetches=refetches,
    )


def stores(state: State) -> list[Store]:
    """The baskets of every server that keeps them or runs replicas: the durable store (when it has
    one) and each replica's memory, so a page can show which store a handle lives in."""
    out: list[Store] = []
    for name in state.host.configured:
        srv = state.servers[name]
        if srv.replicas < 2 and not srv.durable_handles and not srv.process_handles:
            continue
        if srv.handles_durable:
            durable = Said(code="narration.store.durable", params={"server": name})
            out.append(Store(label=durable, current=False, baskets=srv.durable_handles))
        for r in range(1, srv.replicas + 1):
            memory = {} if srv.handles_durable else srv.process_handles.get(str(r), {})
            if srv.replicas > 1:
                label = Said(code="narration.store.replica", params={"server": name, "replica": r})
            else:
                label = Said(code="narration.store.process", params={"server": name})
            out.append(Store(label=label, current=srv.up and r == srv.replica, baskets=memory))
    return out


def build_view(
    state: State,
    log: list[StepLog],
    last: Outcome | None,
    other: Outcome | None,
) -> View:
    era = state.host.era
    comparison = None
    if last is not None and other is not None:
        comparison = Comparison(
            this=EraSide(era=era, lines=last.lines, wire=last.wire),
            other=EraSide(era=other_era(era), lines=other.lines, wire=other.wire),
        )
    return View(
        start=state.start,
        era=era,
        dual_era=state.host.dual_era,
        step=state.step,
        servers=server_rows(state),
        next_prompt=next_prompt(state),
        log=log,
        wire=last.wire if last else [],
        turn=last.turn if last else None,
        comparison=comparison,
        counters=counters(state),
        handles=list(state.host.handles),
        stores=stores(state),
    )


__all__ = ["NextPrompt", "ServerRow", "StepLog", "View", "build_view"]
