"""xAPI statements: the builders produce valid JSON, and the model refuses what a store would not want."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import ValidationError

from lesson.portal import xapi

LESSON = "https://lab.example/training/mcp/lessons/an-outage"
ACTOR = xapi.anonymous_actor("https://lab.example", "visit-1")


def test_each_builder_gives_plain_json_that_validates() -> None:
    schema = xapi.statement_schema()
    statements = [
        xapi.experienced(ACTOR, LESSON, "why-churn", "Why churn"),
        xapi.answered(ACTOR, LESSON, "q1", "b", True),
        xapi.goal_completed(ACTOR, LESSON, "outage-recovered"),
        xapi.lesson_completed(ACTOR, LESSON, "Hot swapping"),
        xapi.lesson_scored(ACTOR, LESSON, 4, 5),
        xapi.lesson_scored(ACTOR, LESSON, 1, 5),
    ]
    for statement in statements:
        data = json.loads(json.dumps(statement.to_json()))
        jsonschema.validate(data, schema)
        assert xapi.validate_statement(data) == statement
    verbs = [s.verb.id for s in statements]
    assert verbs == [
        "http://adlnet.gov/expapi/verbs/experienced",
        "http://adlnet.gov/expapi/verbs/answered",
        "http://adlnet.gov/expapi/verbs/completed",
        "http://adlnet.gov/expapi/verbs/completed",
        "http://adlnet.gov/expapi/verbs/passed",
        "http://adlnet.gov/expapi/verbs/failed",
    ]


def test_ids_and_results_carry_what_the_store_needs() -> None:
    answer = xapi.answered(ACTOR, LESSON, "q1", "b", False).to_json()
    assert answer["object"]["id"] == LESSON + "/question/q1"
    assert answer["result"] == {"success": False, "response": "b"}
    assert answer["object"]["definition"]["type"] == "http://adlnet.gov/expapi/activities/cmi.interaction"
    passed = xapi.lesson_scored(ACTOR, LESSON, 4, 5).to_json()
    assert passed["object"]["id"] == LESSON
    assert passed["result"]["score"] == {"scaled": 0.8, "raw": 4, "min": 0, "max": 5}
    assert passed["result"]["success"] is True
    assert passed["actor"] == {"objectType": "Agent", "account": {"homePage": "https://lab.example", "name": "visit-1"}}


def _base() -> dict:
    return xapi.lesson_scored(ACTOR, LESSON, 3, 4, passing=0.5).to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["result"]["score"].pop("scaled"), "needs result.score.scaled"),
        (lambda s: s["result"]["score"].update(scaled=1.5), "less than or equal to 1"),
        (lambda s: s["result"].update(success=False), "contradicts"),
        (lambda s: s["verb"].update(id="http://adlnet.gov/expapi/verbs/launched"), "not one of the lesson's verbs"),
        (lambda s: s["object"].update(id="not an iri"), "absolute IRI"),
        (lambda s: s["actor"].update(mbox="mailto:a@b.example"), "exactly one of mbox or account"),
        (lambda s: s["actor"].pop("account"), "exactly one of mbox or account"),
        (lambda s: s.update(extra=1), "Extra inputs"),
        (lambda s: s["object"]["definition"].update(type=xapi.ACTIVITY_TYPES["section"]), "applies to a lesson"),
    ],
)
def test_malformed_statements_are_refused_with_a_reason(change, message: str) -> None:
    data = _base()
    change(data)
    with pytest.raises(ValidationError, match=message):
        xapi.validate_statement(data)


def test_a_task_answer_is_an_other_interaction_and_a_choice_a_choice() -> None:
    log = "outage:modern::add-c,call-a,a-dies,turn"
    task = xapi.validate_statement(xapi.answered(ACTOR, LESSON, "host-error", log, True, task=True).to_json())
    assert task.object.definition.interactionType == "other" and task.result.response == log
    choice = xapi.answered(ACTOR, LESSON, "q1", "b", True).to_json()
    assert choice["object"]["definition"]["interactionType"] == "choice"
    choice["object"]["definition"]["interactionType"] = "likert"
    with pytest.raises(ValidationError, match="interactionType"):
        xapi.validate_statement(choice)


def test_answered_needs_success_and_response() -> None:
    data = xapi.answered(ACTOR, LESSON, "q1", "b", True).to_json()
    del data["result"]["response"]
    with pytest.raises(ValidationError, match="result.success and result.response"):
        xapi.validate_statement(data)


def test_builders_refuse_bad_parts() -> None:
    with pytest.raises(ValueError, match="bad activity"):
        xapi.experienced(ACTOR, LESSON, "has space")
    with pytest.raises(ValueError, match="bad score"):
        xapi.lesson_scored(ACTOR, LESSON, 6, 5)
