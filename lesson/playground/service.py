"""The playground service: decodes a frame, applies it to the learner's playground, encodes the
answer. The socket and the HTTP endpoint both hand their frames here, so they behave the same.

A playground is its start (panel, variant, era) and its list of presses; the page holds that log
and the server only caches runs built from it (see docs/classroom.md). On a miss (a restart,
another worker) the server answers ``need_log``, the page sends its log once, and the run is
rebuilt. Each change carries a sequence number, so a retried frame is applied once and a gap is
noticed. Frames are documented in docs/protocol.md. Bad input gets an error answer that names the
problem and changes nothing.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import ValidationError

from lesson import i18n, narration
from lesson.content.goals import holds
from lesson.content.panels import PlaygroundPanel, RestartLabPanel, StepperPanel
from lesson.content.restart_lab import restart_lab
from lesson.i18n import DEFAULT
from lesson.settings import Settings
from lesson.sim import Run, advance, begin, build_view, undo
from lesson.sim.run import MAX_EVENTS
from lesson.sim.view import View

from .protocol import (
    FRAME,
    MAX_DEPTH,
    TYPES,
    Change,
    EraFrame,
    ErrorAnswer,
    GoalState,
    Log,
    NeedLog,
    OpenFrame,
    PressFrame,
    RestartAnswer,
    RestartFrame,
    UndoFrame,
    ViewAnswer,
    depth_ok,
    echo_id,
    error_text,
    shown,
)
from .replay import LogMismatch, checked, event_of, run_after, variant_of
from .runcache import Entry, RunCache

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reply:
    """An encoded answer; ``code`` names the error, if it is one. ``after`` is work left until the answer
    is on its way (see ``Service.handle_text``)."""

    text: str
    code: str | None = None
    after: Callable[[], None] | None = field(default=None, compare=False, repr=False)

    # The HTTP status of each error over /api/frame (docs/protocol.md); any other error is a 400.
    STATUS: ClassVar[dict[str, int]] = {"too_large": 413, "unknown_panel": 404, "need_log": 409, "slow_down": 429}

    @property
    def http_status(self) -> int:
        return 200 if self.code is None else self.STATUS.get(self.code, 400)

    @property
    def retry_after(self) -> int | None:
        """Seconds a refused client should wait before sending again, for a Retry-After header."""
        return 1 if self.code == "slow_down" else None

    def finish(self) -> None:
        """Do the work left for after the answer; never raises (the answer is already sent)."""
        if self.after is not None:
            try:
                self.after()
            except Exception:
                log.exception("work after an answer failed")

    def data(self) -> dict[str, Any]:
        return json.loads(self.text)


class FrameError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def new_handle() -> str:
    """An unguessable playground handle: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


_ADVANCES = (PressFrame, EraFrame)  # the changes that advance the run by one event
_GOAL = {met: GoalState(met=met) for met in (False, True)}  # shared: an answer never changes its parts


