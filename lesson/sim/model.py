"""The simulation's state: one host, its clients, and the simulated servers.

Everything here is plain data that round-trips through JSON exactly. The parts the rules change in
place (``State``, ``Host``, ``Client``, ``SimServer``) are slotted dataclasses: a step copies all of them
(``copy_state``), and a dataclass copy takes about two thirds of a model copy's time and a third of
its memory, so a cached playground can keep its own copy of both eras' states. The parts the rules only
ever replace (``Value``: a tool, a stream, a call) are frozen pydantic models, shared by the copies.
pydantic writes the dataclasses (a run's JSON) and validates them, with the same ``extra="forbid"``,
whenever they come from outside (a run read back from JSON); the named starts build them from
specs pydantic has validated. An assignment to a field a dataclass lacks fails (its slots).

The rules that change the state live in the clients, the servers' lifecycle and the event handlers;
they change a copy, never the state they were given.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializationInfo, field_serializer

Era = Literal["legacy", "modern"]
Transport = Literal["http", "stdio"]
Status = Literal["connected", "down", "signed_out"]
Token = Literal["valid", "expired", "revoked", "none"]
Role = Literal["member", "admin"]

VERSION: dict[Era, str] = {"legacy": "2025-11-25", "modern": "2026-07-28"}  # the one table of eras (labels: catalogue)
ERAS: tuple[Era, ...] = tuple(VERSION)


def other_era(era: Era) -> Era:
    return "modern" if era == "legacy" else "legacy"


class Strict(BaseModel):
    """Unknown fields are errors: a typo in a scenario or a frame must not pass silently."""

    model_config = ConfigDict(extra="forbid")


class Value(Strict):
    """A part of the state the rules never change in place, only replace (a tool, a message, a
    stream, a call): frozen, so copies of the state can share it and an assignment to it fails loudly."""

    model_config = ConfigDict(frozen=True)


class Said(Value):
    """Something the simulation says, as data: ``code`` names a sentence of the message catalogue
    (``narration.*``, ``refusal.*``) and ``params`` the values it is filled with (plain JSON; a value may
    itself be a message, ``{"code": ..., "params": ...}``). The simulation never reads the catalogue:
    ``text`` is empty here and written where a view is sent out, in the reader's language, by the words
    the writer passes as serialization context (``lesson.narration.words``); a page reads ``text``
    beside ``code``, and the values stay here."""

    text: str = ""
    code: str
    params: dict[str, Any] = Field(default_factory=dict, exclude=True)

    @field_serializer("text")
    def _words(self, text: str, info: SerializationInfo) -> str:
        """Written out in the reader's words where the writer supplies them (``lesson.narration.words``)."""
        say = info.context.get("say") if isinstance(info.context, dict) else None
        return say(self) if say is not None else text


def said(code: str, **params: Any) -> Said:
    """``code`` said with these values (a note on a frame, a cell of the server table)."""
    return Said(code=code, params=params)


class ToolDef(Value):
    name: str
    description: str
    idempotent: bool = True
    admin_only: bool = False
    arg: str = "query"  # the string argument the simulated tool takes
    handle: str | None = None  # a handle it takes too, before ``arg``: one an earlier call returned (basket_id)
    origin: str | None = None  # behind a gateway: the backend that provides it
    read_only: bool = False  # readOnlyHint: true, and the other hints then mean nothing
    destructive: bool = False  # destructiveHint, sent whenever readOnlyHint is false


