"""One application of one event: a working copy of the state, and what the step says and shows.

The rules change the working copy in place; the state they were given is never touched.
"""

from __future__ import annotations

import functools
import typing
from typing import Any, Literal

from .frames import Frame
from .model import Client, Host, InFlight, PromptTool, SimServer, State, Strict, copy_model, make

# "failed": a tool call the model made came back as an error (the model reads it and goes on);
# "error": something went wrong with a server or the host's link to it.
Tone = Literal["info", "change", "error", "failed", "model", "warn", "rejected"]


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun in the number it takes: "1 tool", "5 tools", "2 wasted re-fetches"."""
    return f"{n} {one if n == 1 else many or one + 's'}"


class LogLine(Strict):
    text: str
    tone: Tone = "info"


class CallRecord(Strict):
    server: str
    tool: str
    text: str
    is_error: bool = False
    host_made: bool = False  # built by the host: the server sent nothing


class TurnRecord(Strict):
    number: int
    tools_seen: list[PromptTool]
    new_tools: list[PromptTool]
    removed_tools: list[PromptTool]
    calls: list[CallRecord]


class Outcome(Strict):
    lines: list[LogLine]
    wire: list[Frame]
    turn: TurnRecord | None = None
    rejected: bool = False


class Rejected(Exception):
    """The press makes no sense right now; the message says why."""


# The rules change these models in place; every other model (ToolDef, Message, ListenStream, ...) is
# only ever replaced, so a working copy can share those with the state it came from.
_MUTABLE = (State, Host, Client, SimServer)


def _copier(annotation: Any) -> Any:
    """How to copy a value of this type for a working copy: None when it can be shared as it is."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        inner = _copier(args[0])
        return list if inner is None else lambda v: [inner(x) for x in v]
    if origin is dict:
        inner = _copier(args[1])
        return dict if inner is None else lambda v: {k: inner(x) for k, x in v.items()}
    if annotation in _MUTABLE:
        return fork
    return None


@functools.cache
def _nested_fields(cls: type[Strict]) -> tuple[tuple[str, Any], ...]:
    """The fields of ``cls`` that hold lists, dicts or models the rules change in place, each with
    its copier, worked out once from the field's type."""
    fields = ((name, _copier(f.annotation)) for name, f in cls.model_fields.items())
    return tuple((name, copy) for name, copy in fields if copy is not None)


def fork(value: Any) -> Any:
    """A copy of a state (or a part the rules change in place) deep enough for the rules to change
    it: much cheaper than a deep copy, since what is only ever replaced is shared."""
    return copy_model(value, _nested_fields(type(value)))


class _Forking(dict):  # type: ignore[type-arg]
    """A working copy's servers or clients: each is forked the first time a rule reaches it, so a step
    copies only the servers and clients it touches. Every way in (``[]``, ``get``, ``values``, ``items``,
    ``pop``) forks first; ``peek`` reads without forking, for code that only reads."""

    __slots__ = ("_own",)

    def __init__(self, items: dict[str, Any]) -> None:
        dict.__init__(self, items)  # not super(): this runs for every part a step reaches
        self._own: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        if key not in self._own:
            value = fork(value)
            dict.__setitem__(self, key, value)
            self._own.add(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self._own.add(key)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self._own.discard(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (self.get is this method)

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[key] for key in dict.keys(self)]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(key, self[key]) for key in dict.keys(self)]

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        return dict.pop(self, key, *default)

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a working copy's servers and clients change only by [], del and pop")

    setdefault = update = popitem = clear = copy = __ior__ = __or__ = __ror__ = _refuse  # type: ignore[assignment]

    def plain(self) -> dict[str, Any]:
        """An ordinary dict of what it holds now: forked where a rule reached, shared elsewhere. (``dict()``
        copies a dict subclass that keeps dict's own iterator entry by entry, never through ``[]``.)"""
        return dict(self)


# ``peek(mapping, key)``: ``mapping[key]`` without forking it, only for reading (see ``_Forking``).
# dict's own method, not a function around it: a step peeks some dozens of times.
peek = dict.__getitem__


def _working_copier(annotation: Any) -> Any:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is dict and args[1] in _MUTABLE:
        return _Forking
    if annotation in _MUTABLE:
        return _working_copy
    return _copier(annotation)


