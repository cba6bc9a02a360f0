"""``lesson check``'s rules for the lesson pages themselves: wire examples against their era's schema,
subscription ids, the size of a lesson, links and the anchors they land on, the quick check placed last,
and glossary terms linked where the course first uses them.
"""

from __future__ import annotations

import re
from pathlib import Path

from lesson.sim.model import VERSION
from lesson.sim.spelling import did_you_mean
from lesson.sim.wire import SUB_KEY

from .course import GLOSSARY, MOVED, REFERENCE, lesson_tokens, split_front_matter
from .limits import MAX_PANELS, MAX_VISIBLE_WORDS, word_count
from .markup import GLOSSARY_LINK, WIDGET_LINE, term_marks, term_pattern, term_uses
from .models import BUILTIN_WIDGETS, Content, Glossary, Lesson, Quiz
from .panels import AnyPanel
from .wire_schema import message_errors
from .yamlfile import ContentError, parse_yaml, read_text


def check_messages(lesson: Lesson) -> list[ContentError]:
    """Every ``json legacy|modern DefName`` block against its era's official schema."""
    out = []
    for m in lesson.message_blocks:
        for err in message_errors(m.data, m.era, m.def_name)[:5]:
            out.append(
                ContentError(
                    lesson.source,
                    m.line,
                    f"the 'json {m.era} {m.def_name}' block does not fit the {VERSION[m.era]} schema: {err}",
                )
            )
    return out


def check_size(lesson: Lesson) -> list[ContentError]:
    """One idea a lesson: at most MAX_VISIBLE_WORDS of prose in view at load (disclosures closed), reported
    at the line where the budget runs out, and at most MAX_PANELS panels, reported at the one too many."""
    out = []
    tokens, body_line = lesson_tokens(lesson.source)
    visible, folded, over, panels = 0, False, False, 0
    for token in tokens:
        line = body_line + token.map[0] if token.map else body_line
        if token.type == "html_block":
            folded = token.content.startswith("<details") or (folded and not token.content.startswith("</details>"))
        if token.type != "inline":
            continue
        if widget := WIDGET_LINE.match(token.content):
            if widget.group(1) not in BUILTIN_WIDGETS:
                panels += 1
                if panels == MAX_PANELS + 1:
                    out.append(
                        ContentError(
                            lesson.source,
                            line,
                            f"a lesson shows at most {MAX_PANELS} interactive panels (playgrounds, steppers, labs): "
                            "this is one too many; give its idea a lesson of its own",
                        )
                    )
            continue
        if folded:
            continue
        visible += sum(word_count(c.content) for c in token.children or [] if c.type in ("text", "code_inline"))
        if visible > MAX_VISIBLE_WORDS and not over:
            over = True
            out.append(
                ContentError(
                    lesson.source,
                    line,
                    f"over {MAX_VISIBLE_WORDS} words of prose are in view at load by here ({lesson.visible_words} "
                    "in all): move reference material to the reference page or into a disclosure, or split the lesson",
                )
            )
    return out


