"""The narration is in the page's language: a frame names the page's locale (``lang``), and the answer's
sentences are rendered in it, over the service, ``POST /api/frame`` and ``/ws`` alike, while another page
in English at the same time gets English. An unknown locale is refused and nothing changes. Only the
sentences differ: the codes, values, goals and everything else in the answer are the same."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import websocket

from lesson.content.course import default_root, load_panels
from lesson.i18n import PSEUDO
from lesson.playground.service import Service
from tests.threads import serve_in_thread

WRAPPED = re.compile(r"^⟦.*⟧$", re.S)


@pytest.fixture(scope="module")
def panels():
    return load_panels(default_root())


def send(service: Service, **frame: Any) -> dict:
    return service.handle_text(json.dumps({"v": 2, **frame})).data()


def lines(answer: dict) -> list[dict]:
    """Everything said: each log entry's heading and lines, the comparison's lines and its frames' notes,
    and the server table's cells."""
    view = answer["view"]
    out = [said for step in view["log"] for said in [step["label"], *step["lines"]]]
    if view["comparison"]:
        for side in (view["comparison"]["this"], view["comparison"]["other"]):
            out += side["lines"] + [frame["note"] for frame in side["wire"] if frame["note"]]
    cells = [row[k] for row in view["servers"] for k in ("listen", "last_change", "last_error")]
    cells += [store["label"] for store in view["stores"]]
    return out + [cell for cell in cells if cell is not None]


def wordless(data: Any) -> Any:
    """The answer without its sentences (and its handle, which is random)."""
    if isinstance(data, dict):
        return {k: wordless(v) for k, v in data.items() if k not in ("text", "handle")}
    if isinstance(data, list):
        return [wordless(v) for v in data]
    return data


def play(send_frame, lang: str | None) -> list[dict]:
    """Open the outage playground, press two buttons, undo, take a step back in by log: every answer."""
    extra = {"lang": lang} if lang else {}
    first = send_frame({"type": "open", "panel": "outage", "id": 1, **extra})
    handle = first["handle"]
    out = [first]
    for seq, button in enumerate(["deploy", "a-dies"], 1):
        out.append(send_frame({"type": "press", "handle": handle, "seq": seq, "button": button, **extra}))
    out.append(send_frame({"type": "undo", "handle": handle, "seq": 3, **extra}))
    log = {"era": "modern", "events": [["p", "deploy"]], "seq": 3}
    out.append(send_frame({"type": "open", "panel": "outage", "log": log, **extra}))
    return out


def test_two_pages_at_once_each_get_the_narration_in_their_own_language(panels) -> None:
    service = Service(panels)
    pseudo = play(lambda f: send(service, **f), PSEUDO)
    english = play(lambda f: send(service, **f), None)
    for a, b in zip(pseudo, english, strict=True):
        assert a["type"] == b["type"] == "view", (a, b)
        said, plain = lines(a), lines(b)
        assert said and all(WRAPPED.match(x["text"]) for x in said)
        assert not any(x["text"].startswith("⟦") for x in plain)
        assert [x["code"] for x in said] == [x["code"] for x in plain]
        assert wordless(a) == wordless(b), "only the sentences differ"
    codes = {x["code"] for a in pseudo for x in lines(a)}
    for part in ("table", "event", "note"):  # the table's cells, the steps' headings, the frames' notes
        assert any(code.startswith(f"narration.{part}.") for code in codes), part
    # The English page that says so outright gets the same as the one that says nothing.
    said_english = play(lambda f: send(service, **f), "en")
    assert [lines(a) for a in said_english] == [lines(b) for b in english]


def test_a_goal_is_graded_the_same_in_every_language(panels) -> None:
    service = Service(panels)
    for lang in ("en", PSEUDO):
        page = send(service, type="open", panel="outage", lang=lang)
        assert page["goal"] == {"met": False}
        send(service, type="press", handle=page["handle"], seq=1, button="a-dies", lang=lang)
        answer = send(service, type="press", handle=page["handle"], seq=2, button="turn", lang=lang)
        assert answer["goal"] == {"met": True}, lang


def test_a_playground_no_longer_held_says_so_in_the_page_language(panels) -> None:
    service = Service(panels)
    gone = "A" * 32
    notice = send(service, type="open", panel="outage", handle=gone, lang=PSEUDO)["notice"]
    assert WRAPPED.match(notice)
    assert not send(service, type="open", panel="outage", handle=gone)["notice"].startswith("⟦")


def test_the_restart_lab_answers_in_the_page_language(panels) -> None:
    service = Service(panels)
    lab = next(p for p in panels.values() if type(p).__name__ == "RestartLabPanel")
    frame = {"type": "restart", "panel": lab.id, "situation": lab.situations[0].id}
    pseudo, english = send(service, **frame, lang=PSEUDO), send(service, **frame)
    said = [line for side in pseudo["result"]["sides"] for s in side["steps"] for line in s["lines"]]
    plain = [line for side in english["result"]["sides"] for s in side["steps"] for line in s["lines"]]
    assert said and all(WRAPPED.match(x["text"]) for x in said)
    assert [x["code"] for x in said] == [x["code"] for x in plain]
    assert not any(x["text"].startswith("⟦") for x in plain)


