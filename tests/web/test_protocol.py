"""The playground protocol, frame by frame: over the service, HTTP, and a real WebSocket."""

from __future__ import annotations

import json

import pytest
import websocket

from lesson.content.course import default_root, load_panels
from lesson.playground.service import RunCache, Service
from tests.threads import serve_in_thread

from .pageclient import PageClient


@pytest.fixture(scope="module")
def panels():
    return load_panels(default_root())


@pytest.fixture
def service(panels) -> Service:
    return Service(panels)


def send(service: Service, **frame) -> dict:
    return service.handle_text(json.dumps({"v": 2, **frame})).data()


class Page(PageClient):
    """What the page holds for one playground, and the frames it sends, in process; ``service`` may
    be swapped, as a page's socket may land on another worker."""

    def __init__(self, service: Service, panel: str = "outage") -> None:
        self.service = service
        super().__init__(lambda frame: self.service.handle_text(json.dumps(frame)).data(), panel)


def row(answer: dict, name: str) -> dict:
    return next(r for r in answer["view"]["servers"] if r["name"] == name)


def test_open_gives_an_unguessable_handle_and_the_start_view(service):
    answer = send(service, type="open", panel="outage", id=1)
    assert answer["type"] == "view" and answer["re"] == 1
    assert len(answer["handle"]) >= 22  # 22 URL-safe characters hold 132 bits; ours hold 192
    assert [r["name"] for r in answer["view"]["servers"]] == ["A", "B"]
    assert answer["steps"] == 0 and answer["can_undo"] is False and answer["seq"] == 0
    other = send(service, type="open", panel="outage")
    assert other["handle"] != answer["handle"]


def test_a_press_answers_with_what_changed_not_the_whole_history(service):
    page = Page(service)
    page.open()
    page.do("press", button="deploy")
    answer = page.do("press", button="a-dies")
    assert row(answer, "A")["status"] == "down"
    assert all(t["server"] != "A" for t in answer["view"]["next_prompt"]["tools"])
    assert answer["seq"] == 2 and answer["log_from"] == 2 and len(answer["view"]["log"]) == 1
    assert [s["step"] for s in page.history] == [0, 1, 2]
    full = send(service, type="open", panel="outage", handle=page.handle)
    assert full["log_from"] == 0 and full["view"]["log"] == page.history
    # The step's frames travel once: in the comparison, not again beside it.
    assert "wire" not in answer["view"] and "wire" not in full["view"]
    assert [f["kind"] for f in answer["view"]["comparison"]["this"]["wire"]][-1] == "stream_end"