@dataclass(slots=True)
class SimServer:
    """A simulated MCP server process, as it really is (the host may know less)."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    name: str
    title: str
    tools: list[ToolDef]
    upcoming: list[ToolDef] = field(default_factory=list)  # tools a later deploy brings
    list_changed: bool = True  # declares capabilities.tools.listChanged
    up: bool = True
    generation: int = 1  # process generation: +1 on every restart
    change_seq: int = 0  # +1 whenever its tool list changes
    transport: Transport = "http"
    speaks: list[Era] = field(default_factory=lambda: list(ERAS))  # the protocol eras it serves
    issues_session_id: bool = True  # legacy: answers initialize with Mcp-Session-Id
    event_store: bool = False  # legacy: SSE events carry ids and are stored
    sessions_durable: bool = False  # legacy: session, events and unfinished work outlive the process
    state_key_durable: bool = False  # modern: requestState key survives a restart
    auth: bool = False  # HTTP: the endpoint wants a bearer token on every request (401 without a good one)
    auth_in_process: bool = False  # authorization server runs inside this process, tokens in memory
    handles_durable: bool = True  # explicit state handles live in a durable store
    durable_handles: dict[str, list[str]] = field(default_factory=dict)
    process_handles: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # per replica
    replicas: int = 1
    replica: int = 1  # the replica the next call lands on
    sessions: dict[str, int] = field(default_factory=dict)  # legacy session ids, each with the replica holding it
    # A gateway: one endpoint in front of backends it health-checks.
    gateway: bool = False
    backends: list[str] = field(default_factory=list)
    unhealthy: list[str] = field(default_factory=list)
    other_listeners: list[str] = field(default_factory=list)  # other hosts listening to a gateway
    behind: str | None = None  # a backend: the gateway it sits behind
    handle_seq: int = 0
    state_seq: int = 0
    request_seq: int = 0  # the process's own request ids (elicitation): a new process counts from 0 again
    event_seq: int = 0  # legacy, with an event store: the id of the last SSE event it stored


class ListenStream(Value):
    """Modern: a ``subscriptions/listen`` request; legacy: the session's GET SSE stream."""

    open: bool = False
    request_id: str | None = None  # modern: the listen request's id = the subscription id
    acknowledged: bool = False
    last_event_id: str | None = None  # legacy: the id of the last event that came on it (the server stores events)


class InFlight(Value):
    request_id: int
    tool: str
    arguments: dict[str, str]
    idempotent: bool
    event_id: str | None = None  # legacy: the last event id its SSE stream carried (a server that stores events)


class PendingInput(Value):
    """A question a tool asked the user. Two ids, never one: the client's call that asked, and
    (legacy only) the server's own elicitation request, which the answer must carry."""

    tool: str
    arguments: dict[str, str]
    question: str
    call_id: int  # the tools/call request that led to the question
    elicit_id: int | None = None  # legacy: the id of the server's elicitation/create request
    request_state: str | None = None  # modern: held by the client between rounds
    generation: int  # server process that asked
    stream_dropped: bool = False  # legacy: the call's SSE stream ended while the user was thinking
    event_id: str | None = None  # legacy: the id of the SSE event that carried the question (stored events)
    resumed: bool = False  # legacy: the call's stream was resumed after a restart (the work outlived the process)


