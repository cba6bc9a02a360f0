"""One live socket's conversation, without the socket: the frames an instructor's page sends, the
frames it gets back, and the live playground they run (docs/live.md). ``lesson/web/live.py`` only
carries the text both ways and closes the socket when this says so.

Frames, page to server: ``{"type": "open", "panel": "outage", "era": "modern", "lang": "en"}`` (again: start
over, in that era; ``lang``, the page's locale, picks the language of the lines, else the server's
``LESSON_LOCALE``), ``{"type": "press", "button": "a-dies"}``. Server to page: ``{"type": "starting", "era"}``,
then the live view (``{"type": "live", ...}``, see ``runner.py``), or ``{"type": "error", "code", "message"}``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from ..i18n import refuse_locale
from ..sim.model import ERAS
from . import LIVE_PANELS

log = logging.getLogger(__name__)

BUSY = 1013  # try again later: the bounds are reached
ENDS_SOCKET = ("live_busy", "live_processes", "live_stopped")  # refusals after which the socket closes


def error(code: str, message: str) -> str:
    return json.dumps({"type": "error", "code": code, "message": message})


class LiveSession:
    """The live playground one socket runs (at most one at a time): ``handle`` each frame's text, send
    what it yields in order (``starting`` comes before a playground's slow start), then close the socket
    with ``closing`` (code, reason) when that is set; ``close`` when the socket ends."""

    def __init__(self, registry: Any, panels: dict[str, Any], locale: str) -> None:
        self.registry = registry
        self.panels = panels
        self.locale = locale
        self.playground: Any = None
        self.closing: tuple[int, str] | None = None

    def handle(self, text: str) -> Iterator[str]:
        from .runner import LiveRefused

        try:
            frame = json.loads(text)
            kind = frame["type"]
        except (ValueError, KeyError, TypeError):
            yield error("bad_frame", "send a JSON object with a 'type'")
            return
        try:
            if kind == "open":
                yield from self._open(frame)
            elif kind == "press":
                if self.playground is None:
                    yield error("not_open", "open a live playground first")
                    return
                yield json.dumps(self.playground.press(str(frame.get("button"))))
            else:
                yield error("bad_frame", f"unknown frame type {kind!r}")
        except LiveRefused as err:
            yield error(err.code, err.message)
            if err.code in ENDS_SOCKET:
                self.closing = (BUSY, err.message[:120])
        except Exception as err:  # a live playground that failed to start or broke: say so, keep serving
            log.exception("live playground failed")
            yield error("live_failed", f"the real servers failed: {err}")
            self.close()

    def _open(self, frame: dict[str, Any]) -> Iterator[str]:
        panel_id, era = frame.get("panel"), frame.get("era", "modern")
        if panel_id not in LIVE_PANELS or panel_id not in self.panels or era not in ERAS:
            yield error("not_live", f"only {', '.join(LIVE_PANELS)} can run live, in era legacy or modern")
            return
        lang = frame.get("lang") or self.locale
        if why := refuse_locale(lang):
            yield error("unknown_locale", why)
            return
        self.close()
        yield json.dumps({"type": "starting", "era": era})
        self.playground = self.registry.open(self.panels[panel_id], era, lang)
        yield json.dumps(self.playground.opening)

    def close(self) -> None:
        if self.playground is not None:
            self.playground.close()
            self.playground = None


__all__ = ["LiveSession", "error"]