@pytest.mark.parametrize(
    ("lang", "code", "words"),
    [
        ("fr", "unknown_locale", ["'fr'", "en", "pseudo"]),  # a plain name with no catalogue
        ("../en", "bad_frame", ["lang"]),  # not a catalogue's name at all: never read as a path
        ("x" * 21, "bad_frame", ["lang"]),
        (7, "bad_frame", ["lang"]),
    ],
)
def test_a_locale_with_no_catalogue_is_refused_and_nothing_changes(panels, lang, code, words) -> None:
    service = Service(panels)
    page = send(service, type="open", panel="outage")
    answer = send(service, type="press", handle=page["handle"], seq=1, button="a-dies", lang=lang, id=9)
    assert answer["type"] == "error" and answer["code"] == code and answer["re"] == 9
    assert all(w in answer["message"] for w in words), answer["message"]
    after = send(service, type="press", handle=page["handle"], seq=1, button="a-dies")
    assert after["type"] == "view" and after["seq"] == 1, "the refused press was not applied"
    assert send(service, type="open", panel="outage", lang=lang)["code"] == code


def test_over_http_a_pseudo_page_and_an_english_page_each_get_their_own(client) -> None:
    def post(frame: dict) -> dict:
        resp = client.post("/api/frame", data=json.dumps({"v": 2, **frame}), content_type="application/json")
        assert resp.status_code in (200, 400), resp.status_code
        return resp.get_json()

    pseudo, english = play(post, PSEUDO), play(post, None)
    assert all(WRAPPED.match(x["text"]) for a in pseudo for x in lines(a))
    assert not any(x["text"].startswith("⟦") for a in english for x in lines(a))
    resp = client.post(
        "/api/frame",
        data=json.dumps({"v": 2, "type": "open", "panel": "outage", "lang": "fr"}),
        content_type="application/json",
    )
    assert resp.status_code == 400 and resp.get_json()["code"] == "unknown_locale"


def test_over_the_socket_a_pseudo_page_and_an_english_page_each_get_their_own() -> None:
    from lesson.web import create_app
    from lesson.web.server import make_dev_server

    server = make_dev_server("127.0.0.1", 0, create_app({"SECRET_KEY": "t"}))
    serve_in_thread(server)
    url = f"ws://127.0.0.1:{server.server_port}/ws"
    try:
        pseudo_ws, english_ws = (websocket.create_connection(url, timeout=10) for _ in range(2))

        def over(ws):
            def send_frame(frame: dict) -> dict:
                ws.send(json.dumps({"v": 2, **frame}))
                return json.loads(ws.recv())

            return send_frame

        # Interleaved, as two learners press at the same time.
        p_open = over(pseudo_ws)({"type": "open", "panel": "outage", "lang": PSEUDO})
        e_open = over(english_ws)({"type": "open", "panel": "outage"})
        p_press = over(pseudo_ws)(
            {"type": "press", "handle": p_open["handle"], "seq": 1, "button": "a-dies", "lang": PSEUDO}
        )
        e_press = over(english_ws)({"type": "press", "handle": e_open["handle"], "seq": 1, "button": "a-dies"})
        for answer in (p_open, p_press):
            assert lines(answer) and all(WRAPPED.match(x["text"]) for x in lines(answer))
        for answer in (e_open, e_press):
            assert lines(answer) and not any(x["text"].startswith("⟦") for x in lines(answer))
        pseudo_ws.close()
        english_ws.close()
    finally:
        server.shutdown()


def test_a_page_names_its_locale_and_its_steppers_speak_it(client) -> None:
    """The page says its locale for the scripts to send (transport.js), and a stepper's moments are
    fetched in it."""

    def steps(path: str) -> tuple[str, dict]:
        html = client.get(path).get_data(as_text=True)
        locale = re.search(r'<html[^>]* data-locale="([^"]+)"', html).group(1)
        url = re.search(r'data-steps="([^"]+)"', html).group(1)
        return locale, client.get(url).get_json()

    locale, english = steps("/lessons/servers-come-and-go")
    pseudo_locale, pseudo = steps("/lessons/servers-come-and-go?lang=pseudo")
    assert (locale, pseudo_locale) == ("en", PSEUDO)
    said = [line for moment in pseudo["modern"] for s in moment["view"]["log"] for line in s["lines"]]
    plain = [line for moment in english["modern"] for s in moment["view"]["log"] for line in s["lines"]]
    assert said and all(WRAPPED.match(x["text"]) for x in said)
    assert [x["code"] for x in said] == [x["code"] for x in plain]
    assert not any(x["text"].startswith("⟦") for x in plain)
