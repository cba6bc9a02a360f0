"""One application of one event: a copy of the state, and what the step says and shows.

The rules change the copy in place; the state they were given is never touched.
"""

from __future__ import annotations

from typing import Any, Literal

from .frames import WireFrame
from .model import Client, InFlight, PromptTool, Said, SimServer, State, Strict, copy_state

# "failed": a tool call the model made came back as an error (the model reads it and goes on);
# "error": something went wrong with a server or the host's link to it.
Tone = Literal["info", "change", "error", "failed", "model", "warn", "rejected"]


# Narration is data: a code naming a sentence of the message catalogue (lesson/messages/en.json) and
# the values it fills. A value is plain JSON: a name, a number, or a part of the sentence that is
# itself a message (``msg``). The simulation never reads the catalogue; the answer to the page is
# rendered at one boundary (lesson/narration.py).


def msg(code: str, **params: Any) -> dict[str, Any]:
    """A part of a sentence that is itself a message of the catalogue, with its own values."""
    return {"code": code, "params": params}


def count(n: int, noun: str) -> dict[str, Any]:
    """``n`` and the noun in the number it takes ("1 tool", "5 tools"): ``narration.count.<noun>.one|many``."""
    return msg(f"narration.count.{noun}.{'one' if n == 1 else 'many'}", n=n)


def era_label(era: str) -> dict[str, Any]:
    """The era as the narration names it: "legacy (2025-11-25)"."""
    return msg(f"narration.era.{era}")


def word(kind: str, value: str) -> dict[str, Any]:
    """A word of the simulation's own vocabulary, said in the reader's language: a status, a token's
    state, a role, the way a server was added (``narration.<kind>.<value>``, spaces as ``_``)."""
    return msg(f"narration.{kind}.{value.replace(' ', '_')}")


def joined(parts: list[Any]) -> Any:
    """Parts of a sentence (names, or messages) joined as the language joins them: "A", "A and B"
    (``narration.and``)."""
    if len(parts) < 2:
        return parts[0] if parts else ""
    return msg("narration.and", first=joined(parts[:-1]), last=parts[-1])


def listed(parts: list[Any]) -> Any:
    """Parts of a sentence in a list, as the language lists them: "a, b, c" (``narration.comma``)."""
    if len(parts) < 2:
        return parts[0] if parts else ""
    return msg("narration.comma", first=listed(parts[:-1]), last=parts[-1])


def changed(step: int, what: dict[str, Any]) -> dict[str, Any]:
    """A server's "last change" in the server table: the step, and what happened then (a message); a
    change at the start is said as such, not as a step 0 no log shows."""
    if step == 0:
        return msg("narration.table.change_at_start", what=what)
    return msg("narration.table.change", step=step, what=what)


class LogLine(Said):
    """A line of the log: something said, with its tone."""

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
    wire: list[WireFrame]
    turn: TurnRecord | None = None
    rejected: bool = False


class Rejected(Exception):
    """The press makes no sense right now; the code (a ``refusal.*`` message) and its values say why."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code, self.params = code, params


class Step:
    """The copy of the state, the log lines, the frames in the order they cross, and calls a death cut short."""

    def __init__(self, state: State) -> None:
        self.s: State = copy_state(state)
        self.lines: list[LogLine] = []
        self.frames: list[WireFrame] = []
        self.turn: TurnRecord | None = None
        self.lost: dict[str, list[InFlight]] = {}

    def say(self, code: str, tone: Tone = "info", **params: Any) -> None:
        self.lines.append(LogLine(code=code, params=params, tone=tone))

    def show(self, frame: WireFrame) -> None:
        self.frames.append(frame)

    def srv(self, name: str) -> SimServer:
        if name not in self.s.servers:
            raise Rejected("refusal.no_such_server", server=name)
        return self.s.servers[name]

    def client(self, name: str) -> Client:
        if name not in self.s.host.clients:
            raise Rejected("refusal.no_client", server=name)
        return self.s.host.clients[name]

    def clients_of(self, server: str) -> list[Client]:
        return [c for c in self.s.host.clients.values() if c.server == server]

    def done(self) -> State:
        """The state the step made; the step is over."""
        return self.s
