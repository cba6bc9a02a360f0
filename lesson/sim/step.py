"""One application of one event: a copy of the state, and what the step says and shows.

The rules change the copy in place; the state they were given is never touched.
"""

from __future__ import annotations

from typing import Literal

from .frames import Frame
from .model import Client, InFlight, PromptTool, SimServer, State, Strict, copy_state

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


class Step:
    """The copy of the state, the log lines, the frames in the order they cross, and calls a death cut short."""

    def __init__(self, state: State) -> None:
        self.s: State = copy_state(state)
        self.lines: list[LogLine] = []
        self.frames: list[Frame] = []
        self.turn: TurnRecord | None = None
        self.lost: dict[str, list[InFlight]] = {}

    def say(self, text: str, tone: Tone = "info") -> None:
        self.lines.append(LogLine(text=text, tone=tone))

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
        return [c for c in self.s.host.clients.values() if c.server == server]

    def done(self) -> State:
        """The state the step made; the step is over."""
        return self.s
