"""The frames the page sends and the answers the server gives (docs/protocol.md): pydantic models with
the protocol's limits, and the words a refused frame is described in. ``service.py`` acts on them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from lesson.content.base import ID, ID_MAX, ID_PATTERN
from lesson.sim.model import Era, Strict
from lesson.sim.run import MAX_EVENTS
from lesson.sim.view import View

PROTOCOL_VERSION = 2  # static/js/transport.js sends the same (PROTOCOL)
MAX_DEPTH = 6  # no valid frame nests deeper than this; deeper input is refused before validation
_ID_RE = re.compile(ID_PATTERN)
HANDLE = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{22,64}$")]
# Numbers are JSON integers: "3", true and 3.0 are refused, not read as 3.
SEQ = Annotated[int, Field(ge=0, le=1_000_000_000, strict=True)]
# A frame's id is echoed back: an integer JavaScript counts exactly, or a short id.
MAX_INT_ID = 2**53 - 1
# The page's locale, a message catalogue's name (lesson/messages/<locale>.json, or "pseudo"): the
# service renders the answer's narration in it, and refuses one it has no catalogue for.
LOCALE = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$", max_length=20)]


def _action_kind(value: Any) -> str | None:
    """Which kind of event a log entry is, read from its first item; None for anything else."""
    if isinstance(value, list | tuple) and value and value[0] in ("p", "e"):
        return value[0]
    return None


# One press in a log: ["p", button] or ["e", era]. Undo pops the last one; reset starts a new log.
# Told apart by the first item, so a wrong era is refused as an era, and a wrong kind as a kind.
Action = Annotated[
    Annotated[tuple[Literal["p"], ID], Tag("p")] | Annotated[tuple[Literal["e"], Era], Tag("e")],
    Discriminator(
        _action_kind,
        custom_error_type="unknown_event_kind",
        custom_error_message='unknown event kind; an event is ["p", button] (a press) or ["e", era]',
    ),
]


class _PageFrame(Strict):
    v: Literal[2]
    id: int | str | None = Field(default=None)  # echoed back as "re", so a client can match answers
    lang: LOCALE | None = None  # the page's locale; without it, the server's (LESSON_LOCALE)

    @field_validator("v", mode="before")
    @classmethod
    def _integer_version(cls, value: Any) -> Any:
        if isinstance(value, float):  # 2.0 would pass as 2; any other wrong value is refused as a version
            raise ValueError("must be the integer 2")
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        if _id_ok(value):
            return value
        raise ValueError(
            f"must be an integer from -{MAX_INT_ID} to {MAX_INT_ID}, or at most 40 lowercase letters, digits and '-'"
        )


def _id_like(value: Any, longest: int, text_ok: Callable[[str], bool]) -> bool:
    """An integer JavaScript holds exactly, or a string of at most ``longest`` characters that passes
    ``text_ok``: what a frame's id may be, and what an error answer may echo of one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return -MAX_INT_ID <= value <= MAX_INT_ID
    return isinstance(value, str) and len(value) <= longest and text_ok(value)


def _id_ok(value: Any) -> bool:
    """A frame's id is an integer JavaScript holds exactly, or an id: anything else (true, a lone
    surrogate, 4,000 digits) could not be echoed back as sent, or is no id a page would use."""
    return value is None or _id_like(value, ID_MAX, lambda text: _ID_RE.fullmatch(text) is not None)


class Log(Strict):
    """What the page holds for one playground: its start, its presses and how many changes it made."""

    panel: ID | None = None  # needed when the log comes with a change rather than an open
    variant: ID | None = None
    era: Era
    events: list[Action] = Field(default_factory=list, max_length=MAX_EVENTS)
    seq: SEQ = 0

    @model_validator(mode="after")
    def _seq_counts_the_events(self) -> Log:
        # Each event took a change, and seq counts the changes: a smaller seq is no log a page kept.
        if self.seq < len(self.events):
            raise ValueError(f"seq is {self.seq}, below the log's {len(self.events)} events (each took a change)")
        return self


class OpenFrame(_PageFrame):
    type: Literal["open"]
    panel: ID
    handle: HANDLE | None = None
    variant: ID | None = None
    log: Log | None = None


class _ChangeFrame(_PageFrame):
    """A change to a playground the server may already hold: numbered, so a retry is applied once."""

    handle: HANDLE
    seq: Annotated[SEQ, Field(ge=1)]  # a playground opens at 0: its first change is 1
    log: Log | None = None  # the log before this change, sent after a need_log


class PressFrame(_ChangeFrame):
    type: Literal["press"]
    button: ID


class UndoFrame(_ChangeFrame):
    type: Literal["undo"]


