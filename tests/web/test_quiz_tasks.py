"""Task questions: the page sends the playground's log, the server replays it with the simulation and
grades the result; nothing the page says about the verdict counts. Uses the shipped lessons' tasks, found by
their ids; a score's total is the quiz's own count, so a question added to the quiz changes nothing here."""

from __future__ import annotations

import html
import json

import pytest

from lesson.content.course import default_root, load_content
from lesson.i18n import catalogue, translate
from lesson.playground.tasks import CODES, MAX_LINE, Grader, TaskLogError, log_line, read_line

DONE = "outage:modern::add-c,call-a,a-dies,turn"  # C added, a call runs on A, A dies, the model takes a turn
URL = "/api/quiz/an-outage/host-error"
TOTAL = len(load_content(default_root()).quizzes["an-outage"].questions)


def post(client, url: str, body: object):
    resp = client.post(url, json=body)
    return resp.status_code, resp.get_json()


@pytest.mark.parametrize(
    "log",
    [
        DONE,
        "outage:legacy::add-c,call-a,a-dies,turn",
        "outage:modern::call-a,a-dies,add-c,turn",  # C may come after the error, as long as it is there for the turn
        "outage:modern::@legacy,add-c,call-a,a-dies,a-back,a-dies,turn",
        DONE + ",a-back",  # done once, and the learner went on: A came back after the turn
    ],
)
def test_a_log_that_does_the_task_scores(client, log: str) -> None:
    status, reply = post(client, URL, {"log": log})
    assert status == 200
    assert reply["correct"] is True and reply["task"] is True
    assert "isError" in reply["explanation"] and "hint" not in reply
    assert reply["score"] == {"answered": 1, "correct": 1, "total": TOTAL}


@pytest.mark.parametrize(
    "log",
    [
        "outage:modern::",  # nothing pressed
        "outage:modern::add-c,a-dies,turn",  # no call was running: no host-built error
        # No call running when A died: the host-built error is for a later call to a tool of A's the
        # model remembered from turn 1, not for a call A's death cut short.
        "outage:modern::add-c,turn,a-dies,turn,turn",
        "outage:modern::add-c,call-a,a-dies",  # the error, but no turn after it
        "outage:modern::add-c,call-a,turn,a-dies",  # the turn came first
        "outage:modern::call-a,a-dies,turn",  # what the outage scenario presses: C was never added
        "outage:modern::add-c,call-a,a-dies,a-back,turn",  # A is back, so its tools are in the prompt
    ],
)
def test_a_log_that_does_not_do_the_task_gets_the_hint(client, log: str) -> None:
    status, reply = post(client, URL, {"log": log})
    assert status == 200
    assert reply["correct"] is False
    assert "add C" in reply["hint"] and "start a call on A" in reply["hint"] and "explanation" not in reply
    assert reply["score"] == {"answered": 1, "correct": 0, "total": TOTAL}


@pytest.mark.parametrize(
    ("log", "says"),
    [
        ("outage:modern::call-a,a-dies,teleport", "no button 'teleport'"),
        (DONE + ",teleport", "no button 'teleport'"),  # a press that cannot be replayed, after the task
        ("outage:modern:night:call-a,a-dies,turn", "no variant 'night'"),
        ("outage:ancient::turn", "not a playground log"),
        (DONE + "\n", "not a playground log"),  # a trailing newline would be stored with the answer
        ("outage:modern::add-c,call-a,a-dies\n,turn", "not a playground log"),
        ("call-a,a-dies,turn", "not a playground log"),
        ("outage:modern::call-a,,turn", "cannot be read"),
        ("outage:modern::" + ",".join(["turn"] * 501), "at most 500"),
        ("outage:modern::" + "x" * MAX_LINE, "the limit is"),
        ("guide:modern::q-deploys,turn", "from the 'guide' playground"),
    ],
)
def test_a_log_that_cannot_be_graded_is_refused_with_a_reason(client, log: str, says: str) -> None:
    status, reply = post(client, URL, {"log": log})
    assert status == 400
    assert says in reply["error"]
    # The page shows the reason from the catalogue, by its code, in the learner's language.
    assert reply["code"] in CODES
    shown = translate("pseudo", f"js.quiz.refused.{reply['code']}", **reply["params"])
    assert shown.startswith("⟦") and shown.endswith("⟧")
    assert all(str(value) in shown for value in reply["params"].values())
    # Refused, so held answers are untouched: the quiz still scores nothing.
    assert post(client, "/api/quiz/an-outage", {"answers": {}})[1]["score"]["answered"] == 0