@pytest.mark.parametrize(
    "text, code, words",
    [
        ("{not json", "bad_json", "not valid JSON"),
        ("[1, 2]", "bad_frame", "JSON object"),
        ('{"v": 2, "type": "dance"}', "unknown_type", "dance"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2}', "bad_frame", "button"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies", "extra": 1}', "bad_frame", "extra"),
        ('{"v": 1, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies"}', "bad_frame", "version"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": "two", "button": "a-dies"}', "bad_frame", "seq"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "fly"}', "unknown_button", "a-dies"),
        ('{"v": 2, "type": "open", "panel": "nowhere"}', "unknown_panel", "nowhere"),
        (
            '{"v": 2, "type": "open", "panel": "outage", "log": {"era": "modern", "events": [["p", "fly"]], "seq": 1}}',
            "unknown_button",
            "fly",
        ),
        ('{"v": 2, "type": "open", "panel": "outage", "log": {"era": "medieval"}}', "bad_frame", "era"),
        (
            '{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": ' + "[" * 50 + "]" * 50 + "}",
            "bad_frame",
            "nests",
        ),
        ("[" * 100_000 + "]" * 100_000, "too_large", "limit"),
        # Numbers are JSON integers: a string, a boolean or a float is refused, not read as one.
        ('{"v": 2, "type": "press", "handle": "%s", "seq": "2", "button": "a-dies"}', "bad_frame", "seq"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": true, "button": "a-dies"}', "bad_frame", "seq"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2.0, "button": "a-dies"}', "bad_frame", "seq"),
        ('{"v": 2.0, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies"}', "bad_frame", "v"),
        # An id is an integer or an id: one that could not be echoed back is refused before anything is applied.
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies", "id": "\\ud800"}', "bad_frame", "id"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies", "id": true}', "bad_frame", "id"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies", "id": "ABC DEF"}', "bad_frame", "id"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies", "id": "abc\\n"}', "bad_frame", "id"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 2, "button": "a-dies", "id": "-abc"}', "bad_frame", "id"),
        ("\ufeff" + '{"v": 2, "type": "open", "panel": "outage"}', "bad_json", "byte-order mark"),
        ('{"v": 2, "type": "open", "panel": "outage", "id": ' + "9" * 5000 + "}", "bad_json", "too many digits"),
        # A log names its own panel, and a panel without an era choice always starts in its own era.
        (
            '{"v": 2, "type": "open", "panel": "outage", "log": {"panel": "handles", "era": "modern"}}',
            "bad_frame",
            "log.panel",
        ),
        ('{"v": 2, "type": "open", "panel": "handles", "log": {"era": "legacy"}}', "bad_frame", "log.era"),
        # An id no page would send (4,000 digits) is refused, not echoed back.
        ('{"v": 2, "type": "open", "panel": "outage", "id": ' + "9" * 4000 + "}", "bad_frame", "id"),
        ('{"v": 2, "type": "open", "panel": "outage", "id": 9007199254740992}', "bad_frame", "id"),
        # seq counts the changes, and each event took one: a smaller seq is no log a page kept.
        (
            '{"v": 2, "type": "open", "panel": "outage", "log": {"era": "modern", "events": [["p", "deploy"]]}}',
            "bad_frame",
            "seq",
        ),
        # A log event's error names what is wrong with it: the kind, or the era.
        (
            '{"v": 2, "type": "open", "panel": "outage", "log": {"era": "modern", "events": [["x", "a"]], "seq": 1}}',
            "bad_frame",
            "event kind",
        ),
        (
            '{"v": 2, "type": "open", "panel": "outage", "log": {"era": "modern", "events": [["e", "future"]], '
            '"seq": 1}}',
            "bad_frame",
            '"future" is not an era',
        ),
        # A value quoted back is escaped and cut inside its quotes: a lone surrogate cannot break the answer.
        ('{"v": 2, "type": "\\udc80"}', "unknown_type", '"\\udc80"'),
        ('{"v": 2, "type": "' + "x" * 60 + '"}', "unknown_type", '"' + "x" * 40 + '"…'),
        # Each refusal names the field that holds what is wrong, in the frame's own JSON terms.
        ('{"v": 2, "panel": "outage"}', "bad_frame", "type: this field is required"),
        ('{"v": 2, "type": "open", "panel": "outage", "era": null}', "bad_frame", "era"),
        ('{"v": 2, "type": "open", "panel": "outage", "log": "x"}', "bad_frame", "log: should be a JSON object"),
        ('{"v": 2, "type": "press", "handle": "%s", "seq": 0, "button": "a-dies"}', "bad_frame", "seq"),
        (
            '{"v": 2, "type": "open", "panel": "outage", "log": {"era": "modern", "events": [["p", "deploy"], '
            '["p", "zz"]], "seq": 2}}',
            "unknown_button",
            "log.events.1: ",
        ),
        ('{"v": 2, "type": "open", "panel": "outage", "variant": "zz"}', "bad_frame", "variant: "),
        ('{"v": 2, "type": "restart", "panel": "restarts", "situation": "zz"}', "bad_frame", "situations are: "),
    ],
)
def test_bad_input_gets_a_named_error_and_loses_nothing(service, text, code, words):
    page = Page(service)
    page.open()
    before = page.do("press", button="deploy")
    frame = text % page.handle if "%s" in text else text
    answer = service.handle_text(frame).data()
    assert answer["type"] == "error" and answer["code"] == code
    assert words.lower() in answer["message"].lower()
    again = send(service, type="open", panel="outage", handle=page.handle)
    assert again["handle"] == page.handle and again["steps"] == before["steps"] == 1
    assert again["view"]["servers"] == before["view"]["servers"]


