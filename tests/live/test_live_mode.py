"""Live mode's guards and bounds (docs/live.md): refused where others could start processes, off by default,
bounded per playground and in total, every process killed when its socket closes or the server stops."""

from __future__ import annotations

import json

import psutil
import pytest
import websocket

from lesson.cli import _live_refusal
from lesson.live import SDK_MISSING, loopback
from lesson.live.runner import Limits, LiveRefused, Registry
from lesson.settings import SettingsError
from lesson.web import create_app

from .conftest import START, kill_all, live_children, serve

WAIT = 60  # seconds: a live playground's start imports the SDK in each server process


def test_refused_on_an_address_others_reach():
    """Bound to every interface without the allow setting: nothing is served, the message names the setting."""
    proc = serve("--live", "--host", "0.0.0.0", "--port", "0")
    try:
        _out, err = proc.communicate(timeout=START)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2
    assert "LESSON_LIVE_ALLOW_REMOTE" in err and "--live-allow-remote" in err


def test_refusals_by_setting():
    assert _live_refusal({"LIVE": False}, "0.0.0.0", 0) is None  # live off: nothing to refuse
    assert _live_refusal({"LIVE": True}, "127.0.0.1", 0) is None
    assert "LESSON_LIVE_ALLOW_REMOTE" in _live_refusal({"LIVE": True}, "192.168.1.20", 0)
    assert _live_refusal({"LIVE": True, "LIVE_ALLOW_REMOTE": True}, "0.0.0.0", 0) is None
    assert "--workers" in _live_refusal({"LIVE": True}, "127.0.0.1", 2)
    assert loopback("::1") and loopback("127.0.0.2") and not loopback("10.0.0.1")


def test_a_missing_sdk_is_named(monkeypatch):
    import importlib.util

    import lesson.live

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    assert lesson.live.sdk_missing() == SDK_MISSING
    assert "pip install -e '.[sdk]'" in SDK_MISSING
    assert _live_refusal({"LIVE": True}, "127.0.0.1", 0) == SDK_MISSING
    with pytest.raises(SettingsError, match=r"LESSON_LIVE is on, but .*pip install"):
        create_app({"SECRET_KEY": "t", "LIVE": True})  # `flask run` too stops with the command, not an ImportError


def socket_to(url: str) -> websocket.WebSocket:
    ws = websocket.create_connection(url.replace("http://", "ws://") + "/live", timeout=WAIT, origin=url)
    return ws


def test_live_off_starts_nothing(serve_app):
    """A shared deployment (live off, the default): the live socket is refused and no process starts."""
    url = serve_app()
    ws = socket_to(url)
    try:
        answer = json.loads(ws.recv())
        assert answer["type"] == "error" and answer["code"] == "live_off"
        assert "LESSON_LIVE" in answer["message"]
        opcode, data = ws.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(data[:2], "big") == 4403
    finally:
        ws.close()
    assert not live_children(psutil.Process()), "a live server started with live mode off"


def test_another_site_cannot_open_the_live_socket(serve_app):
    """The live socket is a socket like the others: a handshake from another site is refused before it opens."""
    url = serve_app(LIVE=True)
    with pytest.raises(websocket.WebSocketBadStatusException) as err:
        websocket.create_connection(
            url.replace("http://", "ws://") + "/live", timeout=WAIT, origin="http://evil.example"
        )
    assert err.value.status_code == 403
    assert not live_children(psutil.Process())


def test_bad_frames_get_clear_errors(serve_app):
    """With live mode on, frames that start nothing: each gets an error naming what is wrong, the socket stays."""
    url = serve_app(LIVE=True)
    ws = socket_to(url)
    try:
        for frame, code in [
            ("not json", "bad_frame"),
            (json.dumps([1]), "bad_frame"),
            (json.dumps({"type": "press", "button": "a-dies"}), "not_open"),
            (json.dumps({"type": "open", "panel": "restarts", "era": "modern"}), "not_live"),
            (json.dumps({"type": "open", "panel": "outage", "era": "2024"}), "not_live"),
        ]:
            ws.send(frame)
            answer = json.loads(ws.recv())
            assert (answer["type"], answer["code"]) == ("error", code), frame
    finally:
        ws.close()
    assert not live_children(psutil.Process())


class Panel:
    id = "outage"


def test_too_many_playgrounds_is_refused_clearly():
    registry = Registry(Limits(playgrounds=1))
    registry.playgrounds.add(object())  # one live playground already runs
    with pytest.raises(LiveRefused) as err:
        registry.open(Panel(), "modern")
    assert err.value.code == "live_busy"
    assert "LESSON_LIVE_MAX_PLAYGROUNDS" in err.value.message


class Proc:
    def __init__(self, pid: int) -> None:
        self.pid = pid


class Owner:
    closed = False


def test_processes_are_bounded_per_playground_and_in_total():
    registry = Registry(Limits(playgrounds=3, processes=3, per_playground=2))
    one, two = Owner(), Owner()
    for pid in (1, 2):
        registry.take(one)
        registry.take(one, Proc(pid))
    with pytest.raises(LiveRefused) as err:
        registry.take(one)
    assert "LESSON_LIVE_PROCESSES_PER_PLAYGROUND" in err.value.message
    registry.take(two)
    registry.take(two, Proc(3))
    with pytest.raises(LiveRefused) as err:
        registry.take(two)
    assert "LESSON_LIVE_MAX_PROCESSES" in err.value.message
    registry.ended(1)  # a process killed (a server died): its room is free again
    registry.take(two)


@pytest.fixture
def one_playground_only(monkeypatch):
    monkeypatch.setenv("LESSON_LIVE_MAX_PLAYGROUNDS", "1")


def open_live(url: str, era: str = "modern") -> tuple[websocket.WebSocket, dict]:
    ws = socket_to(url)
    ws.send(json.dumps({"type": "open", "panel": "outage", "era": era}))
    while True:
        frame = json.loads(ws.recv())
        if frame["type"] != "starting":
            return ws, frame


def test_a_second_playground_past_the_bound_is_refused(one_playground_only, live_cli):
    """With one live playground allowed, a second socket gets a clear refusal and starts nothing."""
    ws, opening = open_live(live_cli.url)
    try:
        assert opening["type"] == "live", opening
        assert len(live_cli.children()) == 2  # A and B
        second = socket_to(live_cli.url)
        try:
            second.send(json.dumps({"type": "open", "panel": "outage", "era": "modern"}))
            frames = [json.loads(second.recv()), json.loads(second.recv())]
        finally:
            second.close()
        refusal = next(f for f in frames if f["type"] == "error")
        assert refusal["code"] == "live_busy" and "LESSON_LIVE_MAX_PLAYGROUNDS" in refusal["message"]
        assert len(live_cli.children()) == 2  # nothing started for the refused one
    finally:
        ws.close()


def test_the_processes_go_when_the_server_stops(live_cli):
    """SIGTERM to `lesson serve --live` with a live playground open: every server process it started is gone."""
    ws, opening = open_live(live_cli.url)
    try:
        assert opening["type"] == "live"
        kids = live_cli.children()
        assert [r["status"] for r in opening["servers"]] == ["connected", "connected"]
        assert {r["pid"] for r in opening["servers"]} == {k.pid for k in kids}
        live_cli.proc.terminate()
        live_cli.proc.wait(WAIT)
        gone, alive = psutil.wait_procs(kids, timeout=WAIT)
        assert not alive, f"left running after the server stopped: {alive}"
    finally:
        ws.close()
        kill_all(list(live_cli.seen))