@dataclass(slots=True)
class Client:
    """The host's client for one configured server."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    server: str
    era: Era
    status: Status = "connected"
    greeted: bool = False  # has done its era's opening (legacy initialize, modern server/discover)
    session_id: str | None = None
    tools: list[ToolDef] = field(default_factory=list)  # cached tools/list result
    listed_generation: int = 0
    listed_seq: int = -1
    listen: ListenStream = field(default_factory=ListenStream)
    in_flight: list[InFlight] = field(default_factory=list)
    pending_input: PendingInput | None = None
    token: Token = "valid"
    token_serial: int = 1  # +1 for each new access token (a refresh, a new sign-in): the header's value
    role: Role = "member"
    next_id: int = 1
    listen_seq: int = 0
    # The server table's "last change" (``step.changed``) and "last error", as messages (``step.msg``).
    last_change: dict[str, Any] | None = None
    last_error: dict[str, Any] | None = None
    refetches: int = 0  # tools/list calls made
    wasted_refetches: int = 0  # ... that returned the list unchanged
    ignored_notifications: int = 0
    lost_answers: int = 0  # the user's answers a restart threw away (the user is asked again)
    era_refused: bool = False  # the server speaks no era this client can: it refused the greeting

    def shown_status(self) -> str:
        """The status the host shows and says: a server that refused the greeting is running, but the
        host cannot use it, which is not the same as down."""
        return "incompatible" if self.era_refused and self.status == "down" else self.status


class ToolCall(Value):
    """One call the model makes: which server, which tool, which arguments."""

    server: str
    tool: str
    arguments: dict[str, str] = Field(default_factory=dict)


class PromptTool(Value):
    name: str
    server: str
    origin: str | None = None  # behind a gateway: the backend that provides it, as the prompt named it


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation: a plain frozen dataclass, since a long conversation holds many
    (a slotted dataclass is a fifth of a model's size); pydantic validates and writes it as a field."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "tool"]
    text: str


@dataclass(slots=True)
class Host:
    """The host: the model's conversation, the servers in its config, and a client for each."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    era: Era = "modern"  # the era new clients speak
    dual_era: bool = False  # speaks both: each client probes with server/discover and falls back to initialize
    conversation: list[Message] = field(default_factory=list)
    configured: list[str] = field(default_factory=list)  # servers, in config order
    clients: dict[str, Client] = field(default_factory=dict)
    auto_listen: bool = True  # open a listen stream on connect when the server offers one
    batching: bool = False  # batch tool-list changes until the next turn
    cache_invalidations: int = 0
    pending_changes: int = 0  # tool-list changes since the last turn
    last_prompt: list[PromptTool] = field(default_factory=list)
    turns: int = 0
    handles: list[str] = field(default_factory=list)  # handles the model has seen
    # The last access token held for each server the host no longer has a client for: a server added
    # again signs in afresh and gets a new token, never one a server may already have refused.
    token_serials: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class State:
    """One era's world at one step: the host and the simulated servers."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    start: str  # the name of the start it was built from (``Start.name``)
    host: Host
    servers: dict[str, SimServer]
    step: int = 0


M = TypeVar("M")


def _changeable(annotation: Any) -> bool:
    """The state's own dataclasses, which the rules change in place (on a step's copy)."""
    return isinstance(annotation, type) and is_dataclass(annotation) and not annotation.__dataclass_params__.frozen


def _copier(annotation: Any) -> Any:
    """How a value of this type is copied for a step, or None when it is shared: frozen values and
    plain immutables are shared; lists, dicts and the dataclasses the rules change are copied."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        inner = _copier(args[0])
        return list if inner is None else lambda v: [inner(x) for x in v]
    if origin is dict:
        inner = _copier(args[1])
        return dict if inner is None else lambda v: {k: inner(x) for k, x in v.items()}
    if _changeable(annotation):
        return copy_state
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:  # X | None
        inner = _copier(next(a for a in args if a is not type(None)))
        return None if inner is None else lambda v: None if v is None else inner(v)
    # Anything else is shared by the copies, so it must be something no rule can change in place.
    if origin in (set, tuple) or any(_copier(a) is not None for a in args):
        raise TypeError(f"copy_state cannot copy a {annotation}: use a list or a dict, or a frozen value")
    return None


@functools.cache
def _copier_of(cls: type) -> Any:
    """The copier of one of the state's dataclasses, worked out once from its type: every field read
    in one go, then each list, dict and changeable dataclass in it replaced by a copy."""
    hints = typing.get_type_hints(cls)
    names = [f.name for f in fields(cls)]
    read = operator.attrgetter(*names) if len(names) > 1 else lambda model: (getattr(model, names[0]),)
    copied = [(name, copy) for name in names if (copy := _copier(hints[name])) is not None]

    def copy_one(model: Any) -> Any:
        new = cls(*read(model))
        for name, copy in copied:
            setattr(new, name, copy(getattr(model, name)))
        return new

    return copy_one


def copy_state(model: M) -> M:
    """A copy of ``model`` the rules may change freely: every list, dict and changeable dataclass in it
    is a new one; the frozen values (``Value``) are shared, since nothing can change them."""
    return _copier_of(type(model))(model)
