"""The playground protocol, frame by frame: over the service, HTTP, and a real WebSocket."""

from __future__ import annotations

import json

import pytest

from lesson.content import default_root
from lesson.panels import load_panels
from lesson.service import MemoryStore, Service


@pytest.fixture(scope="module")
def panels():
    return load_panels(default_root())


@pytest.fixture
def service(panels) -> Service:
    return Service(panels, MemoryStore())


def send(service: Service, **frame) -> dict:
    return service.handle_text(json.dumps({"v": 1, **frame}))


def row(answer: dict, name: str) -> dict:
    return next(r for r in answer["view"]["servers"] if r["name"] == name)


def test_open_gives_an_unguessable_handle_and_the_start_view(service):
    answer = send(service, type="open", panel="outage", id=1)
    assert answer["type"] == "view" and answer["re"] == 1
    assert len(answer["handle"]) >= 22  # 22 URL-safe characters hold 132 bits; ours hold 192
    assert [r["name"] for r in answer["view"]["servers"]] == ["A", "B"]
    assert answer["steps"] == 0 and answer["can_undo"] is False
    other = send(service, type="open", panel="outage")
    assert other["handle"] != answer["handle"]


def test_press_applies_the_buttons_event(service):
    h = send(service, type="open", panel="outage")["handle"]
    answer = send(service, type="press", handle=h, button="a-dies")
    assert row(answer, "A")["status"] == "down"
    assert all(t["server"] != "A" for t in answer["view"]["next_prompt"]["tools"])
    assert answer["view"]["log"][-1]["label"]


@pytest.mark.parametrize(
    "text, code, words",
    [
        ("{not json", "bad_json", "not valid JSON"),
        ("[1, 2]", "bad_frame", "JSON object"),
        ('{"v": 1, "type": "dance"}', "unknown_type", "dance"),
        ('{"v": 1, "type": "press", "handle": "%s"}', "bad_frame", "button"),
        ('{"v": 1, "type": "press", "handle": "%s", "button": "a-dies", "extra": 1}', "bad_frame", "extra"),
        ('{"v": 2, "type": "press", "handle": "%s", "button": "a-dies"}', "bad_frame", "version"),
        ('{"v": 1, "type": "press", "handle": "%s", "button": "fly"}', "unknown_button", "a-dies"),
        (
            '{"v": 1, "type": "press", "handle": "NoSuchHandleNoSuchHandle00", "button": "a-dies"}',
            "unknown_handle",
            "handle",
        ),
        ('{"v": 1, "type": "open", "panel": "nowhere"}', "unknown_panel", "nowhere"),
    ],
)
def test_bad_input_gets_a_named_error_and_loses_nothing(service, text, code, words):
    h = send(service, type="open", panel="outage")["handle"]
    before = send(service, type="press", handle=h, button="deploy")
    frame = text % h if "%s" in text else text
    answer = service.handle_text(frame)
    assert answer["type"] == "error" and answer["code"] == code
    assert words.lower() in answer["message"].lower()
    again = send(service, type="open", panel="outage", handle=h)
    assert again["handle"] == h and again["steps"] == before["steps"] == 1
    assert again["view"] == before["view"]


def test_nothing_to_undo_at_the_start(service):
    h = send(service, type="open", panel="outage")["handle"]
    answer = send(service, type="undo", handle=h)
    assert answer["code"] == "nothing_to_undo" and "start" in answer["message"]


def test_too_large_frame_is_refused(service):
    answer = service.handle_text("x" * 10_000)
    assert answer["code"] == "too_large" and "8192" in answer["message"]


def test_undo_and_reset(service):
    h = send(service, type="open", panel="outage")["handle"]
    start = send(service, type="open", panel="outage", handle=h)
    send(service, type="press", handle=h, button="a-dies")
    undone = send(service, type="undo", handle=h)
    assert undone["view"] == start["view"]
    send(service, type="press", handle=h, button="add-c")
    reset = send(service, type="reset", handle=h)
    assert reset["steps"] == 0 and reset["view"] == start["view"]


def test_era_switch_is_an_undoable_step(service):
    h = send(service, type="open", panel="outage")["handle"]
    answer = send(service, type="era", handle=h, era="legacy")
    assert answer["era"] == "legacy" and "legacy" in row(answer, "A")["era"]
    assert send(service, type="undo", handle=h)["era"] == "modern"


def test_reset_keeps_the_chosen_era_and_takes_a_variant(service):
    h = send(service, type="open", panel="handles")["handle"]
    answer = send(service, type="reset", handle=h, variant="in-process")
    assert answer["variant"] == "in-process"
    bad = send(service, type="reset", handle=h, variant="nope")
    assert bad["code"] == "bad_frame"


def test_restart_lab_answers_both_eras(service):
    answer = send(service, type="restart", panel="restarts", situation="idle", variants=[])
    sides = {s["era"]: s for s in answer["result"]["sides"]}
    legacy_wire = [m for step in sides["legacy"]["steps"] for m in step["wire"]]
    modern_wire = [m for step in sides["modern"]["steps"] for m in step["wire"]]
    assert any(m["http"] == "HTTP 404 Not Found" for m in legacy_wire)
    assert not any((m["payload"] or {}).get("method") == "initialize" for m in modern_wire)
    bad = send(service, type="restart", panel="restarts", situation="sleeping")
    assert bad["code"] == "bad_frame" and "sleeping" in bad["message"]


def test_the_store_drops_least_recently_used(panels):
    service = Service(panels, MemoryStore(capacity=2))
    first = send(service, type="open", panel="outage")["handle"]
    send(service, type="open", panel="outage")
    send(service, type="open", panel="outage")
    assert send(service, type="undo", handle=first)["code"] == "unknown_handle"


def test_http_frames_behave_like_socket_frames(client):
    resp = client.post("/api/frame", data=json.dumps({"v": 1, "type": "open", "panel": "outage"}))
    assert resp.status_code == 200
    h = resp.get_json()["handle"]
    resp = client.post("/api/frame", data=json.dumps({"v": 1, "type": "press", "handle": h, "button": "a-dies"}))
    assert next(r for r in resp.get_json()["view"]["servers"] if r["name"] == "A")["status"] == "down"
    resp = client.post("/api/frame", data="nope")
    assert resp.status_code == 400 and resp.get_json()["code"] == "bad_json"
    resp = client.post("/api/frame", data=json.dumps({"v": 1, "type": "undo", "handle": "x" * 32}))
    assert resp.status_code == 404


def test_a_real_websocket_survives_bad_frames_and_reconnects_by_handle(live_server):
    import websocket

    url = live_server.replace("http", "ws") + "/ws"
    ws = websocket.create_connection(url, timeout=10)
    ws.send(json.dumps({"v": 1, "type": "open", "panel": "outage"}))
    h = json.loads(ws.recv())["handle"]
    ws.send(json.dumps({"v": 1, "type": "press", "handle": h, "button": "a-dies"}))
    pressed = json.loads(ws.recv())
    ws.send("{garbage")
    assert json.loads(ws.recv())["code"] == "bad_json"
    ws.send(json.dumps({"v": 1, "type": "press", "handle": h}))
    assert json.loads(ws.recv())["code"] == "bad_frame"
    ws.close()
    ws = websocket.create_connection(url, timeout=10)
    ws.send(json.dumps({"v": 1, "type": "open", "panel": "outage", "handle": h}))
    back = json.loads(ws.recv())
    ws.close()
    assert back["restored"] is True and back["view"] == pressed["view"]