class Service:
    """Turns frames into answers. Thread-safe: each playground has its own lock."""

    def __init__(
        self,
        panels: dict[str, PlaygroundPanel | StepperPanel | RestartLabPanel],
        cache: RunCache | None = None,
        max_frame_bytes: int = Settings.model_fields["MAX_FRAME_BYTES"].default,
        locale: str = DEFAULT,
    ) -> None:
        self.panels = panels
        self.locale = locale  # the narration's language for a frame that names none (LESSON_LOCALE)
        self.cache = cache if cache is not None else RunCache()
        self.max_frame_bytes = max_frame_bytes
        self._client = threading.local()  # the budget of the client whose frame this thread handles

    def goal(self, panel_id: str, shown: View) -> GoalState | None:
        """The panel's goal evaluated on the view the answer carries; None when it declares none."""
        panel = self.panels.get(panel_id)
        if not isinstance(panel, PlaygroundPanel) or panel.goal is None:
            return None
        return _GOAL[holds(panel.goal.when, shown)]

    def asks(self, panel_id: str, shown: View) -> list[str]:
        """The buttons whose prediction has a premise (``when``) that holds for the view: the page asks
        such a question only then (a question about A's return, only while A is down)."""
        panel = self.panels.get(panel_id)
        if not isinstance(panel, PlaygroundPanel):
            return []
        return [p.button for p in panel.predictions if p.when is not None and holds(p.when, shown)]

    # --- decoding ---------------------------------------------------------------------------

    def handle_text(self, text: str | bytes, defer: bool = False, spend: Callable[[int], None] | None = None) -> Reply:
        """Decode one frame and answer it; never raises on input. With ``defer`` the caller sends the
        answer first and then calls ``reply.finish()`` (bookkeeping the learner need not wait for).
        ``spend(events)`` charges a log's replay to the client's budget before it is done: it may wait,
        or raise FrameError to refuse it (see lesson/web/budget.py)."""
        self._client.spend = spend
        try:
            reply = self._handle_text(text)
        finally:
            self._client.spend = None
        if not defer:
            reply.finish()
        return reply

    def _handle_text(self, text: str | bytes) -> Reply:
        try:
            # A str of n characters encodes to at most 4n bytes: encode only when that could pass the limit.
            size = len(text) if isinstance(text, bytes) or 4 * len(text) <= self.max_frame_bytes else len(text.encode())
            if size > self.max_frame_bytes:
                raise FrameError("too_large", f"frame is {size} bytes; the limit is {self.max_frame_bytes}")
            if isinstance(text, bytes):  # a body over HTTP: read as a socket's text frame is, BOM and all
                try:
                    text = text.decode("utf-8")
                except UnicodeDecodeError as exc:
                    why = f"{exc.reason} at byte {exc.start}"
                    raise FrameError("bad_json", f"frame is not valid UTF-8 ({why})") from None
            # A well-formed frame is parsed and validated in one pass; anything else takes the path
            # below, which names what is wrong with it.
            try:
                frame = FRAME.validate_json(text)
            except ValidationError:
                frame = None
            if frame is not None:
                try:
                    return self.dispatch(frame)
                except FrameError as exc:
                    return self.error(exc.code, exc.message, echo_id(frame.id))
            try:
                data = json.loads(text)
            except RecursionError:
                raise FrameError("bad_json", "frame nests too deeply") from None
            except ValueError as exc:
                # Python's own advice (on over-long integers, a setting of its own; on a byte-order mark,
                # a codec to decode with) means nothing to a client.
                why = str(exc)
                if "int_max_str_digits" in why:
                    why = "a number has too many digits"
                elif why.startswith("Unexpected UTF-8 BOM"):
                    why = "it starts with a byte-order mark"
                raise FrameError("bad_json", f"frame is not valid JSON ({why})") from None
            return self.handle_data(data)
        except FrameError as exc:
            return self.error(exc.code, exc.message)
        except Exception:  # a bug must not take the connection down with it
            log.exception("frame failed")
            return self.error("internal", "the server could not handle this frame; nothing was changed")

    def handle_data(self, data: Any) -> Reply:
        ref = echo_id(data.get("id")) if isinstance(data, dict) else None
        try:
            if not isinstance(data, dict):
                raise FrameError("bad_frame", "a frame must be a JSON object")
            kind = data.get("type")
            if kind not in TYPES:
                expected = ", ".join(TYPES)
                if "type" not in data:
                    raise FrameError("bad_frame", f"type: this field is required; one of: {expected}")
                raise FrameError("unknown_type", f"unknown frame type {shown(kind)}; expected one of: {expected}")
            if not depth_ok(data, MAX_DEPTH):
                raise FrameError("bad_frame", f"frame nests deeper than {MAX_DEPTH} levels")
            try:
                frame = FRAME.validate_python(data)
            except ValidationError as exc:
                raise FrameError("bad_frame", error_text(exc, kind)) from None
            return self.dispatch(frame)
        except FrameError as exc:
            return self.error(exc.code, exc.message, ref)

    def error(self, code: str, message: str, ref: Any = None) -> Reply:
        return Reply(ErrorAnswer(re=ref, code=code, message=message).model_dump_json(), code)

    # --- answering ---------------------------------------------------------------------------

    def _playground_panel(self, panel_id: str) -> PlaygroundPanel:
        panel = self.panels.get(panel_id)
        if not isinstance(panel, PlaygroundPanel):
            raise FrameError("unknown_panel", f"there is no playground panel {panel_id!r}")
        return panel

    def locale_of(self, frame: Any) -> str:
        """The locale the answer's narration is in: the page's (``lang``), else the server's. A page
        is served only in a locale that has a catalogue, so any other is refused, not guessed at."""
        lang: str | None = frame.lang
        if lang is None or lang == self.locale:
            return self.locale
        if why := i18n.refuse_locale(lang):
            raise FrameError("unknown_locale", why)
        return lang

    def dispatch(self, frame: Any) -> Reply:
        """Answer a parsed frame. The reply's ``finish()`` must run once it is sent (``handle_text``
        sees to it): a change's entry is put back in the cache with its new cost there."""
        locale = self.locale_of(frame)
        if isinstance(frame, RestartFrame):
            panel = self.panels.get(frame.panel)
            if not isinstance(panel, RestartLabPanel):
                raise FrameError("unknown_panel", f"there is no restart panel {frame.panel!r}")
            try:
                result = restart_lab(panel, frame.situation, frame.variants, locale)
            except LookupError as exc:
                raise FrameError("bad_frame", str(exc)) from None
            answer = RestartAnswer.model_construct(re=frame.id, result=result)
            return Reply(answer.model_dump_json(context=narration.words(locale)))
        try:
            if isinstance(frame, OpenFrame):
                return self.open(frame, locale)
            return self.change(frame, locale)
        except LogMismatch as err:  # a log, button or variant the panel does not have
            code = "unknown_button" if err.code == "no_button" else "bad_frame"
            raise FrameError(code, f"{err.where}: {err}" if err.where else str(err)) from None

    def open(self, frame: OpenFrame, locale: str | None = None) -> Reply:
        panel = self._playground_panel(frame.panel)
        if frame.handle:
            entry = self.cache.get(frame.handle)
            wanted = frame.log.seq if frame.log else None
            if entry is not None and entry.panel == panel.id and wanted in (None, entry.seq):
                with entry.lock:
                    return self.answer(frame.id, frame.handle, entry, restored=True, full=True, locale=locale)
        if frame.log is not None:
            run = self.replay(panel, frame.log)
            entry = self.rebuild(panel, frame.log, run)
            handle = frame.handle or new_handle()
            self.cache.put(handle, entry)
            return self.answer(frame.id, handle, entry, restored=True, history=run.log, locale=locale)
        variant = variant_of(panel, frame.variant, where="variant")
        run = begin(panel.start_for(panel.variant(variant)))
        entry = Entry(panel=panel.id, variant=variant, era=run.state.host.era, events=[], seq=0, run=run)
        handle = new_handle()
        self.cache.put(handle, entry)
        notice = i18n.translate(locale or self.locale, "playground.notice.new") if frame.handle else None
        return self.answer(frame.id, handle, entry, notice=notice, full=True, locale=locale)

    def replay(self, panel: PlaygroundPanel, log_: Log) -> Run:
        """Replay a page's log, charged to the client's budget first; a log that does not fit the panel
        is refused as a whole."""
        if log_.panel is not None and log_.panel != panel.id:
            raise FrameError("bad_frame", f"log.panel: this log is for {log_.panel!r}, not {panel.id!r}")
        start, events = checked(panel, log_)  # a log that does not fit is refused before it is charged
        self._spend(len(events))
        return run_after(start, events)

    def _spend(self, events: int) -> None:
        spend = getattr(self._client, "spend", None)
        if spend is not None:
            spend(events)

    def rebuild(self, panel: PlaygroundPanel, log_: Log, run: Run | None = None) -> Entry:
        run = run if run is not None else self.replay(panel, log_)
        variant = variant_of(panel, log_.variant)
        return Entry(panel=panel.id, variant=variant, era=log_.era, events=list(log_.events), seq=log_.seq, run=run)

    def change(self, frame: Change, locale: str | None = None) -> Reply:
        entry = self.cache.get(frame.handle)
        # What makes a change this change (a retry carries the same).
        fields = frame.model_dump(include={"button", "era", "variant"})
        key = (frame.type, frame.seq, fields.get("button"), fields.get("era"), fields.get("variant"))
        if entry is not None:
            with entry.lock:
                if frame.seq == entry.seq and entry.last == key:
                    return self.answer(frame.id, frame.handle, entry, locale=locale)  # a retry: applied once
                if frame.seq == entry.seq + 1:
                    return self._change(entry, frame, key, locale)
        if frame.log is None:
            have = entry.seq if entry is not None else None
            return Reply(NeedLog(re=frame.id, handle=frame.handle, have=have).model_dump_json(), "need_log")
        # The page sent its log with the change: rebuild the playground from it, then apply.
        if frame.log.seq != frame.seq - 1:
            raise FrameError("bad_frame", "log.seq must be one less than the change's seq")
        if frame.log.panel is None:
            raise FrameError("bad_frame", "log.panel: this field is required with a change")
        entry = self.rebuild(self._playground_panel(frame.log.panel), frame.log)
        with entry.lock:
            # The page's log is what the playground is now: the rebuilt one takes the handle at once, or the
            # answer's own put (which leaves another entry alone) would keep an older copy, and every press
            # after would need the log again. Under its lock: a retry that finds it waits for this change.
            self.cache.put(frame.handle, entry)
            reply = self._change(entry, frame, key, locale)
        return reply

    def _change(self, entry: Entry, frame: Change, key: tuple[Any, ...], locale: str | None = None) -> Reply:
        """Apply one change to an entry whose lock is held, answer, cache it. A change whose answer
        cannot be built is taken back, so an error answer's "nothing was changed" holds."""
        saved = entry.save()
        try:
            self._apply(entry, frame)
            entry.seq = frame.seq
            entry.last = key
            reply = self.answer(frame.id, frame.handle, entry, locale=locale)
        except BaseException:
            entry.restore(saved)
            raise

        def after() -> None:  # once the answer is on its way: count the run's cost
            self.cache.put(frame.handle, entry, over_another=False)  # new, or its cost changed

        return Reply(reply.text, reply.code, after)

    def _apply(self, entry: Entry, frame: Change) -> None:
        panel = self._playground_panel(entry.panel)
        if isinstance(frame, _ADVANCES):
            kind, arg = ("p", frame.button) if isinstance(frame, PressFrame) else ("e", frame.era)
            if len(entry.events) >= MAX_EVENTS:
                raise FrameError("too_many_events", f"this playground has reached {MAX_EVENTS} steps; reset to go on")
            event = event_of(panel, kind, arg, where="button" if kind == "p" else "era")
            entry.keep(advance(entry.run, event), entry.log_len + 1)
            entry.events.append((kind, arg))
        elif isinstance(frame, UndoFrame):
            if not entry.events:
                raise FrameError("nothing_to_undo", "nothing to undo: the playground is at its start")
            entry.keep(undo(entry.run), entry.log_len - 1)  # undo takes exactly one step off the log
            entry.events.pop()
        else:
            variant = variant_of(panel, frame.variant or entry.variant, where="variant" if frame.variant else "")
            era = entry.run.state.host.era
            entry.keep(begin(panel.start_for(panel.variant(variant), era=era)))
            entry.variant, entry.era, entry.events = variant, era, []

    def _history(self, entry: Entry) -> list[Any]:
        """The whole log of a cached run, replayed from its events (only an open needs it)."""
        log_ = Log(variant=entry.variant, era=entry.era, events=entry.events, seq=entry.seq)
        return self.replay(self._playground_panel(entry.panel), log_).log

    def answer(
        self,
        ref: Any,
        handle: str,
        entry: Entry,
        restored: bool = False,
        notice: str | None = None,
        full: bool = False,
        history: list[Any] | None = None,
        locale: str | None = None,
    ) -> Reply:
        """The answer to a frame: the current table, prompt and comparison, and only the newest
        log entry unless ``full`` (the page keeps the history it was sent); its narration in ``locale``
        (the service's own when None)."""
        run = entry.full()
        if history is not None:
            log_from, entries = 0, history
        elif full:
            log_from, entries = 0, run.log if entry.log_len == len(run.log) else self._history(entry)
        else:
            log_from, entries = entry.log_len - 1, run.log[-1:]
        shown = build_view(run.state, entries, run.last, run.other)
        return Reply(
            ViewAnswer(
                re=ref,
                panel=entry.panel,
                handle=handle,
                seq=entry.seq,
                variant=entry.variant,
                era=run.state.host.era,
                start_era=entry.era,
                steps=len(run.playground.events),
                can_undo=bool(run.playground.events),
                restored=restored,
                notice=notice,
                log_from=log_from,
                goal=self.goal(entry.panel, shown),
                asks=self.asks(entry.panel, shown),
                view=shown,
            ).model_dump_json(context=narration.words(locale or self.locale))
        )
