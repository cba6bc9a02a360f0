"""Thousands of random frames and requests: the server never fails on input, every frame gets one
well-formed answer, and a bystander's playground is untouched."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lesson.content.course import default_root, load_panels
from lesson.playground.service import Service

PANELS = load_panels(default_root())
KINDS = ["open", "press", "undo", "reset", "era", "restart", "dance", None, 3]
json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_value = st.recursive(
    json_leaf, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=20
)
ids = st.sampled_from(["outage", "handles", "restarts", "churn", "a-dies", "deploy", "in-process", "idle"]) | st.text(
    max_size=12
)
actions = st.lists(
    st.tuples(st.sampled_from(["p", "e", "x"]), st.sampled_from(["a-dies", "deploy", "legacy", "modern", "zz"])),
    max_size=8,
)


@st.composite
def frames(draw, handle: str):
    frame = {"v": draw(st.sampled_from([2, 2, 2, 1, "2", None]))}
    kind = draw(st.sampled_from(KINDS))
    if kind is not None:
        frame["type"] = kind
    optional = {
        "id": st.integers() | st.text(max_size=80) | st.booleans(),
        "panel": ids,
        "handle": st.sampled_from([handle[::-1], "x" * 32, "short"]) | st.text(max_size=70),
        "seq": st.integers(min_value=-5, max_value=10**12) | st.text(max_size=3),
        "button": ids,
        "era": st.sampled_from(["legacy", "modern", "future"]),
        "variant": ids,
        "situation": ids,
        "variants": st.lists(ids, max_size=14),
        "log": st.fixed_dictionaries(
            {"era": st.sampled_from(["legacy", "modern", "x"]), "events": actions},
            optional={"variant": ids, "seq": st.integers(min_value=-1, max_value=20)},
        )
        | json_value,
        "lang": st.sampled_from(["en", "pseudo", "fr", "../en"]) | st.text(max_size=25),
        "extra": json_value,
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            frame[key] = draw(strategy)
    return frame


@pytest.fixture(scope="module")
def bystander():
    service = Service(PANELS)
    opened = service.handle_text(json.dumps({"v": 2, "type": "open", "panel": "outage"})).data()
    handle = opened["handle"]
    pressed = service.handle_text(
        json.dumps({"v": 2, "type": "press", "handle": handle, "seq": 1, "button": "a-dies"})
    ).data()
    return service, handle, pressed


def check(service: Service, text: str | bytes) -> None:
    reply = service.handle_text(text)
    answer = json.loads(reply.text)
    assert answer["type"] in {"view", "error", "need_log", "restart"}
    if answer["type"] == "error":
        assert answer["code"] and answer["message"] and answer["code"] != "internal", answer


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_frames_get_one_well_formed_answer_each(bystander, data):
    service, handle, _ = bystander
    frame = data.draw(frames(handle))
    check(service, json.dumps(frame))


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=300) | st.text(max_size=300))
def test_random_bytes_are_refused_cleanly(bystander, raw):
    check(bystander[0], raw)


def test_the_bystanders_playground_is_intact(bystander):
    service, handle, pressed = bystander
    again = service.handle_text(json.dumps({"v": 2, "type": "open", "panel": "outage", "handle": handle})).data()
    assert again["seq"] == 1 and again["view"]["servers"] == pressed["view"]["servers"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(
        [
            "/api/frame",
            "/api/quiz/servers-come-and-go/discover",
            "/api/quiz/servers-come-and-go",
            "/lessons/servers-come-and-go/quiz/discover",
            "/ws",
            "/static/x/js/app.js",
            "/healthz",
        ]
    ),
    body=st.binary(max_size=200) | json_value.map(lambda v: json.dumps(v).encode()),
    ctype=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", ""]),
    origin=st.sampled_from([None, "http://localhost", "https://evil.example", "null"]),
)
def test_random_requests_never_get_a_server_error(client, path, body, ctype, origin):
    headers = {"Content-Type": ctype} if ctype else {}
    if origin:
        headers["Origin"] = origin
    resp = client.post(path, data=body, headers=headers)
    assert resp.status_code < 500