@pytest.mark.parametrize("body", [{"log": 5}, {"choice": "a"}, {}, [DONE], "text"])
def test_a_task_needs_a_log(client, body: object) -> None:
    status, reply = post(client, URL, body)
    assert status == 400 and '{"log"' in reply["error"]
    assert reply["code"] == "needs_log" and "js.quiz.refused.needs_log" in catalogue("en")


def test_a_log_sent_to_a_choice_question_is_refused(client) -> None:
    status, reply = post(client, "/api/quiz/an-outage/dead-server", {"log": DONE})
    assert status == 400 and "choice" in reply["error"] and reply["code"] == "needs_choice"
    status, reply = post(client, "/api/quiz/an-outage/dead-server", {"choice": "z"})
    assert status == 400 and reply["code"] == "unknown_choice"
    assert {"js.quiz.refused.needs_choice", "js.quiz.refused.unknown_choice", "js.quiz.refused"} <= set(catalogue("en"))


def test_every_refusal_code_has_a_message_in_the_catalogue() -> None:
    assert {f"js.quiz.refused.{code}" for code in CODES} <= set(catalogue("en"))


def test_a_task_once_done_keeps_its_point_when_a_later_check_fails(client) -> None:
    held = {"host-error": DONE, "dead-server": "b"}
    later = "outage:modern::add-c,call-a,a-dies"  # the turn undone: the playground no longer does it
    status, reply = post(client, URL, {"log": later, "answers": held})
    assert status == 200
    assert reply["correct"] is True and reply["kept"] is True
    assert reply["choice"] == DONE  # the page keeps the log that did it
    assert reply["score"] == {"answered": 2, "correct": 2, "total": TOTAL}
    # Without an earlier success a failing check is simply not done yet...
    status, reply = post(client, URL, {"log": later, "answers": {"dead-server": "b"}})
    assert reply["correct"] is False and "kept" not in reply and reply["choice"] == later
    # ...and a held "success" that does not replay as one keeps nothing.
    status, reply = post(client, URL, {"log": later, "answers": {"host-error": "outage:modern::turn"}})
    assert reply["correct"] is False and "kept" not in reply
    # A choice question is different: its first answer is the one that scores, whatever comes after.
    reply = post(client, "/api/quiz/an-outage/dead-server", {"choice": "a", "answers": {"dead-server": "b"}})[1]
    assert reply["correct"] is False and reply["counted"] is False and reply["score"]["correct"] == 1


def test_a_forged_verdict_from_the_page_is_ignored(client) -> None:
    held = {"host-error": "correct"}
    forged = {"log": "outage:modern::turn", "correct": True, "score": {"correct": 4}, "answers": held}
    status, reply = post(client, URL, forged)
    assert status == 200 and reply["correct"] is False and "kept" not in reply
    assert reply["score"]["correct"] == 0  # the log sent now replaces the verdict the page says it held
    # Held answers that are verdicts, not logs, count for nothing.
    graded = post(client, "/api/quiz/an-outage", {"answers": {"host-error": "correct", "dead-server": "b"}})[1]
    assert "host-error" not in graded["results"]
    assert graded["score"] == {"answered": 1, "correct": 1, "total": TOTAL}


def test_held_task_answers_are_graded_again_from_their_logs(client) -> None:
    held = {"host-error": DONE, "dead-server": "a"}
    status, graded = post(client, "/api/quiz/an-outage", {"answers": held})
    assert status == 200
    assert graded["results"]["host-error"] == {
        "choice": DONE,
        "correct": True,
        "task": True,
        "explanation": graded["results"]["host-error"]["explanation"],
        "see": {"href": "#play-out-an-outage", "title": "Play out an outage"},
    }
    assert graded["score"] == {"answered": 2, "correct": 1, "total": TOTAL}
    not_done = post(client, "/api/quiz/an-outage", {"answers": {"host-error": "outage:modern::turn"}})[1]
    assert not_done["results"]["host-error"]["correct"] is False
    assert "hint" in not_done["results"]["host-error"]
    # Checking a choice question sends the held answers along: the task counts there too.
    reply = post(client, "/api/quiz/an-outage/dead-server", {"choice": "b", "answers": {"host-error": DONE}})[1]
    assert reply["score"] == {"answered": 2, "correct": 2, "total": TOTAL}


