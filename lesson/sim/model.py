"""The simulation's state: one host, its clients, and the simulated servers.

Everything here is plain data (pydantic models that round-trip through JSON exactly). The rules
that change it live in the clients, the servers' lifecycle and the event handlers.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

Era = Literal["legacy", "modern"]
Transport = Literal["http", "stdio"]
Status = Literal["connected", "down", "reconnecting", "hidden"]
Token = Literal["valid", "expired", "revoked", "none"]
Role = Literal["member", "admin"]

VERSION = {"legacy": "2025-11-25", "modern": "2026-07-28"}
ERA_LABEL = {"legacy": "legacy (2025-11-25)", "modern": "modern (2026-07-28)"}


def other_era(era: Era) -> Era:
    return "modern" if era == "legacy" else "legacy"


def _generic_reads() -> Callable[[type], bool] | None:
    """How to give a model class CPython's own attribute lookup, or None where that cannot be done safely.

    BaseModel defines ``__getattr__`` (for private attributes and extra fields), and any class with one
    gets CPython's slow attribute hook: every read of a field looks the class up again, and the
    interpreter cannot specialise it. A press reads a thousand fields. For a class with neither private
    attributes nor extra fields, the generic lookup finds exactly the same values, and for a name that
    is not there raises the same AttributeError, so the class's lookup slot is set back to it. The
    slot's place is checked on two classes of known lookup first; elsewhere (another interpreter, a
    layout not known) nothing changes, and only speed differs."""
    if sys.implementation.name != "cpython":
        return None
    import ctypes

    generic = ctypes.cast(ctypes.pythonapi.PyObject_GenericGetAttr, ctypes.c_void_p).value
    offset = 18 * ctypes.sizeof(ctypes.c_void_p)  # PyTypeObject.tp_getattro, after 18 pointer-sized fields

    def slot(cls: type) -> Any:
        return ctypes.c_void_p.from_address(id(cls) + offset)

    class Plain:
        pass

    class Hooked:
        def __getattr__(self, name: str) -> Any:
            raise AttributeError(name)

    hook = slot(Hooked).value
    if slot(Plain).value != generic or hook in (None, generic):
        return None

    def make_generic(cls: type) -> bool:
        where = slot(cls)
        if where.value != hook:  # only a class whose lookup is exactly the hook
            return False
        where.value = generic
        ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))  # drop what the interpreter cached
        return True

    return make_generic


_MAKE_GENERIC = _generic_reads()


def generic_reads(cls: type[BaseModel]) -> bool:
    """Give ``cls`` CPython's own attribute lookup if it has no private attributes and no extra fields
    (see ``_generic_reads``); True if it now has it."""
    if _MAKE_GENERIC is None or cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
        return False
    return _MAKE_GENERIC(cls)


class Strict(BaseModel):
    """Unknown fields are errors: a typo in a scenario or a frame must not pass silently."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        generic_reads(cls)  # every model of the simulation, its views and the frames


class Mutable(Strict):
    """A model the rules change in place (the state, the host, its clients, the servers): a step
    assigns some dozens of fields, so assignment to a field skips pydantic's handler lookup."""

    def __setattr__(self, name: str, value: Any) -> None:
        fields = self.__dict__
        if name in fields:
            fields[name] = value
            self.__pydantic_fields_set__.add(name)
        else:
            super().__setattr__(name, value)


M = TypeVar("M", bound=BaseModel)


@functools.cache
def _shape(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...], set[str]]:
    """A model's fields in order with their plain defaults (None where a factory or the caller fills
    them), its default factories, and the set of all its field names."""
    template, factories = {}, []
    for name, f in cls.model_fields.items():
        template[name] = None if f.is_required() or f.default_factory is not None else f.default
        if f.default_factory is not None:
            factories.append((name, f.default_factory))
    return template, tuple(factories), set(cls.model_fields)


def make(cls: type[M], /, **values: Any) -> M:
    """Build a model from values the simulation made itself, already valid: no validation, which costs
    more than the rest of a step. Input from outside (scenarios, frames, events) is always validated.

    Every instance shares one set of "fields set" per class, holding every field name: adding a name to
    it (as pydantic does on assignment) changes nothing, and nothing here reads it."""
    template, factories, names = _shape(cls)
    fields = {**template, **values}  # field order: JSON keys come out in this order
    for name, factory in factories:
        if name not in values:
            fields[name] = factory()
    return assemble(cls, fields, names)


# BaseModel's own slots, set through their descriptors: ``object.__setattr__`` looks each name up
# through the class's MRO first, and a step builds some hundred models.
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def assemble(cls: type[M], fields: dict[str, Any], names: set[str]) -> M:
    """An instance of ``cls`` holding ``fields`` (every field, in order, already valid), as pydantic's
    own copy leaves one: no extra fields, no private attributes."""
    new = _new(cls)
    _set_dict(new, fields)
    _set_fields_set(new, names)
    _set_extra(new, None)
    _set_private(new, None)
    return new


def copy_model(model: M, copiers: tuple[tuple[str, Any], ...]) -> M:
    """``model`` with each field named in ``copiers`` copied by its copier, the rest shared: what a step
    does to each part of the state it may change (see ``step.fork``). BaseModel.__copy__, minus what
    these models never have (extra fields, private attributes)."""
    fields = dict(model.__dict__)
    for name, copy in copiers:
        fields[name] = copy(fields[name])
    return assemble(type(model), fields, all_fields(type(model)))  # the shared "fields set": see ``make``


