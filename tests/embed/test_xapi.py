"""xAPI statements: the model takes what the page sends and refuses what a store would not want."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import ValidationError

from lesson.portal import xapi
from tests import statements

LESSON = "https://lab.example/training/mcp/lessons/an-outage"
ACTOR = statements.anonymous_actor("https://lab.example", "visit-1")


def test_each_kind_of_statement_the_page_sends_is_plain_json_that_validates() -> None:
    """The five statements a lesson sends, in the shapes embed.js builds (tests/statements.py), pass the
    model and its JSON Schema as JSON; the store gets each verb's ADL IRI."""
    schema = xapi.Statement.model_json_schema()  # the verb-specific rules live in the model
    sent = [
        statements.experienced(ACTOR, LESSON, "why-churn", "Why churn"),
        statements.answered(ACTOR, LESSON, "q1", "b", True),
        statements.goal_completed(ACTOR, LESSON, "outage-recovered"),
        statements.lesson_completed(ACTOR, LESSON, "Hot swapping"),
        statements.lesson_scored(ACTOR, LESSON, 4, 5),
        statements.lesson_scored(ACTOR, LESSON, 1, 5),
    ]
    for statement in sent:
        data = json.loads(json.dumps(statement.to_json()))
        jsonschema.validate(data, schema)
        assert xapi.validate_statement(data) == statement
    assert [s.verb.id.rsplit("/", 1)[-1] for s in sent] == [
        "experienced",
        "answered",
        "completed",
        "completed",
        "passed",
        "failed",
    ]
    assert all(s.verb.id.startswith("http://adlnet.gov/expapi/verbs/") for s in sent)


def _base() -> dict:
    return statements.lesson_scored(ACTOR, LESSON, 3, 4, passing=0.5).to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["result"]["score"].pop("scaled"), "needs result.score.scaled"),
        (lambda s: s["result"]["score"].update(scaled=1.5), "less than or equal to 1"),
        (lambda s: s["result"].update(success=False), "contradicts"),
        # JSON has no NaN or Infinity: the store would refuse the statement after it was queued.
        (lambda s: s["result"]["score"].update(raw=float("nan")), "finite number"),
        (lambda s: s["result"]["score"].update(max=float("inf"), min=None), "finite number"),
        (lambda s: s["verb"].update(id="http://adlnet.gov/expapi/verbs/launched"), "not one of the lesson's verbs"),
        (lambda s: s["object"].update(id="not an iri"), "absolute IRI"),
        (lambda s: s["actor"].update(mbox="mailto:a@b.example"), "exactly one of mbox or account"),
        (lambda s: s["actor"].pop("account"), "exactly one of mbox or account"),
        (lambda s: s.update(extra=1), "Extra inputs"),
        (
            lambda s: s.update(context={"contextActivities": {"parent": [{"id": "https://lab.example/lessons/x"}]}}),
            "parent must be the lesson",
        ),
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
    task = xapi.validate_statement(statements.answered(ACTOR, LESSON, "host-error", log, True, task=True).to_json())
    assert task.object.definition.interactionType == "other" and task.result.response == log
    choice = statements.answered(ACTOR, LESSON, "q1", "b", True).to_json()
    assert choice["object"]["definition"]["interactionType"] == "choice"
    choice["object"]["definition"]["interactionType"] = "likert"
    with pytest.raises(ValidationError, match="interactionType"):
        xapi.validate_statement(choice)


def test_answered_needs_success_and_response() -> None:
    data = statements.answered(ACTOR, LESSON, "q1", "b", True).to_json()
    del data["result"]["response"]
    with pytest.raises(ValidationError, match="result.success and result.response"):
        xapi.validate_statement(data)


def test_a_parts_parent_is_its_lesson_not_a_step_on_the_way() -> None:
    answer = statements.answered(ACTOR, LESSON, "q1", "b", True).to_json()
    assert xapi.validate_statement(answer).context.contextActivities.parent[0].id == LESSON
    answer["context"]["contextActivities"]["parent"] = [{"id": f"{LESSON}/question"}]
    with pytest.raises(ValidationError, match="parent must be the lesson"):
        xapi.validate_statement(answer)
