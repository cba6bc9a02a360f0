"""Load and validate the lesson content under ``content/``: Markdown lessons with YAML front matter and
YAML quizzes, checked into the strict pydantic models of :mod:`.models`.

Every problem becomes a :class:`ContentError` that names the file and, where one exists, the line to fix,
so ``lesson check`` and start-up can point an author at the exact spot. Loaders take an optional
``problems`` list: given one, they record every problem and carry on; without it they raise the first
(carrying the rest).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it.token import Token

from lesson.i18n import DEFAULT
from lesson.paths import content_dir
from lesson.sim.spelling import did_you_mean

from .limits import estimate_minutes, word_count
from .markup import (
    MD,
    WIDGET_LINE,
    MessageBlock,
    ProseLink,
    TocEntry,
    check_pairs,
    disclosures,
    inline_text,
    message_block,
)
from .markup import (
    links as inline_links,
)
from .models import BUILTIN_WIDGETS, Block, Content, Glossary, Lesson, LessonMeta, Moved, MovedList, PageMeta, Quiz
from .panels import AnyPanel, StepperPanel, check_panel, load_panel
from .scenarios import load_scenario
from .yamlfile import (
    ContentError,
    YamlDoc,
    load_yaml_file,
    load_yaml_model,
    parse_yaml,
    raise_first,
    read_text,
    validate,
)


@dataclass
class _LessonFile:
    lesson: Lesson
    front: YamlDoc
    widget_lines: dict[str, int] = field(default_factory=dict)


def split_front_matter(path: Path, text: str) -> tuple[str, str, int]:
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
    _front, body, body_line = split_front_matter(path, read_text(path))
    tokens = MD.parse(body)
    disclosures(path, tokens, body_line)
    return tokens, body_line


def _parse_lesson(
    path: Path, problems: list[ContentError], meta_model: type[PageMeta] = LessonMeta, locale: str = DEFAULT
) -> _LessonFile | None:
    """Parse one lesson (or, with ``meta_model=PageMeta``, another page of prose), recording every problem
    found; None when it cannot be used at all. ``locale`` is the language it is written in (the era
    labels of its wire-message figures are the catalogue's in it)."""
    try:
        fm_text, body, body_line = split_front_matter(path, read_text(path))
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
    links: list[ProseLink] = []
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
            toc.append(TocEntry(id=str(token.attrGet("id")), title=inline_text(tokens[i + 1])))  # the id: markup.MD
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
        if html := MD.renderer.render(tokens[start:i], MD.options, {"locale": locale}):
            blocks.append(Block(kind="html", html=html))
        above = tokens[i - 3] if i >= 3 else None
        heading = None
        if above is not None and above.type == "heading_open" and above.tag == "h2":
            heading = TocEntry(id=str(above.attrGet("id")), title=inline_text(tokens[i - 2]))
        blocks.append(Block(kind="widget", name=name, heading=heading))
        start = i + 3  # paragraph_open, inline, paragraph_close
    if html := MD.renderer.render(tokens[start:], MD.options, {"locale": locale}):
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


def load_panels(root: Path, problems: list[ContentError] | None = None) -> dict[str, AnyPanel]:
    """Load, resolve and replay every ``panels/*.yaml`` under the content root.

    With a ``problems`` list every problem is recorded and the panels that loaded cleanly come back;
    without one the first problem is raised (carrying the rest).
    """
    sink: list[ContentError] = [] if problems is None else problems
    first = len(sink)
    panels: dict[str, AnyPanel] = {}
    for path in sorted((Path(root) / "panels").glob("*.yaml")):
        try:
            panel, doc = load_panel(path)
            if panel.id != path.stem:
                raise ContentError(
                    path, doc.line(("id",)), f"panel id {panel.id!r} must match the file name {path.stem!r}"
                )
            if isinstance(panel, StepperPanel) and panel.scenario:
                scenario_path = Path(root) / "scenarios" / f"{panel.scenario}.yaml"
                if not scenario_path.is_file():
                    hint = did_you_mean(panel.scenario, sorted(p.stem for p in scenario_path.parent.glob("*.yaml")))
                    why = f"there is no scenario file scenarios/{panel.scenario}.yaml{hint}"
                    raise ContentError(path, doc.line(("scenario",)), why)
                scenario, start, steps = load_scenario(scenario_path)
                panel = panel.model_copy(update={"start": start, "steps": steps})
        except ContentError as err:
            # A stepper's scenario may press another panel's buttons: that panel's problems are already listed.
            seen = {str(p) for p in sink}
            sink.extend(p for p in err.problems if str(p) not in seen)
            continue
        found = check_panel(path, doc, panel)
        sink.extend(found)
        if not found:
            panels[panel.id] = panel
    if problems is None:
        raise_first(sink[first:])
    return panels


__all__ = [
    "ContentError",
    "GLOSSARY",
    "ProseLink",
    "MessageBlock",
    "TocEntry",
    "default_root",
    "load_content",
    "load_panels",
    "load_yaml_model",
    "messages",
    "panel_ids",
    "split_front_matter",
]
