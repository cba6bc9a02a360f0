"""xAPI statements as the page builds them (static/js/embed.js), for the tests of the statement model,
the outbox and the record-store forwarder: the server itself only checks and forwards statements."""

from __future__ import annotations

import re
import time
import uuid
from datetime import UTC, datetime
from typing import Literal

from lesson.portal.xapi import (
    ACTIVITY_TYPES,
    VERBS,
    Account,
    Activity,
    ActivityRef,
    Agent,
    Context,
    ContextActivities,
    Definition,
    Result,
    Score,
    Statement,
    Verb,
)

_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,79}$")  # a section, question or goal id in an IRI


def anonymous_actor(home_page: str, visit_id: str | None = None) -> Agent:
    """An actor for a visitor nobody has named: an account under the lesson site's home page."""
    return Agent(account=Account(homePage=home_page, name=visit_id or uuid.uuid4().hex))


def activity_id(lesson_iri: str, kind: str, part: str | None = None) -> str:
    """The IRI of a lesson (``part`` None) or of one of its sections, questions or goals."""
    if kind == "lesson":
        return lesson_iri.rstrip("/")
    if kind not in ACTIVITY_TYPES or part is None or not _PART.match(part):
        raise ValueError(f"bad activity: kind={kind!r} part={part!r}")
    return f"{lesson_iri.rstrip('/')}/{kind}/{part}"


def _statement(
    actor: Agent,
    verb: str,
    kind: str,
    lesson_iri: str,
    part: str | None,
    title: str | None,
    result: Result | None,
    interaction: Literal["choice", "other"] | None = None,
) -> Statement:
    definition = Definition(
        name={"en-US": title} if title else None,
        type=ACTIVITY_TYPES[kind],
        interactionType=interaction,
    )
    lesson = activity_id(lesson_iri, "lesson")
    course = re.sub(r"/lessons/[^/]+$", "/", lesson) if re.search(r"/lessons/[^/]+$", lesson) else None
    context = ContextActivities(
        parent=None if kind == "lesson" else [ActivityRef(id=lesson)],
        grouping=[ActivityRef(id=course)] if course else None,
    )
    return Statement(
        id=uuid.uuid4(),
        actor=actor,
        verb=Verb(id=VERBS[verb], display={"en-US": verb}),
        object=Activity(id=activity_id(lesson_iri, kind, part), definition=definition),
        result=result,
        context=Context(contextActivities=context) if context.parent or context.grouping else None,
        timestamp=datetime.now(UTC),
    )


def experienced(actor: Agent, lesson_iri: str, section: str, title: str | None = None) -> Statement:
    return _statement(actor, "experienced", "section", lesson_iri, section, title, None)


def answered(
    actor: Agent,
    lesson_iri: str,
    question: str,
    response: str,
    success: bool,
    title: str | None = None,
    task: bool = False,
) -> Statement:
    """An answer: a choice's id, or for a task (``task``) the playground log that did it."""
    result = Result(success=success, response=response)
    kind = "other" if task else "choice"
    return _statement(actor, "answered", "question", lesson_iri, question, title, result, interaction=kind)


def goal_completed(actor: Agent, lesson_iri: str, goal: str, title: str | None = None) -> Statement:
    return _statement(actor, "completed", "goal", lesson_iri, goal, title, Result(completion=True))


def lesson_completed(actor: Agent, lesson_iri: str, title: str | None = None) -> Statement:
    return _statement(actor, "completed", "lesson", lesson_iri, None, title, Result(completion=True))


def lesson_scored(
    actor: Agent, lesson_iri: str, correct: int, total: int, passing: float = 0.8, title: str | None = None
) -> Statement:
    """``passed`` when correct/total reaches ``passing``, else ``failed``; the score is scaled to 0..1."""
    if total <= 0 or not 0 <= correct <= total:
        raise ValueError(f"bad score {correct}/{total}")
    scaled = round(correct / total, 4)
    passed = scaled >= passing
    score = Score(scaled=scaled, raw=correct, min=0, max=total)
    result = Result(success=passed, completion=True, score=score)
    return _statement(actor, "passed" if passed else "failed", "lesson", lesson_iri, None, title, result)


def drained(forwarder, timeout: float) -> bool:
    """Whether the record-store forwarder's outbox comes to hold no statement (each delivered or set aside)
    within ``timeout`` seconds: a wait on that condition, asked every 50 ms."""
    from lesson.portal.lrs import KIND

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(item.kind == KIND for item in forwarder.outbox.store.pending(1000)):
            return True
        time.sleep(0.05)
    return False
