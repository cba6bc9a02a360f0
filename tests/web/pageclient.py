"""A page, in Python: it holds a playground's log and speaks the frames static/js/playground.js
speaks, over any transport. The replica tests and the load bench use it."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

Send = Callable[[dict], dict]


class PageClient:
    def __init__(self, send: Send, panel: str = "outage") -> None:
        self.send, self.panel = send, panel
        self.handle: str | None = None
        self.log: dict[str, Any] = {}
        self.history: list[dict] = []
        self.last: dict = {}
        self.need_logs = 0
        self._id = 0

    def _frame(self, frame: dict) -> dict:
        self._id += 1
        return self.send({"v": 2, "id": self._id, **frame})

    def take(self, answer: dict, frame: dict) -> dict:
        if answer.get("type") != "view":
            raise AssertionError(f"expected a view, got {answer}")
        events = list(self.log.get("events", []))
        kind = frame["type"]
        if kind == "press":
            events.append(["p", frame["button"]])
        elif kind == "era":
            events.append(["e", frame["era"]])
        elif kind == "undo":
            events.pop()
        elif kind == "reset":
            events = []
        self.handle = answer["handle"]
        self.log = {"variant": answer["variant"], "era": answer["start_era"], "events": events, "seq": answer["seq"]}
        self.history = self.history[: answer["log_from"]] + answer["view"]["log"]
        self.last = answer
        return answer

    def open(self) -> dict:
        frame: dict[str, Any] = {"type": "open", "panel": self.panel}
        if self.handle:
            frame |= {"handle": self.handle, "log": self.log}
        return self.take(self._frame(frame), frame)

    def do(self, kind: str, **extra: Any) -> dict:
        frame = {"type": kind, "handle": self.handle, "seq": self.log["seq"] + 1, **extra}
        answer = self._frame(frame)
        if answer.get("type") == "need_log":
            # The server lost the playground: send the change again with the log it follows.
            self.need_logs += 1
            answer = self._frame({**frame, "log": {**self.log, "panel": self.panel}})
        return self.take(answer, frame) if answer.get("type") == "view" else answer


def http_sender(base: str) -> Send:
    """Each frame on a fresh HTTP connection, as a page behind a round-robin balancer may see it."""

    def send(frame: dict) -> dict:
        req = urllib.request.Request(
            base + "/api/frame",
            data=json.dumps(frame).encode(),
            headers={"Content-Type": "application/json", "Connection": "close"},
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as err:
            return json.loads(err.read())

    return send


def ws_sender(base: str) -> Send:
    """Each frame on a fresh WebSocket, as a page whose socket keeps dropping."""
    import websocket

    def send(frame: dict) -> dict:
        ws = websocket.create_connection(base.replace("http", "ws") + "/ws", timeout=30)
        try:
            ws.send(json.dumps(frame))
            return json.loads(ws.recv())
        finally:
            ws.close()

    return send