def check_subscription_ids(lesson: Lesson) -> list[ContentError]:
    """When a lesson shows a modern listen request, the notices it shows name that request's id."""
    listen = {
        m.data.get("id")
        for m in lesson.message_blocks
        if m.era == "modern" and m.def_name == "SubscriptionsListenRequest" and isinstance(m.data, dict)
    }
    out = []
    for m in lesson.message_blocks:
        params = m.data.get("params") if isinstance(m.data, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if listen and m.era == "modern" and isinstance(meta, dict) and SUB_KEY in meta and meta[SUB_KEY] not in listen:
            shown = ", ".join(repr(i) for i in sorted(listen, key=str))
            out.append(
                ContentError(
                    lesson.source,
                    m.line,
                    f"the {m.def_name} names subscription {meta[SUB_KEY]!r}, but the listen request this lesson "
                    f"shows has id {shown}",
                )
            )
    return out


def anchors(content: Content, lesson: Lesson) -> set[str]:
    """The ids a link may point at on a lesson's page: its sections and its quiz questions."""
    quiz = content.quizzes.get(lesson.meta.slug)
    return {t.id for t in lesson.toc} | {f"q-{q.id}" for q in (quiz.questions if quiz else [])}


_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
LESSON_LINK = re.compile(r"^/lessons/([^/#?]+)/?(?:#(.*))?$")


def unread_slugs(unread: frozenset[Path]) -> set[str | None]:
    """The slugs of the lessons among ``unread`` (files that did not load), read from their front matter
    as far as it goes; None among them stands for a lesson whose slug cannot be read at all."""
    out: set[str | None] = set()
    for path in unread:
        if path.parent.name != "lessons" or path.suffix != ".md":
            continue
        try:
            front = parse_yaml(split_front_matter(path, read_text(path))[0], path).data
        except ContentError:
            front = None
        slug = front.get("slug") if isinstance(front, dict) else None
        out.add(slug if isinstance(slug, str) else None)
    return out


def _question_ids(path: Path) -> set[str] | None:
    """The question ids a quiz file that did not validate still names, or None when it is no YAML."""
    try:
        data = parse_yaml(read_text(path), path).data
    except ContentError:
        return None
    questions = data.get("questions") if isinstance(data, dict) else None
    return (
        {q["id"] for q in questions if isinstance(q, dict) and isinstance(q.get("id"), str)}
        if isinstance(questions, list)
        else None
    )


def page_of(
    content: Content, root: Path, page: str, lessons_unread: set[str | None]
) -> tuple[Lesson | None, str | None]:
    """The page an internal address names (``/reference`` or ``/lessons/<slug>``): the page, or None and
    why the address is broken, or None and None for a page that did not load (reported at its own lines)."""
    if page == "/reference":
        if content.reference is not None:
            return content.reference, None
        return None, None if (root / REFERENCE).is_file() else f"there is no {REFERENCE}"
    slug = page.removeprefix("/lessons/")
    if (found := content.lesson(slug)) is not None:
        return found, None
    return None, None if slug in lessons_unread or None in lessons_unread else f"there is no lesson {slug!r}"


def check_links(content: Content, unread: frozenset[Path] = frozenset()) -> list[ContentError]:
    """Every internal link lands on a lesson that exists and, with a ``#fragment``, on one of its anchors.

    ``unread`` are the files that did not load (reported at their own lines): while a lesson is among
    them its slug is unknown, so no link is called broken for naming a missing lesson; while a quiz is,
    no link is for naming one of its questions."""
    out = []
    lessons_unread = unread_slugs(unread)
    quizzes_unread = {p.stem: _question_ids(p) for p in unread if p.parent.name == "quizzes"}

    def broken(lesson: Lesson, line: int, href: str, why: str) -> None:
        out.append(ContentError(lesson.source, line, f"broken link {href!r}: {why}"))

    pages = [*content.lessons, *([content.reference] if content.reference else [])]
    for lesson in pages:
        # A glossary or reference page that failed to load is reported at its own lines; a link to it
        # is broken only when the file is not there at all.
        root = lesson.source.parent if lesson is content.reference else lesson.source.parent.parent
        for link in lesson.links:
            href = link.href
            if _EXTERNAL.match(href) or href in ("/", "/glossary"):
                continue
            if term := GLOSSARY_LINK.match(href):
                if content.glossary is None:
                    if not (root / GLOSSARY).is_file():
                        broken(lesson, link.line, href, f"there is no {GLOSSARY}")
                elif content.glossary.term(term.group(1)) is None:
                    known = [t.id for t in content.glossary.terms]
                    hint = did_you_mean(term.group(1), known)
                    broken(lesson, link.line, href, f"the glossary has no term {term.group(1)!r}{hint}")
                continue
            if href.startswith("#"):
                target, fragment = lesson, href[1:]
            elif href == "/reference" or href.startswith("/reference#") or LESSON_LINK.match(href):
                page, _, fragment = href.partition("#")
                found, why = page_of(content, root, page.rstrip("/"), lessons_unread)
                if found is None:
                    if why and page != "/reference":
                        why += f" ({', '.join(x.meta.slug for x in content.lessons)})"
                    if why:
                        broken(lesson, link.line, href, why)
                    continue
                target = found
            else:
                broken(
                    lesson,
                    link.line,
                    href,
                    "an internal link reads '#section', '/lessons/<slug>#section', '/reference#section' or "
                    "'/glossary#<term id>'",
                )
                continue
            if fragment and fragment.startswith("q-") and target.meta.slug in quizzes_unread:
                ids = quizzes_unread[target.meta.slug]
                if ids is None or fragment[2:] in ids or fragment in anchors(content, target):
                    continue
                broken(lesson, link.line, href, f"quiz {target.meta.slug!r} has no question {fragment[2:]!r}")
                continue
            if fragment and fragment not in anchors(content, target):
                broken(lesson, link.line, href, f"lesson {target.meta.slug!r} has no section or question {fragment!r}")
    return out


def check_moved(content: Content, root: Path, unread: frozenset[Path] = frozenset()) -> list[ContentError]:
    """Each part of a former lesson (``moved.yaml``) points at a lesson or the reference page that exists,
    and at one of its sections: that address is where an old link or saved progress is sent."""
    path = root / MOVED
    if not content.moved or not path.is_file():
        return []
    doc = parse_yaml(read_text(path), path)
    lessons_unread = unread_slugs(unread)
    out = []
    for i, former in enumerate(content.moved):
        if content.lesson(former.slug) is not None:
            why = f"{former.slug!r} is the slug of a lesson again: its old links open that lesson"
            out.append(ContentError(path, doc.line(("moved", i, "slug")), why))
        for j, part in enumerate(former.parts):
            page, _, fragment = part.to.partition("#")
            target, why = page_of(content, root, page, lessons_unread)
            if target is None:
                if why is None:
                    continue  # a page that did not load is reported at its own lines
                slugs = [x.meta.slug for x in content.lessons]
                hint = did_you_mean(page.removeprefix("/lessons/"), slugs) if page != "/reference" else ""
            elif fragment and fragment not in anchors(content, target):
                why = f"{page} has no section {fragment!r}"
                hint = did_you_mean(fragment, sorted(anchors(content, target)))
            else:
                continue
            out.append(ContentError(path, doc.line(("moved", i, "parts", j, "to")), f"{part.to!r}: {why}{hint}"))
    return out


# One or two colons; a line of three or more that is no widget line is reported where lessons are read.
_ALMOST_WIDGET = re.compile(r"^:{1,2}\s*([a-z][a-z0-9-]*)\s*$")


def check_widget_lines(lesson: Lesson) -> list[ContentError]:
    """A line that almost places a panel (``:: outage``) is shown as text, and the panel is
    missing from the page without a word: say how to write it."""
    tokens, body_line = lesson_tokens(lesson.source)
    out = []
    for token in tokens:
        if token.type != "inline" or WIDGET_LINE.match(token.content):
            continue
        if almost := _ALMOST_WIDGET.match(token.content):
            line = body_line + token.map[0] if token.map else body_line
            write = f"::: {almost.group(1)}"
            out.append(ContentError(lesson.source, line, f"write {write!r} (three colons, a space) to place a panel"))
    return out


def check_quiz_last(lesson: Lesson) -> list[ContentError]:
    """The quick check closes a lesson's idea: no panel comes after ``::: quiz``."""
    tokens, body_line = lesson_tokens(lesson.source)
    quiz_seen = False
    for token in tokens:
        if token.type != "inline" or not (widget := WIDGET_LINE.match(token.content)):
            continue
        if widget.group(1) == "quiz":
            quiz_seen = True
        elif quiz_seen and widget.group(1) not in BUILTIN_WIDGETS:
            line = body_line + token.map[0] if token.map else body_line
            return [
                ContentError(
                    lesson.source,
                    line,
                    f"the panel {widget.group(1)!r} comes after the quick check: the quick check closes the "
                    "lesson, so place it after the panels",
                )
            ]
    return []


# What a panel shows a learner, by key: everything else in its file (ids, events, options) stays unseen.
_SHOWN = {"title", "label", "text", "hint", "hints", "question", "explanation", "variants_legend", "caption", "titles"}


def _shown_text(value: object, shown: bool = False) -> list[str]:
    if isinstance(value, str):
        return [value] if shown else []
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _shown_text(v, shown or k in _SHOWN)]
    if isinstance(value, list):
        return [t for v in value for t in _shown_text(v, shown)]
    return []


