"""The playground service: decodes a frame, applies it to the learner's playground, encodes the
answer. The socket and the HTTP endpoint both hand their frames here, so they behave the same.

Frames are documented in docs/protocol.md. Every frame gets exactly one answer; bad input gets an
error answer that names the problem and changes nothing.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections import OrderedDict
from typing import Annotated, Any, Literal, Protocol

from pydantic import Field, TypeAdapter, ValidationError

from .panels import PlaygroundPanel, RestartLabPanel, StepperPanel, restart_lab
from .sim import Run, advance, begin, replay, undo, view
from .sim.events import SwitchEra
from .sim.model import Era, Strict
from .sim.playground import MAX_EVENTS, Playground

log = logging.getLogger(__name__)
PROTOCOL_VERSION = 1
ID = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=40)]
HANDLE = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{22,64}$")]


class _Frame(Strict):
    v: Literal[1]
    id: int | str | None = Field(default=None)  # echoed back as "re", so a client can match answers


class OpenFrame(_Frame):
    type: Literal["open"]
    panel: ID
    handle: HANDLE | None = None
    variant: ID | None = None


class PressFrame(_Frame):
    type: Literal["press"]
    handle: HANDLE
    button: ID


class UndoFrame(_Frame):
    type: Literal["undo"]
    handle: HANDLE


class ResetFrame(_Frame):
    type: Literal["reset"]
    handle: HANDLE
    variant: ID | None = None


class EraFrame(_Frame):
    type: Literal["era"]
    handle: HANDLE
    era: Era


class RestartFrame(_Frame):
    type: Literal["restart"]
    panel: ID
    situation: ID
    variants: list[ID] = Field(default_factory=list, max_length=12)


Frame = Annotated[
    OpenFrame | PressFrame | UndoFrame | ResetFrame | EraFrame | RestartFrame, Field(discriminator="type")
]
FRAME = TypeAdapter(Frame)
TYPES = ("open", "press", "undo", "reset", "era", "restart")


class Entry(Strict):
    """What the store keeps under a handle: the panel, its variant, and the run."""

    panel: str
    variant: str | None
    run: Run


class Store(Protocol):
    def get(self, handle: str) -> Entry | None: ...
    def put(self, handle: str, entry: Entry) -> None: ...


class MemoryStore:
    """Playgrounds in memory, least recently used dropped first beyond ``capacity``."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, handle: str) -> Entry | None:
        with self._lock:
            entry = self._items.get(handle)
            if entry is not None:
                self._items.move_to_end(handle)
            return entry

    def put(self, handle: str, entry: Entry) -> None:
        with self._lock:
            self._items[handle] = entry
            self._items.move_to_end(handle)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class FrameError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def new_handle() -> str:
    """An unguessable playground handle: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def _plain(exc: ValidationError, kind: str | None) -> str:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"] if str(p) not in TYPES]
    where = ".".join(loc)
    msg = err["msg"]
    if err["type"] == "missing":
        msg = "this field is required"
    elif err["type"] == "extra_forbidden":
        msg = "this field is not allowed"
    elif err["type"] == "literal_error" and loc == ["v"]:
        return f"unsupported protocol version; this server speaks v={PROTOCOL_VERSION}"
    prefix = f"{kind} frame: " if kind else ""
    return f"{prefix}{where}: {msg}" if where else f"{prefix}{msg}"


class Service:
    """Turns frames into answers. Thread-safe: a lock serialises changes to one store."""

    def __init__(
        self,
        panels: dict[str, PlaygroundPanel | StepperPanel | RestartLabPanel],
        store: Store,
        max_frame_bytes: int = 8192,
    ) -> None:
        self.panels = panels
        self.store = store
        self.max_frame_bytes = max_frame_bytes
        self._lock = threading.Lock()

    # --- decoding ---------------------------------------------------------------------------

    def handle_text(self, text: str | bytes) -> dict[str, Any]:
        """Decode one frame and answer it; never raises on input."""
        ref = None
        try:
            raw = text.encode() if isinstance(text, str) else text
            if len(raw) > self.max_frame_bytes:
                raise FrameError("too_large", f"frame is {len(raw)} bytes; the limit is {self.max_frame_bytes}")
            try:
                data = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                raise FrameError("bad_json", f"frame is not valid JSON ({exc})") from None
            return self.handle_data(data)
        except FrameError as exc:
            return self.error(exc.code, exc.message, ref)
        except Exception:  # a bug must not take the connection down with it
            log.exception("frame failed")
            return self.error("internal", "the server could not handle this frame; nothing was changed", ref)

    def handle_data(self, data: Any) -> dict[str, Any]:
        ref = data.get("id") if isinstance(data, dict) and isinstance(data.get("id"), int | str) else None
        try:
            if not isinstance(data, dict):
                raise FrameError("bad_frame", "a frame must be a JSON object")
            kind = data.get("type")
            if kind not in TYPES:
                raise FrameError("unknown_type", f"unknown frame type {kind!r}; expected one of: {', '.join(TYPES)}")
            try:
                frame = FRAME.validate_python(data)
            except ValidationError as exc:
                raise FrameError("bad_frame", _plain(exc, kind)) from None
            return self.dispatch(frame)
        except FrameError as exc:
            return self.error(exc.code, exc.message, ref)

    def error(self, code: str, message: str, ref: Any = None) -> dict[str, Any]:
        return {"v": PROTOCOL_VERSION, "type": "error", "re": ref, "code": code, "message": message}

    # --- answering ---------------------------------------------------------------------------

    def _playground_panel(self, panel_id: str) -> PlaygroundPanel:
        panel = self.panels.get(panel_id)
        if not isinstance(panel, PlaygroundPanel):
            raise FrameError("unknown_panel", f"there is no playground panel {panel_id!r}")
        return panel

    def _entry(self, handle: str) -> Entry:
        entry = self.store.get(handle)
        if entry is None:
            raise FrameError("unknown_handle", "no playground has this handle (it may have expired); open a new one")
        return entry

    def dispatch(self, frame: Any) -> dict[str, Any]:
        if isinstance(frame, RestartFrame):
            panel = self.panels.get(frame.panel)
            if not isinstance(panel, RestartLabPanel):
                raise FrameError("unknown_panel", f"there is no restart panel {frame.panel!r}")
            try:
                result = restart_lab(panel, frame.situation, frame.variants)
            except KeyError as exc:
                raise FrameError("bad_frame", str(exc.args[0])) from None
            return {"v": PROTOCOL_VERSION, "type": "restart", "re": frame.id, "result": result.model_dump()}
        with self._lock:
            if isinstance(frame, OpenFrame):
                panel = self._playground_panel(frame.panel)
                entry = self.store.get(frame.handle) if frame.handle else None
                if entry is not None and entry.panel == panel.id:
                    return self.answer(frame.id, frame.handle, entry, restored=True)
                variant = panel.variant(frame.variant)
                if frame.variant and variant is None:
                    raise FrameError("bad_frame", f"panel {panel.id!r} has no variant {frame.variant!r}")
                handle = new_handle()
                entry = Entry(
                    panel=panel.id, variant=variant.id if variant else None, run=begin(panel.start_for(variant))
                )
                self.store.put(handle, entry)
                notice = "That playground is no longer on the server; this is a new one." if frame.handle else None
                return self.answer(frame.id, handle, entry, notice=notice)
            entry = self._entry(frame.handle)
            panel = self._playground_panel(entry.panel)
            run = entry.run
            if isinstance(frame, PressFrame):
                button = panel.button(frame.button)
                if button is None:
                    known = ", ".join(b.id for b in panel.buttons)
                    raise FrameError(
                        "unknown_button", f"panel {panel.id!r} has no button {frame.button!r}; its buttons are: {known}"
                    )
                run = self._advance(run, button.event)
            elif isinstance(frame, EraFrame):
                if not panel.era_choice:
                    raise FrameError("bad_frame", f"panel {panel.id!r} has no era choice")
                run = self._advance(run, SwitchEra(era=frame.era))
            elif isinstance(frame, UndoFrame):
                if not run.playground.events:
                    raise FrameError("nothing_to_undo", "nothing to undo: the playground is at its start")
                run = undo(run)
            elif isinstance(frame, ResetFrame):
                variant = panel.variant(frame.variant or entry.variant)
                if frame.variant and variant is None:
                    raise FrameError("bad_frame", f"panel {panel.id!r} has no variant {frame.variant!r}")
                run = begin(panel.start_for(variant, era=run.state.host.era))
                entry = entry.model_copy(update={"variant": variant.id if variant else None})
            entry = entry.model_copy(update={"run": run})
            self.store.put(frame.handle, entry)
            return self.answer(frame.id, frame.handle, entry)

    def _advance(self, run: Run, event: Any) -> Run:
        if len(run.playground.events) >= MAX_EVENTS:
            raise FrameError("too_many_events", f"this playground has reached {MAX_EVENTS} steps; reset to go on")
        return advance(run, event)

    def answer(
        self, ref: Any, handle: str, entry: Entry, restored: bool = False, notice: str | None = None
    ) -> dict[str, Any]:
        panel = self._playground_panel(entry.panel)
        return {
            "v": PROTOCOL_VERSION,
            "type": "view",
            "re": ref,
            "panel": panel.id,
            "handle": handle,
            "variant": entry.variant,
            "era": entry.run.state.host.era,
            "steps": len(entry.run.playground.events),
            "can_undo": bool(entry.run.playground.events),
            "restored": restored,
            "notice": notice,
            "view": view(entry.run).model_dump(mode="json"),
        }


def restore(playground: Playground) -> Run:
    """Rebuild a run from its playground (used by stores that keep only the events)."""
    return replay(playground)