def test_a_change_whose_answer_fails_is_taken_back(service, monkeypatch):
    """The error answer says nothing was changed: then nothing was, and the page's next change, which
    carries the same sequence number, is the first one applied."""
    handle = send(service, type="open", panel="outage")["handle"]
    build = Service.answer

    def broken(*args, **kwargs):
        raise RuntimeError("the answer could not be built")

    monkeypatch.setattr(Service, "answer", broken)
    failed = send(service, type="press", handle=handle, seq=1, button="a-dies")
    assert failed["code"] == "internal" and "nothing was changed" in failed["message"]
    monkeypatch.setattr(Service, "answer", build)
    other = send(service, type="press", handle=handle, seq=1, button="deploy")
    assert other["type"] == "view" and other["steps"] == 1 and row(other, "A")["status"] == "connected"
    assert send(service, type="press", handle=handle, seq=2, button="a-dies")["steps"] == 2


@pytest.mark.parametrize("depth", [1_000, 200_000])
def test_deep_json_is_refused_not_a_crash(panels, depth):
    roomy = Service(panels, max_frame_bytes=1 << 20)
    answer = roomy.handle_text('{"v": 2, "type": "open", "x": ' + "[" * depth + "]" * depth + "}").data()
    assert answer["type"] == "error" and answer["code"] in ("bad_json", "bad_frame")


def test_nothing_to_undo_at_the_start(service):
    page = Page(service)
    page.open()
    answer = page.do("undo")
    assert answer["code"] == "nothing_to_undo" and "start" in answer["message"]


def test_undo_and_reset(service):
    page = Page(service)
    start = page.open()
    page.do("press", button="a-dies")
    undone = page.do("undo")
    assert undone["view"]["servers"] == start["view"]["servers"] and page.history == start["view"]["log"]
    page.do("press", button="add-c")
    reset = page.do("reset")
    assert reset["steps"] == 0 and reset["view"]["servers"] == start["view"]["servers"]
    assert len(page.history) == 1 and page.log["events"] == []


def test_era_switch_is_an_undoable_step(service):
    page = Page(service)
    page.open()
    answer = page.do("era", era="legacy")
    assert answer["era"] == "legacy" and row(answer, "A")["era"] == "legacy"
    assert page.do("undo")["era"] == "modern"


def test_reset_keeps_the_chosen_era_and_takes_a_variant(service):
    page = Page(service, "handles")
    page.open()
    answer = page.do("reset", variant="in-process")
    assert answer["variant"] == "in-process"
    bad = page.do("reset", variant="nope")
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


def test_a_server_that_lost_the_playground_asks_for_the_log_and_carries_on(panels):
    # Two services stand for two workers (or a restart): neither shares memory with the other.
    one, two = Service(panels), Service(panels)
    page = Page(one)
    page.open()
    page.do("press", button="deploy")
    page.do("era", era="legacy")
    expected = page.do("press", button="a-dies")
    frame = {"type": "press", "handle": page.handle, "seq": page.log["seq"] + 1, "button": "a-back"}
    asked = send(two, **frame)
    assert asked["type"] == "need_log" and asked["have"] is None
    page.service = two
    after = page.do("press", button="a-back")  # handed the log along with the press, once
    assert after["seq"] == 4 and len(page.history) == 5 and after["log_from"] == 4
    reopened = send(two, type="open", panel="outage", handle=page.handle)
    assert reopened["view"]["log"] == page.history
    on_one = Page(one)
    on_one.handle, on_one.log = page.handle, page.log
    assert on_one.do("undo")["view"]["servers"] == expected["view"]["servers"]


