"""Load and validate the lesson content under ``content/``: Markdown lessons with YAML front matter and
YAML quizzes, checked into strict pydantic models.

Every problem becomes a :class:`ContentError` that names the file and, where one exists, the line to fix,
so ``lesson check`` and start-up can point an author at the exact spot. Loaders take an optional
``problems`` list: given one, they record every problem and carry on; without it they raise the first
(carrying the rest).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from markdown_it.token import Token
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from lesson.paths import content_dir

from .goals import Condition
from .markup import (
    ERAS,
    MD,
    WIDGET_LINE,
    Link,
    MessageBlock,
    TocEntry,
    check_pairs,
    disclosures,
    message_block,
    plain,
    slugify,
)
from .markup import (
    links as inline_links,
)
from .yamlfile import ContentError, YamlDoc, load_yaml_file, load_yaml_model, parse_yaml, raise_first, validate

# Built-in widgets; every other ``::: name`` is a panel, declared in ``panels/<name>.yaml``.
BUILTIN_WIDGETS = ("quiz",)

_SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"


# --- models ----------------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Slug = Annotated[str, Field(pattern=_SLUG, max_length=60)]
ItemId = Annotated[str, Field(pattern=r"^[a-z0-9-]+$", max_length=40)]
Text = Annotated[str, Field(min_length=1)]


class PageMeta(_Strict):
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


# The time estimate: reading at about 200 words a minute, plus minutes for each panel and question.
WORDS_PER_MINUTE = 200
MINUTES_PER_PANEL = 3
MINUTES_PER_QUESTION = 1
MINUTES_PER_TASK = 2
# One idea a lesson: its prose in view at load (disclosures closed) and its playgrounds stay small.
MAX_VISIBLE_WORDS = 900
MAX_PLAYGROUNDS = 2
# Quiz feedback (an explanation, a task's hint) is read at a glance after an answer: about 40 words.
MAX_FEEDBACK_WORDS = 40
# A choice question cannot be passed by length: the shortest choice is at least this share of the longest.
MIN_CHOICE_SHARE = 0.7
# A glossary definition is read in passing, from a link in the middle of a lesson.
MAX_DEFINITION_WORDS = 45


def word_count(text: str) -> int:
    return len(text.split())


def estimate_minutes(words: int, panels: int, questions: int, tasks: int) -> int:
    """A lesson's time: its prose at WORDS_PER_MINUTE, plus MINUTES_PER_PANEL for each panel, and
    MINUTES_PER_QUESTION for each choice question and MINUTES_PER_TASK for each task of its quick check;
    rounded up, at least one minute."""
    total = (
        words / WORDS_PER_MINUTE
        + MINUTES_PER_PANEL * panels
        + MINUTES_PER_QUESTION * (questions - tasks)
        + MINUTES_PER_TASK * tasks
    )
    return max(1, math.ceil(total))


class Block(_Strict):
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


class Lesson(_Strict):
    meta: LessonMeta | PageMeta
    blocks: list[Block]
    toc: list[TocEntry]
    source: Path
    message_blocks: list[MessageBlock] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
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


class Choice(_Strict):
    id: Annotated[ItemId, Field(description="the choice's id, which the question's 'answer' names")]
    text: Annotated[Text, Field(description="what the learner reads and picks")]


PressId = Annotated[str, Field(pattern=r"^([a-z0-9][a-z0-9-]*|@legacy|@modern)$", max_length=40)]


class Task(_Strict):
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


class Question(_Strict):
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
        Annotated[str, Field(pattern=r"^(#|/lessons/)[A-Za-z0-9/#_-]+$")] | None,
        Field(
            description="where the lesson explains this ('#section' or '/lessons/<slug>#section'), linked "
            "from the feedback",
        ),
    ] = None

    @field_validator("choices")
    @classmethod
    def _unique_choices(cls, choices: list[Choice] | None) -> list[Choice] | None:
        _no_duplicates([c.id for c in choices or []], "choice")
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


class Quiz(_Strict):
    id: Annotated[Slug, Field(description="the slug of the lesson the quiz belongs to (also the file name)")]
    questions: Annotated[
        list[Question], Field(description="the quick check's questions, in the order shown", min_length=1)
    ]

    @field_validator("questions")
    @classmethod
    def _unique_questions(cls, questions: list[Question]) -> list[Question]:
        _no_duplicates([q.id for q in questions], "question")
        return questions


class Term(_Strict):
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


class Glossary(_Strict):
    """``content/glossary.yaml``: every protocol term the lessons use, each defined once; a lesson links a
    term to its entry (``[listen stream](/glossary#listen-stream)``) where the course first uses it."""

    terms: Annotated[
        list[Term], Field(description="every entry, each a protocol word the lessons use, defined once", min_length=1)
    ]

    @field_validator("terms")
    @classmethod
    def _distinct(cls, terms: list[Term]) -> list[Term]:
        _no_duplicates([t.id for t in terms], "term")
        seen: dict[str, str] = {}
        for t in terms:
            for spelling in t.spellings:
                key = spelling.casefold()
                if key in seen:
                    raise ValueError(f"{spelling!r} is a spelling of both {seen[key]!r} and {t.id!r}")
                seen[key] = t.id
        ids = {t.id for t in terms}
        for t in terms:
            for other in t.see:
                if other not in ids:
                    raise ValueError(f"term {t.id!r} sees {other!r}, which is not in the glossary")
        return terms

    def term(self, term_id: str) -> Term | None:
        return next((t for t in self.terms if t.id == term_id), None)


class Content(_Strict):
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

    def quiz(self, quiz_id: str) -> Quiz | None:
        """The quiz with this id (a lesson's slug), if any."""
        return self.quizzes.get(quiz_id)


class MovedPart(_Strict):
    """A section of a former lesson, and the address it lives at now."""

    section: ItemId
    title: Text
    to: Annotated[str, Field(pattern=r"^/(lessons/[a-z0-9-]+|reference)(#[a-z0-9-]+)?$")]


class Moved(_Strict):
    """A lesson that no longer exists under its slug: where its parts went, so old links and saved progress
    still find them."""

    slug: Slug
    title: Text
    parts: Annotated[list[MovedPart], Field(min_length=1)]


class MovedList(_Strict):
    moved: list[Moved]


def _no_duplicates(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise ValueError(f"duplicate {what} id {i!r}")
        seen.add(i)


@dataclass
class _LessonFile:
    lesson: Lesson
    front: YamlDoc
    widget_lines: dict[str, int] = field(default_factory=dict)


def _split_front_matter(path: Path, text: str) -> tuple[str, str, int]:
    """Return (front matter, body, file line of the body's first line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        raise ContentError(path, 1, "a lesson must start with front matter: a '---' line, YAML keys, a '---' line")
    for n, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r\n") == "---":
            return "".join(lines[1:n]), "".join(lines[n + 1 :]), n + 2
    raise ContentError(path, 1, "the front matter is never closed: add a '---' line after its last key")


def lesson_tokens(path: Path) -> tuple[list[Token], int]:
    """A lesson's body as Markdown tokens (its disclosure lines already made HTML), and the file line of
    the body's first line; for checks that read the prose again."""
    _front, body, body_line = _split_front_matter(path, path.read_text(encoding="utf-8"))
    tokens = MD.parse(body)
    disclosures(path, tokens, body_line)
    return tokens, body_line


def _parse_lesson(
    path: Path, problems: list[ContentError], meta_model: type[PageMeta] = LessonMeta
) -> _LessonFile | None:
    """Parse one lesson (or, with ``meta_model=PageMeta``, another page of prose), recording every problem
    found; None when it cannot be used at all."""
    try:
        fm_text, body, body_line = _split_front_matter(path, path.read_text(encoding="utf-8"))
        front = parse_yaml(fm_text, path, first_line=2, top_line=1)
    except ContentError as err:
        problems.extend(err.problems)
        return None
    meta: LessonMeta | None = None
    if isinstance(front.data, dict) and "minutes" in front.data:
        # Typed by hand, a time estimate drifts from the lesson; the page computes it instead.
        problems.append(
            ContentError(
                path,
                front.line(("minutes",)),
                "front matter: 'minutes' is computed from the lesson's words, panels and questions; remove this line",
            )
        )
        front = YamlDoc(
            front.path,
            front.node,
            {k: v for k, v in front.data.items() if k != "minutes"},
            front.first_line,
            front.top_line,
        )
    try:
        meta = validate(front, meta_model, prefix="front matter: ")
    except ContentError as err:
        problems.extend(err.problems)

    tokens = MD.parse(body)
    problems.extend(disclosures(path, tokens, body_line)[0])
    messages: list[MessageBlock] = []
    widgets: list[tuple[int, int, str]] = []  # (token index of paragraph_open, file line, name)
    toc: list[TocEntry] = []
    links: list[Link] = []
    used_ids: set[str] = set()
    words = visible = 0
    folded = False  # inside a disclosure, closed at load

    for i, token in enumerate(tokens):
        line = body_line + token.map[0] if token.map else body_line
        if token.type == "html_block" and token.content.startswith("<details"):
            folded = True
        elif token.type == "html_block" and token.content.startswith("</details>"):
            folded = False
        if token.type == "inline" and not WIDGET_LINE.match(token.content):
            n = sum(word_count(c.content) for c in token.children or [] if c.type in ("text", "code_inline"))
            words += n
            visible += 0 if folded else n
        if token.type == "fence":
            try:
                message = message_block(path, token, line)
            except ContentError as err:
                problems.append(err)
                continue
            if message is not None:
                messages.append(message)
        elif token.type == "inline":
            links += inline_links(token, line)
        elif token.type == "heading_open" and token.tag == "h2":
            title = plain(tokens[i + 1])
            anchor = base = slugify(title)
            n = 2
            while anchor in used_ids:
                anchor, n = f"{base}-{n}", n + 1
            used_ids.add(anchor)
            token.attrSet("id", anchor)
            toc.append(TocEntry(id=anchor, title=title))
        elif token.type in ("th_open", "td_open") and (style := token.attrGet("style")):
            # Column alignment arrives as an inline style; the page's CSS handles a class instead.
            token.attrs.pop("style")
            token.attrSet("class", "align-" + str(style).removeprefix("text-align:"))
        elif token.type == "paragraph_open":
            content = tokens[i + 1].content
            if not any(part.startswith(":::") and not part.startswith("::::") for part in content.split("\n")):
                continue
            match = WIDGET_LINE.match(content)
            if match is None or token.level != 0:
                problems.append(
                    ContentError(
                        path,
                        line,
                        "a widget line must read '::: name', alone at the top level with blank lines around it",
                    )
                )
                continue
            name = match.group(1)
            if any(w[2] == name for w in widgets):
                problems.append(ContentError(path, line, f"widget {name!r} appears twice in this lesson"))
                continue
            widgets.append((i, line, name))

    problems.extend(check_pairs(path, tokens, body_line))
    if meta is None:
        return None

    blocks: list[Block] = []
    start = 0
    for i, _line, name in widgets:
        if html := MD.renderer.render(tokens[start:i], MD.options, {}):
            blocks.append(Block(kind="html", html=html))
        above = tokens[i - 3] if i >= 3 else None
        heading = None
        if above is not None and above.type == "heading_open" and above.tag == "h2":
            heading = TocEntry(id=str(above.attrGet("id")), title=plain(tokens[i - 2]))
        blocks.append(Block(kind="widget", name=name, heading=heading))
        start = i + 3  # paragraph_open, inline, paragraph_close
    if html := MD.renderer.render(tokens[start:], MD.options, {}):
        blocks.append(Block(kind="html", html=html))

    lesson = Lesson(
        meta=meta,
        blocks=blocks,
        toc=toc,
        source=path,
        message_blocks=messages,
        links=links,
        words=words,
        visible_words=visible,
    )
    return _LessonFile(lesson, front, {name: line for _i, line, name in widgets})


# --- the whole tree --------------------------------------------------------------------------------


def panel_ids(root: Path) -> list[str]:
    """The ids of the panels a lesson may show: the names of ``panels/*.yaml``."""
    return sorted(p.stem for p in (Path(root) / "panels").glob("*.yaml"))


def load_content(root: Path, problems: list[ContentError] | None = None) -> Content:
    """Load and cross-check every lesson (``lessons/*.md``) and quiz (``quizzes/*.yaml``) under ``root``.

    With a ``problems`` list, every problem is recorded there and whatever loaded cleanly comes back;
    without one, the first problem is raised (carrying the rest).
    """
    sink: list[ContentError] = [] if problems is None else problems
    first = len(sink)
    content = _load_content(Path(root), sink)
    if problems is None:
        raise_first(sink[first:])
    return content


def _load_content(root: Path, problems: list[ContentError]) -> Content:
    lesson_dir = root / "lessons"
    if not lesson_dir.is_dir():
        problems.append(ContentError(lesson_dir, None, "the lessons folder does not exist"))
        return Content(lessons=[], quizzes={})
    parsed = [_parse_lesson(p, problems) for p in sorted(lesson_dir.glob("*.md"))]
    files = [f for f in parsed if f is not None]
    if not parsed:
        problems.append(ContentError(lesson_dir, None, "no lessons found (*.md)"))

    widgets = (*BUILTIN_WIDGETS, *panel_ids(root))
    slugs: dict[str, Path] = {}
    orders: dict[int, Path] = {}
    for f in files:
        meta, path = f.lesson.meta, f.lesson.source
        if meta.slug in slugs:
            line = f.front.line(("slug",))
            problems.append(ContentError(path, line, f"slug {meta.slug!r} is also used by {slugs[meta.slug]}"))
        if meta.order in orders:
            line = f.front.line(("order",))
            problems.append(ContentError(path, line, f"order {meta.order} is also used by {orders[meta.order]}"))
        slugs.setdefault(meta.slug, path)
        orders.setdefault(meta.order, path)
        for name, line in f.widget_lines.items():
            if name not in widgets:
                problems.append(
                    ContentError(
                        path,
                        line,
                        f"unknown widget {name!r}: there is no panels/{name}.yaml (known: {', '.join(widgets)})",
                    )
                )

    quizzes: dict[str, Quiz] = {}
    for path in sorted((root / "quizzes").glob("*.yaml")):
        try:
            quiz, doc = load_yaml_file(path, Quiz)
        except ContentError as err:
            problems.extend(err.problems)
            continue
        if quiz.id != path.stem:
            problems.append(
                ContentError(path, doc.line(("id",)), f"quiz id {quiz.id!r} must match the file name {path.stem!r}")
            )
            continue
        shown_by = next((f for f in files if f.lesson.meta.slug == quiz.id), None)
        # A lesson that failed to load cannot vouch for its quiz; that problem is reported already.
        if len(files) == len(parsed) and (shown_by is None or "quiz" not in shown_by.widget_lines):
            problems.append(
                ContentError(path, doc.line(("id",)), f"no lesson with slug {quiz.id!r} shows this quiz ('::: quiz')")
            )
        # Question ids are unique across the course: progress saved on a lesson that was split is loaded, in
        # each lesson it became, by the ids of that lesson's questions.
        for n, q in enumerate(quiz.questions):
            other = next((k for k, v in quizzes.items() if any(x.id == q.id for x in v.questions)), None)
            if other is not None:
                line = doc.line(("questions", n, "id"))
                problems.append(ContentError(path, line, f"question id {q.id!r} is also used in quizzes/{other}.yaml"))
        quizzes[quiz.id] = quiz

    for f in files:
        slug = f.lesson.meta.slug
        if "quiz" in f.widget_lines and slug not in quizzes and not (root / "quizzes" / f"{slug}.yaml").exists():
            problems.append(
                ContentError(
                    f.lesson.source,
                    f.widget_lines["quiz"],
                    f"this lesson shows a quiz, but quizzes/{slug}.yaml is missing",
                )
            )

    glossary: Glossary | None = None
    if (root / GLOSSARY).is_file():
        try:
            glossary = load_yaml_file(root / GLOSSARY, Glossary)[0]
        except ContentError as err:
            problems.extend(err.problems)

    reference: Lesson | None = None
    if (root / REFERENCE).is_file():
        page = _parse_lesson(root / REFERENCE, problems, PageMeta)
        if page is not None:
            reference = page.lesson
            for name, line in page.widget_lines.items():
                problems.append(ContentError(root / REFERENCE, line, f"the reference page shows no widgets ({name!r})"))

    moved: list[Moved] = []
    if (root / MOVED).is_file():
        try:
            moved = load_yaml_file(root / MOVED, MovedList)[0].moved
        except ContentError as err:
            problems.extend(err.problems)

    lessons = sorted((f.lesson for f in files), key=lambda lesson: lesson.meta.order)
    lessons = [lesson.model_copy(update={"minutes": lesson_minutes(lesson, quizzes)}) for lesson in lessons]
    return Content(lessons=lessons, quizzes=quizzes, glossary=glossary, reference=reference, moved=moved)


GLOSSARY = "glossary.yaml"
REFERENCE = "reference.md"
MOVED = "moved.yaml"


def lesson_minutes(lesson: Lesson, quizzes: dict[str, Quiz]) -> int:
    """The lesson's time estimate (see :func:`estimate_minutes`)."""
    quiz = quizzes.get(lesson.meta.slug) if "quiz" in lesson.widgets else None
    questions = quiz.questions if quiz else []
    tasks = sum(1 for q in questions if q.task is not None)
    return estimate_minutes(lesson.words, len(lesson.panels), len(questions), tasks)


def messages(lesson: Lesson) -> list[tuple[str, str, object, int]]:
    """Every wire message the lesson shows, as (era, def name, parsed JSON, file line of its block)."""
    return [(m.era, m.def_name, m.data, m.line) for m in lesson.message_blocks]


def default_root() -> Path:
    """The content folder: ``$LESSON_CONTENT_ROOT`` (or ``$LESSON_CONTENT``) if set, else the checkout's (or
    installed wheel's) ``content/``."""
    env = os.environ.get("LESSON_CONTENT_ROOT") or os.environ.get("LESSON_CONTENT")
    if env:
        return Path(env).expanduser()
    return content_dir()


__all__ = [
    "BUILTIN_WIDGETS",
    "Block",
    "Choice",
    "Content",
    "ContentError",
    "GLOSSARY",
    "Glossary",
    "ERAS",
    "Lesson",
    "LessonMeta",
    "Link",
    "MessageBlock",
    "Question",
    "Quiz",
    "Term",
    "TocEntry",
    "default_root",
    "estimate_minutes",
    "load_content",
    "load_yaml_model",
    "messages",
    "panel_ids",
    "slugify",
]