class ResetFrame(_ChangeFrame):
    type: Literal["reset"]
    variant: ID | None = None


class EraFrame(_ChangeFrame):
    type: Literal["era"]
    era: Era


class RestartFrame(_PageFrame):
    type: Literal["restart"]
    panel: ID
    situation: ID
    variants: list[ID] = Field(default_factory=list, max_length=12)


PageFrame = Annotated[
    OpenFrame | PressFrame | UndoFrame | ResetFrame | EraFrame | RestartFrame, Field(discriminator="type")
]
FRAME = TypeAdapter(PageFrame)

TYPES = ("open", "press", "undo", "reset", "era", "restart")
Change = PressFrame | UndoFrame | ResetFrame | EraFrame


# --- answers: pydantic models, serialised once with model_dump_json ----------------------------


class GoalState(Strict):
    """Whether the panel's goal holds for the view in this answer (evaluated here, never by the page)."""

    met: bool


class ViewAnswer(Strict):
    v: int = PROTOCOL_VERSION
    type: Literal["view"] = "view"
    re: int | str | None
    panel: str
    handle: str
    seq: int  # changes the page has made to this playground; the next change carries seq + 1
    variant: str | None
    era: str
    start_era: str
    steps: int
    can_undo: bool
    restored: bool
    notice: str | None
    log_from: int  # view.log holds the log's entries from this index on; the page keeps the rest
    goal: GoalState | None  # null when the panel declares no goal
    asks: list[str]  # the buttons whose prediction's premise (its `when`) holds for this view
    view: View


class NeedLog(Strict):
    v: int = PROTOCOL_VERSION
    type: Literal["need_log"] = "need_log"
    re: int | str | None
    handle: str
    have: int | None  # the sequence number the server holds, or null when it holds nothing


class ErrorAnswer(Strict):
    v: int = PROTOCOL_VERSION
    type: Literal["error"] = "error"
    re: int | str | None
    code: str
    message: str


class RestartAnswer(Strict):
    v: int = PROTOCOL_VERSION
    type: Literal["restart"] = "restart"
    re: int | str | None
    result: Any


def depth_ok(data: Any, limit: int) -> bool:
    """True when ``data`` nests no deeper than ``limit`` (checked without recursion)."""
    stack = [(data, 0)]
    while stack:
        item, d = stack.pop()
        if d > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return True


def error_text(exc: ValidationError, kind: str | None) -> str:
    err = exc.errors()[0]
    parts = err["loc"][1:] if err["loc"] and err["loc"][0] in TYPES else err["loc"]  # [0] is the frame type
    loc = [str(p) for p in parts if not str(p).startswith(("tuple[", "function-"))]
    # A log event's kind ("p", "e") is where pydantic went, not part of the path the client wrote.
    loc = [p for i, p in enumerate(loc) if not (p in ("p", "e") and i >= 2 and loc[i - 2] == "events")]
    where = ".".join(loc)
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "literal_error" and loc != ["v"]:
        msg = f"{shown(err['input'])} is not one of {err['ctx']['expected']}"
        if len(loc) >= 3 and loc[-3] == "events" and loc[-1] == "1" and "'legacy'" in msg:
            msg = f'{shown(err["input"])} is not an era; an era change is ["e", "legacy" or "modern"]'
    elif err["type"] in ("model_type", "dict_type", "model_attributes_type"):
        msg = "should be a JSON object"
    elif err["type"] == "string_pattern_mismatch":
        msg = f"{shown(err['input'])} does not match the pattern {err['ctx']['pattern']}"
    elif err["type"] == "missing":
        msg = "this field is required"
    elif err["type"] == "extra_forbidden":
        msg = "this field is not allowed"
    elif err["type"] == "literal_error" and loc == ["v"]:
        return f"unsupported protocol version; this server speaks v={PROTOCOL_VERSION}"
    prefix = f"{kind} frame: " if kind else ""
    return f"{prefix}{where}: {msg}" if where else f"{prefix}{msg}"


def shown(value: Any, limit: int = 40) -> str:
    """A value a frame held, as JSON (null, not None; ASCII, so a lone surrogate is escaped, not an answer
    that cannot be written), cut to about ``limit`` characters: a text is cut inside its quotes."""
    if isinstance(value, str):
        return json.dumps(value[:limit]) + ("…" if len(value) > limit else "")
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def echo_id(value: Any) -> int | str | None:
    """The ``re`` an error answer echoes: the frame's id, or null when it is not an integer or a string
    of at most 64 printable characters (a lone surrogate, for one, cannot be written as JSON)."""
    return value if _id_like(value, 64, str.isprintable) else None
