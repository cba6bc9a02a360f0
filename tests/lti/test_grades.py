"""The gradebook: a launched learner's first answers, graded on the server, and the score that reaches
the platform's line item through the outbox (token by client credentials, then the AGS score)."""

from __future__ import annotations

import logging

from .conftest import Flow, launch_id
from .platform import SCORE_SCOPE


def _launch(live, **claims) -> tuple[Flow, str]:
    """A learner's launch of the fixture lesson (two questions: one is b, two is a)."""
    flow = Flow(live.app.test_client(), live.platform, live.tool)
    state, nonce = flow.start()
    body = live.platform.claims(nonce)
    body["https://purl.imsglobal.org/spec/lti/claim/custom"].update(claims)
    resp = flow.launch(live.platform.sign(body), state)
    assert resp.status_code == 200
    return flow, launch_id(resp.get_data(as_text=True))


def _answer(live, flow: Flow, launch: str, question: str, choice: str, **extra) -> dict:
    resp = flow.client.post(
        "/lti/answer",
        json={"launch": launch, "question": question, "choice": choice, **extra},
        headers={"Origin": live.tool},
        base_url=live.tool,
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def _put(lti) -> int:
    """Scores ever queued: still waiting or mid-send, or delivered."""
    stats = lti.app.extensions["outbox"].stats()
    return stats["depth"] + stats["delivered"]


def test_first_answers_count_and_the_score_reaches_the_line_item(live):
    lti = live()
    flow, launch = _launch(lti)
    first = _answer(lti, flow, launch, "one", "a", correct=True)  # the page's own "correct" is not read
    assert (first["answered"], first["correct"], first["complete"]) == (1, 0, False)
    again = _answer(lti, flow, launch, "one", "b")  # a second answer to the same question is not counted
    assert (again["kept"], again["correct"]) == (False, 0)
    done = _answer(lti, flow, launch, "two", "a")
    assert (done["complete"], done["correct"], done["total"], done["queued"]) == (True, 1, 2, True)
    (score,) = lti.platform.received.wait_for("scores", 1)
    assert score["lineitem"] == "1" and score["userId"] == "learner-1"
    assert (score["scoreGiven"], score["scoreMaximum"]) == (1, 2)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    assert score["timestamp"].endswith("Z")
    assert SCORE_SCOPE in lti.platform.received.token_requests[0]["scopes"]


def test_without_retakes_later_answers_change_nothing(live):
    lti = live()
    flow, launch = _launch(lti)
    _answer(lti, flow, launch, "one", "a")
    assert _answer(lti, flow, launch, "two", "b")["queued"] is True
    later = _answer(lti, flow, launch, "one", "b")
    assert (later["kept"], later["queued"], later["correct"], later["attempt"]) == (False, False, 0, 1)
    lti.platform.received.wait_for("scores", 1)
    assert _put(lti) == 1  # nothing more was queued


def test_with_retakes_a_better_attempt_updates_the_grade_and_a_worse_one_does_not(live):
    lti = live()
    flow, launch = _launch(lti, retakes="1")
    _answer(lti, flow, launch, "one", "a")
    assert _answer(lti, flow, launch, "two", "a")["queued"] is True  # 1 of 2
    assert _answer(lti, flow, launch, "one", "b")["attempt"] == 2
    assert _answer(lti, flow, launch, "two", "a")["queued"] is True  # 2 of 2: better
    _answer(lti, flow, launch, "two", "b")
    worse = _answer(lti, flow, launch, "one", "a")  # 0 of 2 in attempt 3
    assert (worse["attempt"], worse["complete"], worse["queued"]) == (3, True, False)
    scores = lti.platform.received.wait_for("scores", 2)
    assert [s["scoreGiven"] for s in scores] == [1, 2]
    assert _put(lti) == 2


def test_a_platform_that_is_down_gets_the_score_once_it_is_back(live, caplog):
    caplog.set_level(logging.WARNING)
    lti = live()
    lti.platform.scores_status = 503
    flow, launch = _launch(lti)
    _answer(lti, flow, launch, "one", "b")
    assert _answer(lti, flow, launch, "two", "a")["queued"] is True  # answered at once, platform or not
    lti.platform.received.wait_for("refused", 2)  # tried, failed, tried again
    lti.platform.scores_status = 200
    (score,) = lti.platform.received.wait_for("scores", 1)
    assert score["scoreGiven"] == 2
    assert any("503" in r.getMessage() for r in caplog.records)


def test_a_score_the_platform_refuses_is_set_aside_and_logged(live, caplog):
    caplog.set_level(logging.WARNING)
    lti = live()
    lti.platform.scores_status = 400
    flow, launch = _launch(lti)
    _answer(lti, flow, launch, "one", "b")
    _answer(lti, flow, launch, "two", "a")
    box = lti.app.extensions["outbox"]
    lti.platform.received.wait_for("refused", 1)
    box.stop()  # joins the sender, which records the outcome of its send before it looks at the stop
    assert box.stats()["set_aside"] == 1 and box.stats()["depth"] == 0
    assert any("gave up" in r.getMessage() and "400" in r.getMessage() for r in caplog.records)


def test_bad_answers_are_refused_and_count_for_nothing(live):
    lti = live()
    flow, launch = _launch(lti)
    post = lambda body: flow.client.post(  # noqa: E731
        "/lti/answer", json=body, headers={"Origin": lti.tool}, base_url=lti.tool
    )
    assert post({"launch": "lti1p3-launch-unknown", "question": "one", "choice": "b"}).status_code == 404
    assert post({"launch": launch, "question": "one", "choice": "z"}).status_code == 400
    assert post({"launch": launch, "question": "nine", "choice": "a"}).status_code == 404
    assert post({"launch": launch, "question": "one"}).status_code == 400
    assert post(["not", "an", "object"]).status_code == 400
    assert _answer(lti, flow, launch, "one", "b")["answered"] == 1


def test_a_task_is_graded_by_replaying_its_playground_log(tmp_path, tool_keys):
    """The shipped lesson's playground task: the log that does it counts as right, a log that does not
    as wrong (first answer), and a log that cannot be replayed is refused and counts for nothing."""
    from lesson.content.course import default_root, load_content
    from lesson.web import create_app

    from .conftest import TOOL, lti_config
    from .platform import Platform

    platform = Platform()
    platform.tool = TOOL
    app = create_app(lti_config(tmp_path, platform, tool_keys, CONTENT_ROOT=str(default_root())))
    flow = Flow(app.test_client(), platform)
    state, nonce = flow.start()
    page = flow.launch(platform.sign(platform.claims(nonce, lesson="an-outage")), state)
    launch = launch_id(page.get_data(as_text=True))

    def post(choice: str):
        body = {"launch": launch, "question": "host-error", "choice": choice}
        return flow.client.post("/lti/answer", json=body, headers={"Origin": TOOL}, base_url=TOOL)

    assert post("outage:modern::call-a,a-dies,teleport").status_code == 400  # no such button
    done = post("outage:modern::add-c,call-a,a-dies,turn").get_json()
    total = len(load_content(default_root()).quizzes["an-outage"].questions)  # a question added changes nothing
    assert (done["answered"], done["correct"], done["total"]) == (1, 1, total)
    other = Flow(app.test_client(), platform)
    state, nonce = other.start()
    body = platform.claims(nonce, lesson="an-outage", sub="learner-2")
    launch = launch_id(other.launch(platform.sign(body), state).get_data(as_text=True))
    undone = post("outage:modern::add-c,a-dies,turn").get_json()
    assert (undone["answered"], undone["correct"]) == (1, 0)


def test_an_answer_that_cannot_be_read_or_names_no_question_gets_a_json_error(live):
    """A body nested too deeply to parse, or a question the launched quiz does not have: a JSON error the
    page can show, never a crash or an HTML page."""
    lti = live()
    flow, launch = _launch(lti)
    deep = '{"a":' * 3000 + "1" + "}" * 3000
    for body, status in (
        ({"data": deep, "content_type": "application/json"}, 400),
        ({"json": {"launch": launch, "question": "nope", "choice": "a"}}, 404),
    ):
        resp = flow.client.post("/lti/answer", headers={"Origin": lti.tool}, base_url=lti.tool, **body)
        assert resp.status_code == status and resp.is_json and resp.get_json()["error"]


def test_a_task_log_that_cannot_be_checked_says_why_as_the_page_s_own_quiz_does(live):
    """The same code and reason /api/quiz gives, so the page can say what is wrong with the log."""
    from lesson.content.course import default_root

    lti = live(CONTENT_ROOT=str(default_root()))
    flow, launch = _launch(lti, lesson="an-outage")
    for log, code in (("nope", "not_a_log"), ("handles:modern::create", "other_panel")):
        resp = flow.client.post(
            "/lti/answer",
            json={"launch": launch, "question": "host-error", "choice": log},
            headers={"Origin": lti.tool},
            base_url=lti.tool,
        )
        assert resp.status_code == 400 and resp.get_json()["code"] == code, resp.get_data(as_text=True)
        assert "cannot be checked" in resp.get_json()["error"]


def test_a_launched_lesson_s_task_logs_are_charged_to_the_replay_budget(live):
    """/lti/answer replays a task's log as /api/quiz does, and spends the same budget for the address."""
    from lesson.content.course import default_root

    lti = live(CONTENT_ROOT=str(default_root()), REPLAY_BURST=600, REPLAY_RATE=0.001)
    flow, launch = _launch(lti, lesson="an-outage")
    log = "outage:modern::" + ",".join(["turn"] * 450)

    def answer():
        body = {"launch": launch, "question": "host-error", "choice": log}
        return flow.client.post("/lti/answer", json=body, headers={"Origin": lti.tool}, base_url=lti.tool)

    assert answer().status_code == 200
    refused = answer()
    assert refused.status_code == 429 and refused.get_json()["code"] == "slow_down"
