"""xAPI statements the lesson sends: who did what to which part of the lesson, and how it went.

Plain JSON in the xAPI 1.0.3 shape (actor, verb, object, result, context), limited to the five things a
lesson reports. Verbs and activity types are the ADL vocabulary, so any learning record store understands
them. Activity ids hang off the lesson's IRI (its public URL); a part's statement names its lesson as the
context's parent, and every statement the course (the site's root) as its grouping:

- ``{lesson}/section/{id}``   ``experienced``          a section was read
- ``{lesson}/question/{id}``  ``answered``             a quick check; ``result.success`` and ``response``
- ``{lesson}/goal/{id}``      ``completed``            a playground goal was reached
- ``{lesson}``                ``completed``            the whole lesson was finished
- ``{lesson}``                ``passed`` / ``failed``  with ``result.score.scaled`` in [0, 1]

``static/js/embed.js`` builds the same statements in the page; :func:`validate_statement` checks one.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from lesson.sim.model import Strict

ADL = "http://adlnet.gov/expapi"
VERBS: dict[str, str] = {
    name: f"{ADL}/verbs/{name}" for name in ("experienced", "answered", "completed", "passed", "failed")
}
ACTIVITY_TYPES: dict[str, str] = {
    "lesson": f"{ADL}/activities/lesson",
    "section": f"{ADL}/activities/module",
    "question": f"{ADL}/activities/cmi.interaction",
    "goal": f"{ADL}/activities/objective",
}
XAPI_VERSION = "1.0.3"

_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")


def _iri(value: str) -> str:
    if not _IRI.match(value):
        raise ValueError(f"{value!r} is not an absolute IRI (like https://example.org/x)")
    return value


class Account(Strict):
    homePage: str
    name: str = Field(min_length=1)

    _home = field_validator("homePage")(_iri)


class Agent(Strict):
    """The learner. Exactly one identifier: an ``mbox`` or an ``account`` (an LMS user id, or an
    anonymous per-visit id when the page knows nobody)."""

    objectType: Literal["Agent"] = "Agent"
    name: str | None = None
    mbox: str | None = Field(default=None, pattern=r"^mailto:[^@\s]+@[^@\s]+$")
    account: Account | None = None

    @model_validator(mode="after")
    def _one_identifier(self) -> Agent:
        if (self.mbox is None) == (self.account is None):
            raise ValueError("an actor needs exactly one of mbox or account")
        return self


class Verb(Strict):
    id: str
    display: dict[str, str] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in VERBS.values():
            raise ValueError(f"{value!r} is not one of the lesson's verbs: {sorted(VERBS.values())}")
        return value


class Definition(Strict):
    name: dict[str, str] | None = None
    type: str
    # "choice" for a question of choices; "other" for a playground task, whose response is its log.
    interactionType: Literal["choice", "other"] | None = None

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in ACTIVITY_TYPES.values():
            raise ValueError(f"{value!r} is not one of the lesson's activity types")
        return value


class Activity(Strict):
    objectType: Literal["Activity"] = "Activity"
    id: str
    definition: Definition

    _id = field_validator("id")(_iri)


class Score(Strict):
    # JSON has no NaN or Infinity: a statement holding one would be queued, then refused by the store.
    model_config = ConfigDict(allow_inf_nan=False)

    scaled: float | None = Field(default=None, ge=-1, le=1)
    raw: float | None = None
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Score:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("score.min is above score.max")
        if self.raw is not None and (
            (self.min is not None and self.raw < self.min) or (self.max is not None and self.raw > self.max)
        ):
            raise ValueError("score.raw lies outside score.min..max")
        return self


class ActivityRef(Strict):
    """An activity named in a statement's context: the lesson a part belongs to, or the course."""

    objectType: Literal["Activity"] = "Activity"
    id: str

    _id = field_validator("id")(_iri)


class ContextActivities(Strict):
    parent: list[ActivityRef] | None = Field(default=None, min_length=1, max_length=1)  # a part's lesson
    grouping: list[ActivityRef] | None = Field(default=None, min_length=1, max_length=1)  # the course


class Context(Strict):
    contextActivities: ContextActivities | None = None


class Result(Strict):
    success: bool | None = None
    completion: bool | None = None
    response: str | None = None
    score: Score | None = None


class Statement(Strict):
    """One statement as the page sends it (and as the store receives it)."""

    id: uuid.UUID | None = None
    actor: Agent
    verb: Verb
    object: Activity
    result: Result | None = None
    context: Context | None = None
    timestamp: datetime | None = None
    version: Literal["1.0.3", "1.0.0"] | None = None

    @model_validator(mode="after")
    def _fits_the_verb(self) -> Statement:
        verb = self.verb.id.rsplit("/", 1)[-1]
        kind = next(k for k, v in ACTIVITY_TYPES.items() if v == self.object.definition.type)
        allowed = {
            "experienced": {"section"},
            "answered": {"question"},
            "completed": {"goal", "lesson"},
            "passed": {"lesson"},
            "failed": {"lesson"},
        }[verb]
        if kind not in allowed:
            raise ValueError(f"'{verb}' applies to a {' or '.join(sorted(allowed))}, not a {kind}")
        result = self.result
        if verb == "answered" and (result is None or result.success is None or result.response is None):
            raise ValueError("an 'answered' statement needs result.success and result.response")
        if verb in ("passed", "failed"):
            if result is None or result.score is None or result.score.scaled is None:
                raise ValueError(f"a '{verb}' statement needs result.score.scaled")
            if not 0 <= result.score.scaled <= 1:
                raise ValueError("a lesson score is scaled to 0..1")
            if result.success is not None and result.success != (verb == "passed"):
                raise ValueError(f"result.success contradicts '{verb}'")
        if verb == "completed" and result is not None and result.completion is False:
            raise ValueError("a 'completed' statement cannot say completion: false")
        parent = self.context and self.context.contextActivities and self.context.contextActivities.parent
        if parent and (
            kind == "lesson" or not re.fullmatch(rf"{re.escape(parent[0].id)}/{kind}/[^/]+", self.object.id)
        ):
            raise ValueError("context.contextActivities.parent must be the lesson the object is part of")
        return self

    def to_json(self) -> dict[str, Any]:
        """Plain JSON, without the fields left unset."""
        return self.model_dump(mode="json", exclude_none=True)


def validate_statement(data: Any) -> Statement:
    """Parse one statement; raises pydantic.ValidationError naming the faulty field."""
    return Statement.model_validate(data)
