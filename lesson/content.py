"""Load and validate the lesson content under ``content/``: Markdown lessons with YAML front matter and
YAML quizzes, checked into strict pydantic models.

Every problem becomes a :class:`ContentError` that names the file and, where one exists, the line to fix,
so ``lesson check`` and start-up can point an author at the exact spot.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .paths import content_dir

T = TypeVar("T")

WIDGETS = ("churn", "outage", "restarts", "gateway", "handles", "guide", "quiz")
ERAS = {"legacy": "Legacy (2025-11-25)", "modern": "Modern (2026-07-28)"}

_SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"
_WIDGET_LINE = re.compile(r"^::: ([a-z][a-z0-9-]*)$")
_DEF_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")


class ContentError(Exception):
    """A problem in a content file, with the file and (when known) the 1-based line to fix."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


# --- models ----------------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Slug = Annotated[str, Field(pattern=_SLUG, max_length=60)]
ItemId = Annotated[str, Field(pattern=r"^[a-z0-9-]+$", max_length=40)]
Text = Annotated[str, Field(min_length=1)]


class LessonMeta(_Strict):
    """The front matter of a lesson."""

    slug: Slug
    title: Text
    order: Annotated[int, Field(ge=1)]
    summary: Text
    minutes: Annotated[int, Field(ge=1, le=120)]


class Block(_Strict):
    """One piece of a rendered lesson: a run of HTML, or the place where a named widget goes."""

    kind: Literal["html", "widget"]
    html: str = ""
    name: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> Block:
        if self.kind == "widget" and self.name not in WIDGETS:
            raise ValueError(f"unknown widget {self.name!r}")
        if self.kind == "html" and self.name:
            raise ValueError("an html block has no name")
        if self.kind == "widget" and self.html:
            raise ValueError("a widget block has no html")
        return self


class TocEntry(_Strict):
    """A level-2 heading: its anchor id and its text."""

    id: str
    title: str


class MessageBlock(_Strict):
    """A wire message shown in a ``json legacy|modern DefName`` code block."""

    era: Literal["legacy", "modern"]
    def_name: str
    data: Any
    line: int


class Lesson(_Strict):
    meta: LessonMeta
    blocks: list[Block]
    toc: list[TocEntry]
    source: Path
    message_blocks: list[MessageBlock] = Field(default_factory=list)

    @property
    def widgets(self) -> list[str]:
        """The widget names in page order."""
        return [b.name for b in self.blocks if b.kind == "widget"]


class Choice(_Strict):
    id: ItemId
    text: Text


class Question(_Strict):
    id: ItemId
    prompt: Text
    choices: Annotated[list[Choice], Field(min_length=2, max_length=5)]
    answer: str
    explanation: Text

    @field_validator("choices")
    @classmethod
    def _unique_choices(cls, choices: list[Choice]) -> list[Choice]:
        _no_duplicates([c.id for c in choices], "choice")
        return choices

    @field_validator("answer")
    @classmethod
    def _answer_is_a_choice(cls, answer: str, info: ValidationInfo) -> str:
        choices = info.data.get("choices")  # absent when the choices themselves failed
        if choices is not None and answer not in {c.id for c in choices}:
            ids = ", ".join(c.id for c in choices)
            raise ValueError(f"{answer!r} is not one of the choices {ids}")
        return answer


class Quiz(_Strict):
    id: Slug
    questions: Annotated[list[Question], Field(min_length=1)]

    @field_validator("questions")
    @classmethod
    def _unique_questions(cls, questions: list[Question]) -> list[Question]:
        _no_duplicates([q.id for q in questions], "question")
        return questions


class Content(_Strict):
    lessons: list[Lesson]
    quizzes: dict[str, Quiz]

    def lesson(self, slug: str) -> Lesson | None:
        """The lesson with this slug, if any."""
        return next((lesson for lesson in self.lessons if lesson.meta.slug == slug), None)

    def quiz(self, quiz_id: str) -> Quiz | None:
        """The quiz with this id (a lesson's slug), if any."""
        return self.quizzes.get(quiz_id)