def test_an_answer_held_up_by_a_slow_send_never_puts_back_an_older_playground(panels):
    """The cache is updated once an answer is sent. A send that waits on a client gone quiet must not
    put its rebuilt playground back over the one another socket rebuilt, and moved on, meanwhile."""
    one, two = Service(panels), Service(panels)
    page = Page(one)
    page.open()
    page.do("press", button="deploy")
    log = {**page.log, "panel": "outage"}
    frame = json.dumps({"v": 2, "type": "press", "handle": page.handle, "seq": 2, "button": "a-dies", "log": log})
    stuck = two.handle_text(frame, defer=True)  # rebuilt from the log; its socket's send hangs
    assert stuck.data()["seq"] == 2
    page.service = two
    again = two.handle_text(frame)  # the page, reconnected, sends the change again
    assert again.data()["seq"] == 2
    page.log = {**page.log, "events": [*page.log["events"], ["p", "a-dies"]], "seq": 2}
    assert send(two, type="press", handle=page.handle, seq=3, button="turn")["seq"] == 3
    stuck.finish()  # the first send gives up at last
    moved_on = send(two, type="press", handle=page.handle, seq=4, button="a-back")
    assert moved_on["type"] == "view" and moved_on["seq"] == 4 and moved_on["steps"] == 4


def test_a_playground_rebuilt_over_an_older_copy_replaces_it(panels):
    """A worker that still holds an older copy of a playground (the page moved on at another one) takes
    the log once: the next press goes on from the rebuilt playground, with no log asked for again."""
    one, two = Service(panels), Service(panels)
    page = Page(one)
    page.open()
    page.do("press", button="deploy")  # one holds the playground at press 1
    page.service = two
    page.do("press", button="a-dies")  # two rebuilds it from the log
    page.do("press", button="turn")
    page.service = one
    before = page.need_logs
    page.do("press", button="a-back")  # one's copy is behind: the log comes with this press
    assert page.need_logs == before + 1
    after = page.do("press", button="turn")
    assert page.need_logs == before + 1, "the rebuilt playground was dropped for the older copy"
    assert after["seq"] == 5 and after["steps"] == 5


def test_a_rebuilt_playground_is_cached_only_under_its_lock(panels):
    """A retry of the same change that finds the rebuilt playground in the cache must wait for the
    change under way and be answered as a retry, never apply the press a second time: the playground
    takes its handle while its lock is held."""
    one, two = Service(panels), Service(panels)
    held: list[bool] = []
    put = two.cache.put
    two.cache.put = lambda handle, entry, **kw: (held.append(entry.lock.locked()), put(handle, entry, **kw))
    page = Page(one)
    page.open()
    page.do("press", button="deploy")
    page.service = two
    page.do("press", button="a-dies")  # rebuilt from the log on two
    assert held and held[0] is True


def test_a_retried_change_is_applied_once_and_a_gap_is_asked_for(service):
    page = Page(service)
    page.open()
    frame = {"type": "press", "handle": page.handle, "seq": 1, "button": "deploy", "id": 7}
    first = send(service, **frame)
    retry = send(service, **{**frame, "id": 8})
    assert retry["re"] == 8 and retry["seq"] == first["seq"] == 1 and retry["steps"] == 1
    assert retry["view"] == first["view"]
    other = send(service, **{**frame, "button": "a-dies"})  # the same number for another change
    assert other["type"] == "need_log" and other["have"] == 1
    gap = send(service, type="press", handle=page.handle, seq=5, button="a-dies")
    assert gap["type"] == "need_log" and gap["have"] == 1
    assert send(service, type="open", panel="outage", handle=page.handle)["steps"] == 1


def test_a_shared_log_reproduces_the_playground_under_a_new_handle(service):
    page = Page(service)
    page.open()
    page.do("press", button="deploy")
    shown = page.do("press", button="a-dies")
    copy = send(service, type="open", panel="outage", log={**page.log, "seq": 2})
    assert copy["handle"] != page.handle and copy["view"]["servers"] == shown["view"]["servers"]


def test_the_cache_is_bounded_by_bytes_and_drops_least_recently_used(panels):
    from lesson.playground.runcache import BASE_BYTES

    service = Service(panels, RunCache(max_bytes=3 * BASE_BYTES))
    first = Page(service)
    first.open()
    for _ in range(3):
        Page(service).open()
    assert len(service.cache) <= 3 and service.cache.bytes <= 3 * BASE_BYTES
    answer = send(service, type="undo", handle=first.handle, seq=1)
    assert answer["type"] == "need_log"  # dropped, and the page can hand its log back
    assert first.do("press", button="deploy")["steps"] == 1