def replace(model: M, /, **changes: Any) -> M:
    """A shallow copy of ``model`` with ``changes`` (already valid): ``model_copy(update=...)`` minus its cost."""
    cls = type(model)
    return assemble(cls, {**model.__dict__, **changes}, all_fields(cls))


def all_fields(cls: type[BaseModel]) -> set[str]:
    """The shared "fields set" of ``cls`` (see ``make``)."""
    return _shape(cls)[2]


class ToolDef(Strict):
    name: str
    description: str
    idempotent: bool = True
    admin_only: bool = False
    arg: str = "query"  # the one string argument the simulated tool takes
    origin: str | None = None  # behind a gateway: the backend that provides it
    read_only: bool = False  # readOnlyHint: true, and the other hints then mean nothing
    destructive: bool = False  # destructiveHint, sent whenever readOnlyHint is false


class SimServer(Mutable):
    """A simulated MCP server process, as it really is (the host may know less)."""

    name: str
    title: str
    tools: list[ToolDef]
    upcoming: list[ToolDef] = Field(default_factory=list)  # tools a later deploy brings
    list_changed: bool = True  # declares capabilities.tools.listChanged
    up: bool = True
    generation: int = 1  # process generation: +1 on every restart
    change_seq: int = 0  # +1 whenever its tool list changes
    transport: Transport = "http"
    issues_session_id: bool = True  # legacy: answers initialize with Mcp-Session-Id
    event_store: bool = False  # legacy: SSE events carry ids and are stored
    sessions_durable: bool = False  # legacy: session, events and unfinished work outlive the process
    state_key_durable: bool = False  # modern: requestState key survives a restart
    auth_in_process: bool = False  # authorization server runs inside this process, tokens in memory
    handles_durable: bool = True  # explicit state handles live in a durable store
    durable_handles: dict[str, list[str]] = Field(default_factory=dict)
    process_handles: dict[str, dict[str, list[str]]] = Field(default_factory=dict)  # per replica
    replicas: int = 1
    replica: int = 1  # the replica the next call lands on
    sessions: dict[str, int] = Field(default_factory=dict)  # legacy session ids, each with the replica holding it
    # A gateway: one endpoint in front of backends it health-checks.
    gateway: bool = False
    backends: list[str] = Field(default_factory=list)
    unhealthy: list[str] = Field(default_factory=list)
    backend_changes: dict[str, str] = Field(default_factory=dict)  # the table's "last change" of each backend
    other_listeners: list[str] = Field(default_factory=list)  # other hosts listening to a gateway
    behind: str | None = None  # a backend: the gateway it sits behind
    handle_seq: int = 0
    state_seq: int = 0
    request_seq: int = 0  # the process's own request ids (elicitation): a new process counts from 0 again
    event_seq: int = 0  # legacy, with an event store: the id of the last SSE event it stored


class ListenStream(Strict):
    """Modern: a ``subscriptions/listen`` request; legacy: the session's GET SSE stream."""

    open: bool = False
    request_id: str | None = None  # modern: the listen request's id = the subscription id
    acknowledged: bool = False
    last_event_id: str | None = None  # legacy: the id of the last event that came on it (the server stores events)


class InFlight(Strict):
    request_id: int
    tool: str
    arguments: dict[str, str]
    idempotent: bool
    event_id: str | None = None  # legacy: the last event id its SSE stream carried (a server that stores events)


class PendingInput(Strict):
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


class Client(Mutable):
    """The host's client for one configured server."""

    server: str
    era: Era
    status: Status = "connected"
    greeted: bool = False  # has done its era's opening (legacy initialize, modern server/discover)
    session_id: str | None = None
    tools: list[ToolDef] = Field(default_factory=list)  # cached tools/list result
    stale: bool = False
    listed_generation: int = 0
    listed_seq: int = -1
    listen: ListenStream = Field(default_factory=ListenStream)
    in_flight: list[InFlight] = Field(default_factory=list)
    pending_input: PendingInput | None = None
    token: Token = "valid"
    role: Role = "member"
    next_id: int = 1
    listen_seq: int = 0
    last_change: str = ""
    last_error: str | None = None
    refetches: int = 0  # tools/list calls made
    wasted_refetches: int = 0  # ... that returned the list unchanged
    ignored_notifications: int = 0
    lost_answers: int = 0  # the user's answers a restart threw away (the user is asked again)


class ToolCall(Strict):
    """One call the model makes: which server, which tool, which arguments."""

    server: str
    tool: str
    arguments: dict[str, str] = Field(default_factory=dict)


class PromptTool(Strict):
    name: str
    server: str


class Message(Strict):
    role: Literal["user", "assistant", "tool"]
    text: str


class Host(Mutable):
    era: Era = "modern"  # the era new clients speak
    conversation: list[Message] = Field(default_factory=list)
    configured: list[str] = Field(default_factory=list)  # servers, in config order
    clients: dict[str, Client] = Field(default_factory=dict)
    auto_listen: bool = True  # open a listen stream on connect when the server offers one
    batching: bool = False  # batch tool-list changes until the next turn
    cache_invalidations: int = 0
    pending_changes: int = 0  # tool-list changes since the last turn
    last_prompt: list[PromptTool] = Field(default_factory=list)
    turns: int = 0
    handles: list[str] = Field(default_factory=list)  # handles the model has seen


class State(Mutable):
    scenario: str
    host: Host
    servers: dict[str, SimServer]
    step: int = 0