def _quiz_text(quiz: Quiz) -> list[str]:
    return [
        text
        for q in quiz.questions
        for text in (q.prompt, q.explanation, q.hint or "", *(c.text for c in q.choices or []))
    ]


def check_terms(content: Content, glossary: Glossary, panels: dict[str, AnyPanel]) -> list[ContentError]:
    """A glossary term is linked to its entry where the course first uses it: a lesson may use a term only
    after it (or an earlier lesson) has linked it. A panel or the quick check counts where the lesson
    places it, and since its text cannot hold links, the lesson must have linked its terms by then.
    Each term is reported once per lesson, at its first early use."""
    spellings = {s: t.id for t in glossary.terms for s in t.spellings}
    pattern = term_pattern(spellings)
    out = []
    known: set[str] = set()  # linked by an earlier lesson
    for lesson in content.lessons:
        here = set(known)
        reported: set[str] = set()
        tokens, body_line = lesson_tokens(lesson.source)
        for mark in term_marks(tokens, body_line, spellings):
            if mark.kind == "link":
                here.add(mark.name)
                continue
            if mark.kind == "use":
                uses, where = [mark], ""
            else:
                quiz = content.quizzes.get(lesson.meta.slug)
                panel = panels.get(mark.name)
                texts = (
                    _quiz_text(quiz)
                    if mark.name == "quiz" and quiz
                    else _shown_text(panel.model_dump() if panel is not None else {})
                )
                uses = [u for text in texts for u in term_uses(text, spellings, pattern, mark.line)]
                where = f"the {mark.name!r} {'quick check' if mark.name == 'quiz' else 'panel'} placed here uses "
            for use in uses:
                if use.name in here or use.name in reported:
                    continue
                reported.add(use.name)
                entry = glossary.term(use.name)
                out.append(
                    ContentError(
                        lesson.source,
                        use.line,
                        f"{where}{use.text!r} before this lesson or an earlier one links it to the glossary: "
                        f"write [{use.text}](/glossary#{use.name}) where it is first used"
                        + (f" ({entry.term})" if entry and entry.term.casefold() != use.text.casefold() else ""),
                    )
                )
        known |= {m.name for m in term_marks(tokens, body_line, spellings) if m.kind == "link"}
    return out


__all__ = [
    "anchors",
    "check_links",
    "check_messages",
    "check_quiz_last",
    "check_size",
    "check_subscription_ids",
    "check_terms",
]