def test_http_frames_behave_like_socket_frames(client):
    def post(frame, **kw):
        return client.post("/api/frame", data=json.dumps({"v": 2, **frame}), content_type="application/json", **kw)

    resp = post({"type": "open", "panel": "outage"})
    assert resp.status_code == 200
    h = resp.get_json()["handle"]
    resp = post({"type": "press", "handle": h, "seq": 1, "button": "a-dies"})
    assert next(r for r in resp.get_json()["view"]["servers"] if r["name"] == "A")["status"] == "down"
    resp = client.post("/api/frame", data="nope", content_type="application/json")
    assert resp.status_code == 400 and resp.get_json()["code"] == "bad_json"
    resp = post({"type": "undo", "handle": "x" * 32, "seq": 1})
    assert resp.status_code == 409 and resp.get_json()["type"] == "need_log"
    resp = client.post(
        "/api/frame", data=json.dumps({"v": 2, "type": "open", "panel": "outage"}), content_type="text/plain"
    )
    assert resp.status_code == 415
    resp = post({"type": "open", "panel": "outage"}, headers={"Origin": "https://evil.example"})
    assert resp.status_code == 403


def test_http_bodies_are_read_as_socket_frames_and_refusals_say_why_in_json(client):
    frame = json.dumps({"v": 2, "type": "open", "panel": "outage"}).encode()
    for body in (b"\xef\xbb\xbf" + frame, frame.replace(b"outage", b"outage\xed\xa0\x80")):
        resp = client.post("/api/frame", data=body, content_type="application/json")
        assert resp.status_code == 400 and resp.get_json()["code"] == "bad_json"
    limit = client.application.config["MAX_CONTENT_LENGTH"]
    resp = client.post("/api/frame", data=b" " * (limit + 1), content_type="application/json")
    assert resp.status_code == 413 and resp.get_json()["code"] == "too_large"
    frame_limit = client.application.config["MAX_FRAME_BYTES"]
    assert resp.get_json()["message"].startswith(f"frame is over the limit of {frame_limit} bytes")
    resp = client.post(
        "/api/frame", data=frame, content_type="application/json", headers={"Origin": "https://evil.example"}
    )
    assert resp.status_code == 403 and "origin" in resp.get_json()["error"]
    for path in ("/api/quiz/servers-come-and-go", "/api/quiz/servers-come-and-go/discover"):
        resp = client.post(path, data="[" * 5000 + "]" * 5000, content_type="application/json")
        assert resp.status_code == 400 and resp.is_json, path  # refused, not a 500


def test_a_real_websocket_survives_bad_frames_and_reconnects_by_handle(live_server):
    import websocket

    url = live_server.replace("http", "ws") + "/ws"
    ws = websocket.create_connection(url, timeout=10)
    ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage"}))
    h = json.loads(ws.recv())["handle"]
    ws.send(json.dumps({"v": 2, "type": "press", "handle": h, "seq": 1, "button": "a-dies"}))
    pressed = json.loads(ws.recv())
    ws.send("{garbage")
    assert json.loads(ws.recv())["code"] == "bad_json"
    ws.send(json.dumps({"v": 2, "type": "press", "handle": h}))
    assert json.loads(ws.recv())["code"] == "bad_frame"
    ws.close()
    ws = websocket.create_connection(url, timeout=10)
    ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage", "handle": h}))
    back = json.loads(ws.recv())
    ws.close()
    assert back["restored"] is True and back["view"]["servers"] == pressed["view"]["servers"]


def test_a_long_playground_keeps_the_same_history_on_the_page_and_the_server(service):
    # The cache keeps only the newest log entry; an open replays the rest from the events.
    page = Page(service)
    page.open()
    buttons = ["deploy", "a-dies", "turn", "a-back", "add-c"]
    for n in range(60):
        page.do("press", button=buttons[n % 5])
        if n % 7 == 6:
            page.do("undo")
    page.do("era", era="legacy")
    full = send(service, type="open", panel="outage", handle=page.handle)
    assert full["log_from"] == 0 and full["view"]["log"] == page.history
    assert [s["step"] for s in page.history] == list(range(len(page.history)))
    replayed = send(service, type="open", panel="outage", log={**page.log})  # from the log alone
    assert replayed["view"]["log"] == page.history