def _no_duplicates(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise ValueError(f"duplicate {what} id {i!r}")
        seen.add(i)


# --- YAML with line numbers ------------------------------------------------------------------------


@dataclass
class _Yaml:
    """A YAML document parsed twice over: the node tree (for lines) and the plain data."""

    path: Path
    node: Node | None
    data: Any
    first_line: int  # file line of the text's first line
    top_line: int | None  # where to point when the whole document is at fault

    def line(self, loc: tuple[int | str, ...]) -> int | None:
        """The file line of the deepest key (or list item) along ``loc`` that exists."""
        node = self.node
        if node is None:
            return self.top_line
        line = self.top_line if self.top_line is not None else node.start_mark.line + self.first_line
        for part in loc:
            if isinstance(node, MappingNode):
                hit = next(
                    (kv for kv in node.value if isinstance(kv[0], ScalarNode) and kv[0].value == str(part)), None
                )
                if hit is None:
                    break
                line = hit[0].start_mark.line + self.first_line
                node = hit[1]
            elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                node = node.value[part]
                line = node.start_mark.line + self.first_line
            else:
                break
        return line


def _parse_yaml(text: str, path: Path, first_line: int = 1, top_line: int | None = None) -> _Yaml:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_duplicate_keys(node, path, first_line)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        context = f" ({exc.context})" if exc.context else ""
        line = mark.line + first_line if mark is not None else None
        raise ContentError(path, line, f"YAML syntax error: {problem}{context}") from None
    except yaml.YAMLError as exc:
        raise ContentError(path, None, f"YAML syntax error: {exc}") from None
    finally:
        loader.dispose()
    return _Yaml(path, node, data, first_line, top_line)


def _check_duplicate_keys(node: Node, path: Path, first_line: int) -> None:
    # yaml.safe_load keeps the last of two equal keys without a word; an author almost never means that.
    if isinstance(node, MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, ScalarNode):
                if key.value in seen:
                    raise ContentError(path, key.start_mark.line + first_line, f"key {key.value!r} appears twice")
                seen.add(key.value)
            _check_duplicate_keys(value, path, first_line)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            _check_duplicate_keys(item, path, first_line)


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _validate(doc: _Yaml, model: type[T], prefix: str = "") -> T:
    try:
        # Duck-typed on purpose: any class with a pydantic-style model_validate works (e.g. a union adapter).
        return model.model_validate(doc.data)  # type: ignore[attr-defined,no-any-return]
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        err = errors[0]
        loc = tuple(err["loc"])
        kind = err["type"]
        if kind == "missing" and loc:
            parent = _where(loc[:-1])
            message = f"{parent + ': ' if parent else ''}missing required key {loc[-1]!r}"
            line = doc.line(loc[:-1])
        elif kind == "extra_forbidden" and loc:
            parent = _where(loc[:-1])
            message = f"{parent + ': ' if parent else ''}unknown key {loc[-1]!r}"
            line = doc.line(loc)
        else:
            text = re.sub(r"^(Value error|Assertion failed), ", "", err["msg"])
            value = err.get("input")
            if kind not in ("value_error", "assertion_error") and isinstance(value, str | int | float | bool):
                text += f" (got {value!r})"
            message = f"{_where(loc) + ': ' if loc else ''}{text}"
            line = doc.line(loc)
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
        raise ContentError(doc.path, line, prefix + message) from None
    except ValueError as exc:
        raise ContentError(doc.path, doc.top_line, prefix + str(exc)) from None


def load_yaml_model(path: Path, model: type[T]) -> T:
    """Parse the YAML file at ``path`` and validate it into ``model``.

    ``model`` is a pydantic model, or any class whose ``model_validate`` raises pydantic's
    ``ValidationError``. Syntax errors and validation errors become a :class:`ContentError` carrying the
    line of the offending key.
    """
    return _load_yaml_file(Path(path), model)[0]


def _load_yaml_file(path: Path, model: type[T]) -> tuple[T, _Yaml]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ContentError(path, None, f"cannot read the file: {exc.strerror or exc}") from None
    doc = _parse_yaml(text, path)
    return _validate(doc, model), doc


# --- Markdown --------------------------------------------------------------------------------------


def _render_fence(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    era = token.meta.get("era")
    if era is None:
        return str(self.fence(tokens, idx, options, env))
    body = escapeHtml(json.dumps(token.meta["data"], indent=2, ensure_ascii=False))
    figure = (
        f'<figure class="message message--{era}">'
        f'<figcaption><span class="message__era">{ERAS[era]}</span> '
        f'<code class="message__def">{escapeHtml(token.meta["def_name"])}</code></figcaption>'
        f'<pre><code class="language-json">{body}</code></pre></figure>\n'
    )
    if era == "legacy" and _era_of(tokens, idx + 1) == "modern":
        return '<div class="message-pair">\n' + figure
    if era == "modern" and _era_of(tokens, idx - 1) == "legacy":
        return figure + "</div>\n"
    return figure


def _era_of(tokens: list[Token], idx: int) -> str | None:
    if 0 <= idx < len(tokens) and tokens[idx].type == "fence":
        return tokens[idx].meta.get("era")
    return None


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.add_render_rule("fence", _render_fence)
    return md


_MD = _markdown()


def slugify(title: str) -> str:
    """A heading's anchor id: lower case, runs of other characters become one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def _plain(inline: Token) -> str:
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline")).strip()


@dataclass
class _LessonFile:
    lesson: Lesson
    front: _Yaml
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


def _parse_lesson(path: Path) -> _LessonFile:
    text = path.read_text(encoding="utf-8")
    fm_text, body, body_line = _split_front_matter(path, text)
    front = _parse_yaml(fm_text, path, first_line=2, top_line=1)
    meta = _validate(front, LessonMeta, prefix="front matter: ")

    tokens = _MD.parse(body)
    messages: list[MessageBlock] = []
    widgets: list[tuple[int, int, str]] = []  # (token index of paragraph_open, file line, name)
    toc: list[TocEntry] = []
    used_ids: set[str] = set()

    for i, token in enumerate(tokens):
        line = body_line + token.map[0] if token.map else None
        if token.type == "fence":
            message = _message_block(path, token, line)
            if message is not None:
                messages.append(message)
        elif token.type == "heading_open" and token.tag == "h2":
            title = _plain(tokens[i + 1])
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
            if not any(part.startswith(":::") for part in content.split("\n")):
                continue
            match = _WIDGET_LINE.match(content)
            if match is None or token.level != 0:
                raise ContentError(
                    path, line, "a widget line must read '::: name', alone at the top level with blank lines around it"
                )
            name = match.group(1)
            if name not in WIDGETS:
                raise ContentError(path, line, f"unknown widget {name!r}; known widgets: {', '.join(WIDGETS)}")
            if any(w[2] == name for w in widgets):
                raise ContentError(path, line, f"widget {name!r} appears twice in this lesson")
            assert line is not None
            widgets.append((i, line, name))

    _check_pairs(path, tokens, body_line)

    blocks: list[Block] = []
    start = 0
    for i, _line, name in widgets:
        if html := _MD.renderer.render(tokens[start:i], _MD.options, {}):
            blocks.append(Block(kind="html", html=html))
        blocks.append(Block(kind="widget", name=name))
        start = i + 3  # paragraph_open, inline, paragraph_close
    if html := _MD.renderer.render(tokens[start:], _MD.options, {}):
        blocks.append(Block(kind="html", html=html))

    lesson = Lesson(meta=meta, blocks=blocks, toc=toc, source=path, message_blocks=messages)
    return _LessonFile(lesson, front, {name: line for _i, line, name in widgets})


def _message_block(path: Path, token: Token, line: int | None) -> MessageBlock | None:
    words = token.info.split()
    if len(words) < 2 or words[0] != "json":
        return None
    if len(words) != 3 or words[1] not in ERAS or not _DEF_NAME.match(words[2]):
        raise ContentError(
            path,
            line,
            f"message block info {token.info.strip()!r} must read 'json legacy DefName' or 'json modern DefName'",
        )
    era, def_name = words[1], words[2]
    try:
        data = json.loads(token.content)
    except json.JSONDecodeError as exc:
        raise ContentError(
            path,
            line,
            f"the 'json {era} {def_name}' block is not valid JSON: {exc.msg} (line {exc.lineno} of the block, "
            f"column {exc.colno})",
        ) from None
    token.meta = {"era": era, "def_name": def_name, "data": data}
    assert line is not None
    return MessageBlock(era=era, def_name=def_name, data=data, line=line)


def _check_pairs(path: Path, tokens: list[Token], body_line: int) -> None:
    # Every message is shown in both eras, legacy first, so the page can set them side by side.
    for i, token in enumerate(tokens):
        era = _era_of(tokens, i)
        line = body_line + token.map[0] if token.map else None
        if era == "legacy" and _era_of(tokens, i + 1) != "modern":
            raise ContentError(path, line, "a legacy message block must be followed at once by its modern counterpart")
        if era == "modern" and _era_of(tokens, i - 1) != "legacy":
            raise ContentError(path, line, "a modern message block must come straight after its legacy counterpart")


# --- the whole tree --------------------------------------------------------------------------------


def load_content(root: Path) -> Content:
    """Load and cross-check every lesson (``lessons/*.md``) and quiz (``quizzes/*.yaml``) under ``root``."""
    root = Path(root)
    lesson_dir = root / "lessons"
    if not lesson_dir.is_dir():
        raise ContentError(lesson_dir, None, "the lessons folder does not exist")
    files = [_parse_lesson(p) for p in sorted(lesson_dir.glob("*.md"))]
    if not files:
        raise ContentError(lesson_dir, None, "no lessons found (*.md)")

    slugs: dict[str, Path] = {}
    orders: dict[int, Path] = {}
    for f in files:
        meta, path = f.lesson.meta, f.lesson.source
        if meta.slug in slugs:
            raise ContentError(path, f.front.line(("slug",)), f"slug {meta.slug!r} is also used by {slugs[meta.slug]}")
        if meta.order in orders:
            raise ContentError(
                path, f.front.line(("order",)), f"order {meta.order} is also used by {orders[meta.order]}"
            )
        slugs[meta.slug] = path
        orders[meta.order] = path

    quizzes: dict[str, Quiz] = {}
    for path in sorted((root / "quizzes").glob("*.yaml")):
        quiz, doc = _load_yaml_file(path, Quiz)
        if quiz.id != path.stem:
            raise ContentError(path, doc.line(("id",)), f"quiz id {quiz.id!r} must match the file name {path.stem!r}")
        shown_by = next((f for f in files if f.lesson.meta.slug == quiz.id), None)
        if shown_by is None or "quiz" not in shown_by.widget_lines:
            raise ContentError(path, doc.line(("id",)), f"no lesson with slug {quiz.id!r} shows this quiz ('::: quiz')")
        quizzes[quiz.id] = quiz

    for f in files:
        slug = f.lesson.meta.slug
        if "quiz" in f.widget_lines and slug not in quizzes:
            raise ContentError(
                f.lesson.source, f.widget_lines["quiz"], f"this lesson shows a quiz, but quizzes/{slug}.yaml is missing"
            )

    lessons = sorted((f.lesson for f in files), key=lambda lesson: lesson.meta.order)
    return Content(lessons=lessons, quizzes=quizzes)


def messages(lesson: Lesson) -> list[tuple[str, str, object, int]]:
    """Every wire message the lesson shows, as (era, def name, parsed JSON, file line of its block)."""
    return [(m.era, m.def_name, m.data, m.line) for m in lesson.message_blocks]


def default_root() -> Path:
    """The content folder: ``$LESSON_CONTENT`` if set, else the checkout's (or installed wheel's) ``content/``."""
    env = os.environ.get("LESSON_CONTENT")
    if env:
        return Path(env).expanduser()
    return content_dir()


__all__ = [
    "Block",
    "Choice",
    "Content",
    "ContentError",
    "ERAS",
    "Lesson",
    "LessonMeta",
    "MessageBlock",
    "Question",
    "Quiz",
    "TocEntry",
    "WIDGETS",
    "default_root",
    "load_content",
    "load_yaml_model",
    "messages",
    "slugify",
]