def test_the_second_lesson_task_is_graded_on_its_own_playground(client) -> None:
    url = "/api/quiz/list-changed/silent-tool"
    assert post(client, url, {"log": "guide:modern::q-deploys,turn"})[1]["correct"] is True
    assert post(client, url, {"log": "guide:modern::q-deploys,timer,admin"})[1]["correct"] is False
    # Done at the turn; the timer pressed after it takes nothing away.
    assert post(client, url, {"log": "guide:modern::q-deploys,turn,timer"})[1]["correct"] is True
    assert post(client, url, {"log": DONE})[0] == 400


def test_without_javascript_a_task_says_it_needs_the_playground(client) -> None:
    page = client.get("/lessons/an-outage").get_data(as_text=True)
    assert html.escape(translate("en", "quiz.task.noscript").strip(" ().")) in page
    resp = client.post("/lessons/an-outage/quiz/host-error", data={"choice": "a"})
    assert resp.status_code == 303 and "error=host-error" in resp.headers["Location"]
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert html.escape(translate("en", "quiz.task.needs_script")) in page
    # The choice questions still work as plain forms.
    assert client.post("/lessons/an-outage/quiz/dead-server", data={"choice": "b"}).status_code == 303
    score = translate("en", "quiz.score", correct=1, total=TOTAL, answered=1)
    assert html.escape(score, quote=False) in client.get("/lessons/an-outage").get_data(as_text=True)


def test_the_one_line_log_reads_back() -> None:
    text = log_line("outage", "modern", None, ["call-a", "@legacy", "turn"])
    assert text == "outage:modern::call-a,@legacy,turn"
    parsed = read_line(text)
    assert parsed.panel == "outage" and parsed.log.era == "modern" and parsed.log.variant is None
    assert parsed.log.events == [("p", "call-a"), ("e", "legacy"), ("p", "turn")]
    with pytest.raises(TaskLogError):
        read_line({"events": []})


def test_verdicts_are_remembered_per_panel_object(app) -> None:
    with app.app_context():
        from lesson.web import lesson_state

        state = lesson_state()
        task = next(q.task for q in state.content.quizzes["an-outage"].questions if q.id == "host-error")
        grader = Grader(size=2)
        assert grader.grade("k", task, state.panels, DONE) is True
        # Content loaded again brings new panel objects: the verdict is worked out again, not reused.
        panels = {**state.panels, "outage": state.panels["outage"].model_copy(update={"buttons": []})}
        with pytest.raises(TaskLogError, match="no button 'add-c'"):
            grader.grade("k", task, panels, DONE)


def test_a_full_playground_of_the_longest_button_ids_fits_a_task_line_and_a_frame() -> None:
    """The limits agree with the content's: 500 presses of buttons with the longest id `lesson check` lets
    through (in the longest panel and variant ids) fit in a task's line and in an open frame's log."""
    from lesson.content.panels import BUTTON_ID_MAX
    from lesson.playground.protocol import OpenFrame
    from lesson.settings import Settings
    from lesson.sim.run import MAX_EVENTS

    ids = "p" * 40, "v" * 40, "b" * BUTTON_ID_MAX
    text = log_line(ids[0], "modern", ids[1], [ids[2]] * MAX_EVENTS)
    assert len(text) <= MAX_LINE
    log = {"panel": ids[0], "era": "modern", "variant": ids[1], "seq": 999_999_999}
    frame = {"v": 2, "type": "open", "panel": ids[0], "log": {**log, "events": [["p", ids[2]]] * MAX_EVENTS}}
    OpenFrame.model_validate(frame)  # a frame the page could send
    assert len(json.dumps(frame).encode()) <= Settings.model_fields["MAX_FRAME_BYTES"].default


@pytest.mark.parametrize(("slug", "has_task"), [("an-outage", True), ("servers-come-and-go", False)])
def test_a_quick_check_with_a_task_says_a_task_may_be_checked_again(client, slug: str, has_task: bool) -> None:
    """The first answer counts, except a task's: its latest check does, so a "Not yet" is no answer lost."""
    page = client.get(f"/lessons/{slug}").get_data(as_text=True)
    assert html.escape(translate("en", "quiz.rule")) in page
    assert (html.escape(translate("en", "quiz.rule.tasks")) in page) is has_task
