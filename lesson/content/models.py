"""The course as data: lessons and other pages of prose, quizzes (choice and task questions), the
glossary, and former lessons, as strict pydantic models. Loading them from files is :mod:`.course`;
panels have their own models in :mod:`.panels`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from lesson.sim.spelling import did_you_mean

from .base import (
    ITEM_PATTERN,
    MOVED_TO_PATTERN,
    PRESS_PATTERN,
    SEE_PATTERN,
    SLUG_PATTERN,
    At,
    ContentModel,
    no_duplicates,
)
from .goals import Condition
from .limits import MAX_DEFINITION_WORDS, word_count
from .markup import MessageBlock, ProseLink, TocEntry

# Built-in widgets; every other ``::: name`` is a panel, declared in ``panels/<name>.yaml``.
BUILTIN_WIDGETS = ("quiz",)

Slug = Annotated[str, Field(pattern=SLUG_PATTERN, max_length=60)]
ItemId = Annotated[str, Field(pattern=ITEM_PATTERN, max_length=40)]
Text = Annotated[str, Field(min_length=1)]


class PageMeta(ContentModel):
    """The front matter of a page of prose that is not a lesson (the reference page)."""

    slug: Annotated[Slug, Field(description="the page's address, /lessons/<slug>; lower case, digits and hyphens")]
    title: Annotated[Text, Field(description="shown on the page and in the course index")]
    summary: Annotated[
        Text, Field(description="one or two sentences, shown under the title on the page and in the course index")
    ]


class LessonMeta(PageMeta):
    """The front matter of a lesson. Its time estimate is not here: it is computed from the lesson's words,
    panels and questions (:func:`estimate_minutes`)."""

    order: Annotated[int, Field(description="position in the course (1, 2, ...; no two lessons share one)", ge=1)]


class Block(ContentModel):
    """One piece of a rendered lesson: a run of HTML, or the place where a named widget goes."""

    kind: Literal["html", "widget"]
    html: str = ""
    name: str = ""
    # A widget right under a level-2 heading (nothing between them): that heading, so a panel whose
    # title says the same need not show it twice.
    heading: TocEntry | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Block:
        if self.kind == "widget" and not re.match(r"^[a-z][a-z0-9-]*$", self.name):
            raise ValueError(f"bad widget name {self.name!r}")
        if self.kind == "html" and self.name:
            raise ValueError("an html block has no name")
        if self.kind == "widget" and self.html:
            raise ValueError("a widget block has no html")
        return self


class Lesson(ContentModel):
    meta: LessonMeta | PageMeta
    blocks: list[Block]
    toc: list[TocEntry]
    source: Path
    message_blocks: list[MessageBlock] = Field(default_factory=list)
    links: list[ProseLink] = Field(default_factory=list)
    # Words of prose (disclosures included; code blocks and widget lines not), and the time estimate
    # made from them, the panels and the quick check once the quiz is known.
    words: int = 0
    # Words of prose a reader meets at load: outside every closed disclosure.
    visible_words: int = 0
    minutes: int = 1

    @property
    def widgets(self) -> list[str]:
        """The widget names in page order."""
        return [b.name for b in self.blocks if b.kind == "widget"]

    @property
    def panels(self) -> list[str]:
        """The panels the lesson shows (every widget but the quick check), in page order."""
        return [name for name in self.widgets if name not in BUILTIN_WIDGETS]


class Choice(ContentModel):
    id: Annotated[ItemId, Field(description="the choice's id, which the question's 'answer' names")]
    text: Annotated[Text, Field(description="what the learner reads and picks")]


PressId = Annotated[str, Field(pattern=PRESS_PATTERN, max_length=40)]


class Task(ContentModel):
    """Something to do in a playground on the page; the server replays the learner's presses and checks
    ``when`` on the view after each press (and ``earlier`` on the view after some press before it)."""

    panel: Annotated[ItemId, Field(description="the playground panel the learner works in (on the same page)")]
    when: Annotated[Condition, Field(description="what the view after some press must show")]
    earlier: Annotated[
        Condition | None,
        Field(description="what the view after a press before that one must have shown (for 'do this, then that')"),
    ] = None
    solution: Annotated[
        list[PressId],
        Field(
            min_length=1,
            max_length=40,
            description="presses that do the task (button ids, '@legacy' or '@modern'); lesson check replays them",
        ),
    ]


class Question(ContentModel):
    """A multiple-choice question (``choices`` and ``answer``) or a task in a playground (``task`` and
    ``hint``)."""

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["choices", "answer"]}, {"required": ["task", "hint"]}]}
    )

    id: Annotated[ItemId, Field(description="the question's id, unique in its quiz; its anchor on the page is #q-<id>")]
    prompt: Annotated[Text, Field(description="the question as the learner reads it")]
    choices: Annotated[
        Annotated[list[Choice], Field(min_length=2, max_length=5)] | None,
        Field(description="for a multiple-choice question: two to five choices, exactly one of them right"),
    ] = None
    answer: Annotated[str | None, Field(description="for a multiple-choice question: the id of the right choice")] = (
        None
    )
    task: Annotated[
        Task | None,
        Field(
            description="for a task question: what to do in a playground on the same page (its presses are replayed)"
        ),
    ] = None
    hint: Annotated[
        Annotated[str, Field(min_length=1)] | None,
        Field(description="for a task question: shown when a task is checked and not yet done"),
    ] = None
    explanation: Annotated[
        Text, Field(description="the feedback after an answer: why the right choice is right, at most 40 words")
    ]
    see: Annotated[
        Annotated[str, Field(pattern=SEE_PATTERN)] | None,
        Field(
            description="where the lesson explains this ('#section' or '/lessons/<slug>#section'), linked "
            "from the feedback",
        ),
    ] = None

    @field_validator("choices")
    @classmethod
    def _unique_choices(cls, choices: list[Choice] | None) -> list[Choice] | None:
        no_duplicates([c.id for c in choices or []], "choice")
        return choices

    @field_validator("answer")
    @classmethod
    def _answer_is_a_choice(cls, answer: str | None, info: ValidationInfo) -> str | None:
        choices = info.data.get("choices")  # absent when the choices themselves failed
        if answer is not None and choices is not None and answer not in {c.id for c in choices}:
            ids = ", ".join(c.id for c in choices)
            raise ValueError(f"{answer!r} is not one of the choices {ids}")
        return answer

    @model_validator(mode="after")
    def _one_kind(self) -> Question:
        if self.task is not None:
            if self.choices is not None or self.answer is not None:
                raise ValueError("a task question has no choices and no answer: the playground is the answer")
            if self.hint is None:
                raise ValueError("a task question needs a hint, shown when a check finds the task not done yet")
        elif self.choices is None or self.answer is None:
            raise ValueError("a question needs choices and an answer, or a task (with a hint)")
        elif self.hint is not None:
            raise ValueError("only a task question has a hint; a choice question explains itself")
        return self


class Quiz(ContentModel):
    id: Annotated[Slug, Field(description="the slug of the lesson the quiz belongs to (also the file name)")]
    questions: Annotated[
        list[Question], Field(description="the quick check's questions, in the order shown", min_length=1)
    ]

    @field_validator("questions")
    @classmethod
    def _unique_questions(cls, questions: list[Question]) -> list[Question]:
        no_duplicates([q.id for q in questions], "question")
        return questions


class Term(ContentModel):
    """One entry of the glossary: a protocol word, what it means, and the other spellings that count as
    using it (a plural made with -s or -es counts without being listed)."""

    id: Annotated[ItemId, Field(description="the entry's anchor on the glossary page: /glossary#<id>")]
    term: Annotated[Text, Field(description="the word as the glossary shows it")]
    also: Annotated[
        list[Text], Field(description="other spellings that count as a use of this term (e.g. an abbreviation)")
    ] = Field(default_factory=list)
    means: Annotated[Text, Field(description=f"the definition, at most {MAX_DEFINITION_WORDS} words")]
    see: Annotated[list[ItemId], Field(description="related entries, linked after the definition")] = Field(
        default_factory=list
    )

    @field_validator("means")
    @classmethod
    def _short(cls, means: str) -> str:
        if word_count(means) > MAX_DEFINITION_WORDS:
            raise ValueError(f"a definition has at most {MAX_DEFINITION_WORDS} words; this one has {word_count(means)}")
        return means

    @property
    def spellings(self) -> list[str]:
        return [self.term, *self.also]


class Glossary(ContentModel):
    """``content/glossary.yaml``: every protocol term the lessons use, each defined once; a lesson links a
    term to its entry (``[listen stream](/glossary#listen-stream)``) where the course first uses it."""

    terms: Annotated[
        list[Term], Field(description="every entry, each a protocol word the lessons use, defined once", min_length=1)
    ]

    @field_validator("terms")
    @classmethod
    def _distinct(cls, terms: list[Term]) -> list[Term]:
        no_duplicates([t.id for t in terms], "term")
        seen: dict[str, str] = {}
        for n, t in enumerate(terms):
            for spelling in t.spellings:
                key = spelling.casefold()
                if key in seen:
                    raise At((n,), f"{spelling!r} is a spelling of both {seen[key]!r} and {t.id!r}")
                seen[key] = t.id
        ids = {t.id for t in terms}
        for n, t in enumerate(terms):
            for other in t.see:
                if other not in ids:
                    hint = did_you_mean(other, sorted(ids))
                    raise At((n, "see"), f"term {t.id!r} sees {other!r}, which is not in the glossary{hint}")
        return terms

    def term(self, term_id: str) -> Term | None:
        return next((t for t in self.terms if t.id == term_id), None)


class Content(ContentModel):
    lessons: list[Lesson]
    quizzes: dict[str, Quiz]
    glossary: Glossary | None = None
    # The page of long reference material the lessons link to (``reference.md``), and former lessons.
    reference: Lesson | None = None
    moved: list[Moved] = Field(default_factory=list)

    def lesson(self, slug: str) -> Lesson | None:
        """The lesson with this slug, if any."""
        return next((lesson for lesson in self.lessons if lesson.meta.slug == slug), None)

    def former(self, slug: str) -> Moved | None:
        """A former lesson with this slug, if any."""
        return next((m for m in self.moved if m.slug == slug), None)


class MovedPart(ContentModel):
    """A section of a former lesson, and the address it lives at now."""

    section: ItemId
    title: Text
    to: Annotated[str, Field(pattern=MOVED_TO_PATTERN)]


class Moved(ContentModel):
    """A lesson that no longer exists under its slug: where its parts went, so old links and saved progress
    still find them."""

    slug: Slug
    title: Text
    parts: Annotated[list[MovedPart], Field(min_length=1)]


class MovedList(ContentModel):
    moved: list[Moved]


__all__ = [
    "BUILTIN_WIDGETS",
    "Block",
    "Choice",
    "Content",
    "Glossary",
    "Lesson",
    "LessonMeta",
    "Question",
    "Quiz",
    "Term",
]