def test_every_answer_says_whether_the_panels_goal_is_met(service):
    # outage's goal: A is down, none of A's tools is in the next prompt, and a turn was taken.
    page = Page(service)
    assert page.open()["goal"] == {"met": False}
    assert page.do("press", button="a-dies")["goal"] == {"met": False}  # no turn yet
    assert page.do("press", button="turn")["goal"] == {"met": True}
    assert send(service, type="open", panel="outage", handle=page.handle)["goal"] == {"met": True}
    assert page.do("press", button="a-back")["goal"] == {"met": False}  # A is up again
    assert page.do("undo")["goal"] == {"met": True}


def test_a_panel_without_a_goal_answers_goal_null(panels):
    service = Service({**panels, "outage": panels["outage"].model_copy(update={"goal": None})})
    page = Page(service)
    assert page.open()["goal"] is None
    answer = page.do("press", button="a-dies")
    assert "goal" in answer and answer["goal"] is None


def test_undo_replays_from_a_checkpoint_never_from_the_start(service, monkeypatch):
    import lesson.sim.run as playground

    page = Page(service)
    page.open()
    buttons = ["deploy", "a-dies", "turn", "a-back", "add-c"]
    for n in range(43):
        page.do("press", button=buttons[n % 5])
    applied = []
    real = playground.apply
    monkeypatch.setattr(playground, "apply", lambda state, event: applied.append(event) or real(state, event))
    undone = page.do("undo")
    # Each event is applied twice (this era and the other). From the start, undo would apply 2 x 42;
    # from the checkpoint at 40 it applies 2 x 2, and rebuilding the answer's outcomes at most as many again.
    assert 0 < len(applied) <= 4 * playground.STRIDE
    assert undone["steps"] == 42 and undone["log_from"] == 42 and len(undone["view"]["log"]) == 1
    # The page's history, continued by the answer, is the one a fresh replay of its log gives.
    assert send(service, type="open", panel="outage", log={**page.log})["view"]["log"] == page.history


def test_an_undo_onto_a_checkpoint_answers_with_that_step_s_log_entry(service):
    page = Page(service)
    page.open()
    buttons = ["deploy", "a-dies", "turn", "a-back", "add-c", "turn", "deploy", "turn", "turn"]
    answers = [page.do("press", button=b) for b in buttons]
    undone = page.do("undo")  # back to 8 events: exactly a checkpoint, held compact
    assert undone["steps"] == 8
    assert undone["view"]["log"] == answers[7]["view"]["log"]
    assert undone["view"]["comparison"] == answers[7]["view"]["comparison"]


def test_the_cache_holds_runs_compact_and_answers_as_if_it_did_not(service):
    page = Page(service)
    page.open()
    for button in ["deploy", "a-dies", "turn"]:
        answer = page.do("press", button=button)
    run = service.cache.get(page.handle).run
    # No log and no outcomes held: the page has the history, a checkpoint gives the outcomes.
    assert run.log == [] and run.last is None and run.other is None
    retried = send(service, type="press", handle=page.handle, seq=3, button="turn", id=answer["re"])
    assert retried == answer  # a retry is answered in full (comparison and all), not applied again
    assert answer["view"]["comparison"]["other"]["wire"]


def test_the_cached_run_is_compact_before_its_answer_is_sent(service):
    """The answer is built from the run as advanced, outcomes and all; the cache keeps it compact at
    once, so no checkpoint ever holds a step's outcomes, whenever the next change comes."""
    handle = send(service, type="open", panel="outage")["handle"]
    buttons = ["deploy", "a-dies", "turn", "a-back", "add-c", "turn", "deploy", "turn", "turn", "a-dies"]
    answers = []
    for seq, button in enumerate(buttons, start=1):
        frame = {"v": 2, "type": "press", "handle": handle, "seq": seq, "button": button}
        reply = service.handle_text(json.dumps(frame), defer=True)  # the socket's way: finish() after the send
        answers.append(reply.data())
        run = service.cache.get(handle).run
        assert run.log == [] and run.last is None and run.other is None
        assert answers[-1]["view"]["comparison"]["this"]["lines"]  # the answer still says what the press did
    checkpoint = service.cache.get(handle).run.checkpoint
    assert len(checkpoint.playground.events) == 8 and checkpoint.last is None and checkpoint.log == []
    # The answers are the ones an in-order page gets.
    page = Page(Service(service.panels))
    page.open()
    assert [page.do("press", button=b)["view"] for b in buttons] == [a["view"] for a in answers]