@functools.cache
def _working_fields(cls: type[Strict]) -> tuple[tuple[str, Any], ...]:
    fields = ((name, _working_copier(f.annotation)) for name, f in cls.model_fields.items())
    return tuple((name, copy) for name, copy in fields if copy is not None)


def _working_copy(value: Any) -> Any:
    """``fork``, except that dicts of servers or clients fork each one only as it is reached."""
    return copy_model(value, _working_fields(type(value)))


@functools.cache
def _forking_paths(cls: type[Strict]) -> tuple[tuple[str, ...], ...]:
    """The field paths from a working copy of ``cls`` to its lazily forked dicts (for a state: its
    servers, and its host's clients)."""
    paths: list[tuple[str, ...]] = []
    for name, copy in _working_fields(cls):
        if copy is _Forking:
            paths.append((name,))
        elif copy is _working_copy:
            paths += [(name, *rest) for rest in _forking_paths(cls.model_fields[name].annotation)]
    return tuple(paths)


def _settle(value: Any) -> None:
    """Turn a working copy's lazily forked dicts back into ordinary ones, in place."""
    for *way, name in _forking_paths(type(value)):
        holder = value
        for step in way:
            holder = holder.__dict__[step]
        fields = holder.__dict__
        fields[name] = fields[name].plain()


def _sharer(annotation: Any) -> Any:
    """How to share a value of this type with an equal older one (see ``share``)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is dict and args[1] in _MUTABLE:
        return _share_dict
    if annotation in _MUTABLE:
        return share
    return _share_equal


def _share_equal(new: Any, old: Any) -> Any:
    return old if new == old else new


def _share_dict(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    same = list(new) == list(old)  # order too: it is the order servers are shown in
    for key, value in new.items():
        if key in old:
            value = new[key] = share(value, old[key])
        same = same and value is old[key]
    return old if same else new


@functools.cache
def _shared_fields(cls: type[Strict]) -> tuple[tuple[str, Any], ...]:
    return tuple((name, _sharer(cls.model_fields[name].annotation)) for name, _ in _nested_fields(cls))


def share(new: Any, old: Any) -> Any:
    """``new`` with every part that equals the same part of ``old`` replaced by ``old``'s, or ``old``
    itself when nothing differs. A step forks every part the rules may change; sharing back what they
    did not change makes a kept state cost only what its steps changed. Both must never be changed
    again (states are not, once a step is done): ``new`` is changed in place here."""
    if new is old or type(new) is not type(old):
        return new
    fields, before = new.__dict__, old.__dict__
    for name, how in _shared_fields(type(new)):
        if fields[name] is not before[name]:
            fields[name] = how(fields[name], before[name])
    return old if fields == before else new  # dict equality tries identity first, field by field


class Step:
    """The working copy, the log lines, the frames in the order they cross, and calls a death cut short."""

    def __init__(self, state: State) -> None:
        self.s: State = _working_copy(state)
        self.lines: list[LogLine] = []
        self.frames: list[Frame] = []
        self.turn: TurnRecord | None = None
        self.lost: dict[str, list[InFlight]] = {}

    def say(self, text: str, tone: Tone = "info") -> None:
        self.lines.append(make(LogLine, text=text, tone=tone))

    def show(self, frame: Frame) -> None:
        self.frames.append(frame)

    def srv(self, name: str) -> SimServer:
        if name not in self.s.servers:
            raise Rejected(f"There is no server called {name} in this scenario.")
        return self.s.servers[name]

    def client(self, name: str) -> Client:
        if name not in self.s.host.clients:
            raise Rejected(f"The host has no client for {name}: it is not in the host's config.")
        return self.s.host.clients[name]

    def clients_of(self, server: str) -> list[Client]:
        clients = self.s.host.clients
        return [clients[name] for name in list(clients) if peek(clients, name).server == server]

    def peek_clients(self) -> list[Client]:
        """The host's clients, for reading only: not forked (see ``_Forking``)."""
        return list(dict.values(self.s.host.clients))

    def done(self) -> State:
        """The state the step made, its servers and clients in ordinary dicts; the step is over."""
        _settle(self.s)
        return self.s