def test_a_socket_press_leaves_the_cached_run_compact(panels):
    from lesson.web import create_app
    from lesson.web.server import make_dev_server

    app = create_app({"SECRET_KEY": "t"})
    server = make_dev_server("127.0.0.1", 0, app)
    serve_in_thread(server)
    try:
        ws = websocket.create_connection(f"ws://127.0.0.1:{server.server_port}/ws", timeout=10)
        ws.send(json.dumps({"v": 2, "type": "open", "panel": "outage"}))
        handle = json.loads(ws.recv())["handle"]
        ws.send(json.dumps({"v": 2, "type": "press", "handle": handle, "seq": 1, "button": "a-dies"}))
        assert json.loads(ws.recv())["view"]["comparison"]  # the answer has the outcomes...
        ws.send(json.dumps({"v": 2, "type": "open", "panel": "nope"}))  # ...and once the next frame is in,
        assert json.loads(ws.recv())["code"] == "unknown_panel"
        entry = app.extensions["lesson"].service.cache.get(handle)
        with entry.lock:
            assert entry.run.last is None and entry.run.log == []  # ...the cached run holds none
        ws.close()
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "press", "seq": 1, "button": "a-dies", "id": "x"},
        {"type": "press", "seq": 1, "button": "fly", "id": 7},
        {"type": "press", "seq": 1, "button": "a-dies", "id": True},
        {"type": "press", "seq": 1, "button": "fly", "id": False},
        {"type": "press", "seq": 1, "button": "a-dies", "id": "\ud800"},
        {"type": "press", "seq": 1, "button": "fly", "id": "z" * 65},
        {"type": "press", "seq": 2, "button": "a-dies", "log": {"panel": "outage", "era": "modern", "seq": 0}},
        {"type": "press", "seq": 1.0, "button": "a-dies"},
        {"type": "undo", "seq": 1},
        {"type": "open", "panel": "outage", "id": "y" * 80},
        {"type": "era", "seq": 1, "era": "modern"},
    ],
)
def test_a_frame_is_answered_alike_parsed_whole_or_step_by_step(panels, frame):
    """Well-formed frames are parsed and validated in one pass; the step-by-step path (which names
    problems) must answer every frame the same way."""
    whole, steps = Service(panels), Service(panels)
    answers = []
    for service in (whole, steps):
        handle = send(service, type="open", panel="outage")["handle"]
        data = {"v": 2, "handle": handle, **frame}
        if service is whole:
            reply = service.handle_text(json.dumps(data)).data()
        else:
            reply = service.handle_data(json.loads(json.dumps(data))).data()
        for key in ("handle",):
            reply.pop(key, None)
        answers.append(reply)
    assert answers[0] == answers[1]


def test_the_cache_keeps_what_was_read_lately_and_an_entry_alone_over_the_bound():
    from types import SimpleNamespace

    cache = RunCache(max_bytes=300)
    entries = {name: SimpleNamespace(cost=100) for name in "abc"}
    for name, entry in entries.items():
        cache.put(name, entry)  # type: ignore[arg-type]
    assert cache.get("a") is entries["a"]  # read: now the most recently used
    cache.put("d", SimpleNamespace(cost=100))  # type: ignore[arg-type]
    assert cache.get("b") is None and cache.get("a") is entries["a"] and len(cache) == 3
    big = SimpleNamespace(cost=1_000)
    cache.put("big", big)  # type: ignore[arg-type]
    assert cache.get("big") is big and len(cache) == 1 and cache.bytes <= 300
    cache.put("big", SimpleNamespace(cost=100), over_another=False)  # type: ignore[arg-type]
    assert cache.get("big") is big  # a stale answer's accounting does not put back an older entry
