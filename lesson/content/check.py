"""``lesson check``: validate all the content and report every problem, each as ``file:line: what``.

Beyond what start-up loads, it checks every wire example against its era's schema, every internal link,
every scripted scenario (replayed in both eras), every panel goal, the JSON Schema each YAML file
points an editor at, and the UI's translated message catalogues.

A file that does not load does not hide the problems of the files that use it: a scenario or a task that
presses buttons of a broken panel still has its presses checked against the buttons the panel's file lists.
A name that is not known gets the closest known one as a suggestion.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from lesson import i18n
from lesson.playground.protocol import Log
from lesson.playground.tasks import TaskLogError, done, done_at_start, parse
from lesson.sim import begin, view

from .course import (
    BUILTIN_WIDGETS,
    GLOSSARY,
    MAX_FEEDBACK_WORDS,
    MAX_PLAYGROUNDS,
    MAX_VISIBLE_WORDS,
    MIN_CHOICE_SHARE,
    REFERENCE,
    Content,
    Glossary,
    Lesson,
    Quiz,
    Task,
    lesson_tokens,
    load_content,
    word_count,
)
from .goals import holds
from .markup import GLOSSARY_LINK, WIDGET_LINE, term_marks, term_pattern, term_uses
from .panels import AnyPanel, PlaygroundPanel, load_panels, unknown_condition_servers
from .scripts import check_script, page_scenarios
from .wire_schema import VERSIONS, message_errors
from .yamlfile import ContentError, did_you_mean, parse_yaml

SCHEMAS = {"quizzes": "quiz", "panels": "panel", "scenarios": "scenario"}
ROOT_SCHEMAS = {GLOSSARY: "glossary"}
_SCHEMA_LINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)\s*$")


@dataclass
class Report:
    """What a check found: every problem, and counts for the all-clear line."""

    root: Path
    problems: list[ContentError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth knowing, not wrong (e.g. untranslated messages)
    lessons: int = 0
    questions: int = 0
    panels: int = 0
    scenarios: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        return (
            f"{self.lessons} lessons, {self.questions} quiz questions, {self.panels} panels, "
            f"{self.scenarios} scenarios ({self.root})"
        )


def check(root: Path) -> Report:
    """Check everything under the content root; never raises on bad content."""
    root = Path(root)
    report = Report(root)
    problems = report.problems
    content = load_content(root, problems)
    panels = load_panels(root, problems)
    for lesson in content.lessons:
        problems.extend(check_messages(lesson))
        problems.extend(check_subscription_ids(lesson))
        problems.extend(check_size(lesson))
        problems.extend(check_quiz_last(lesson))
    if content.reference is not None:
        problems.extend(check_messages(content.reference))
        problems.extend(check_subscription_ids(content.reference))
    problems.extend(check_links(content))
    scenario_files = sorted((root / "scenarios").glob("*.yaml"))
    for path in scenario_files:
        problems.extend(check_script(path))
    problems.extend(check_goals(root, panels))
    problems.extend(check_tasks(root, content, panels))
    problems.extend(check_schema_pointers(root))
    problems.extend(check_feedback(root, content))
    problems.extend(check_choices(root, content))
    problems.extend(check_challenges(root, panels))
    if content.glossary is not None:
        problems.extend(check_terms(content, content.glossary, panels))
    problems.extend(check_presses_of_broken_panels(root, panels))
    problems.extend(check_locales(root, content, report.notes))
    catalogue_errors, notes = check_catalogues()
    report.notes += notes
    problems.extend(catalogue_errors)
    problems[:] = [suggest(p) for p in problems]

    unique: dict[str, ContentError] = {}
    for p in problems:
        unique.setdefault(str(p), p)
    report.problems = sorted(unique.values(), key=lambda p: (str(p.path), p.line or 0, p.message))
    report.lessons = len(content.lessons)
    report.questions = sum(len(q.questions) for q in content.quizzes.values())
    report.panels = len(panels)
    report.scenarios = len(scenario_files)
    return report


def check_messages(lesson: Lesson) -> list[ContentError]:
    """Every ``json legacy|modern DefName`` block against its era's official schema."""
    out = []
    for m in lesson.message_blocks:
        for err in message_errors(m.data, m.era, m.def_name)[:5]:
            out.append(
                ContentError(
                    lesson.source,
                    m.line,
                    f"the 'json {m.era} {m.def_name}' block does not fit the {VERSIONS[m.era]} schema: {err}",
                )
            )
    return out


def check_size(lesson: Lesson) -> list[ContentError]:
    """One idea a lesson: at most MAX_VISIBLE_WORDS of prose in view at load (disclosures closed), reported
    at the line where the budget runs out, and at most MAX_PLAYGROUNDS panels, reported at the one too many."""
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
                if panels == MAX_PLAYGROUNDS + 1:
                    out.append(
                        ContentError(
                            lesson.source,
                            line,
                            f"a lesson shows at most {MAX_PLAYGROUNDS} playgrounds: this is one too many; "
                            "give its idea a lesson of its own",
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


SUB_KEY = "io.modelcontextprotocol/subscriptionId"


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
    quiz = content.quiz(lesson.meta.slug)
    return {t.id for t in lesson.toc} | {f"q-{q.id}" for q in (quiz.questions if quiz else [])}


_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_LESSON_LINK = re.compile(r"^/lessons/([^/#?]+)/?(?:#(.*))?$")


def check_links(content: Content) -> list[ContentError]:
    """Every internal link lands on a lesson that exists and, with a ``#fragment``, on one of its anchors."""
    out = []

    def broken(lesson: Lesson, line: int, href: str, why: str) -> None:
        out.append(ContentError(lesson.source, line, f"broken link {href!r}: {why}"))

    pages = [*content.lessons, *([content.reference] if content.reference else [])]
    for lesson in pages:
        for link in lesson.links:
            href = link.href
            if _EXTERNAL.match(href) or href in ("/", "/glossary"):
                continue
            if term := GLOSSARY_LINK.match(href):
                if content.glossary is None:
                    # A glossary that failed to load is reported at its own lines; say nothing more here.
                    if not (lesson.source.parent.parent / GLOSSARY).is_file():
                        broken(lesson, link.line, href, f"there is no {GLOSSARY}")
                elif content.glossary.term(term.group(1)) is None:
                    known = [t.id for t in content.glossary.terms]
                    hint = did_you_mean(term.group(1), known)
                    broken(lesson, link.line, href, f"the glossary has no term {term.group(1)!r}{hint}")
                continue
            if href.startswith("#"):
                target, fragment = lesson, href[1:]
            elif href == "/reference" or href.startswith("/reference#"):
                if content.reference is None:
                    broken(lesson, link.line, href, f"there is no {REFERENCE}")
                    continue
                target, fragment = content.reference, href.partition("#")[2]
            elif match := _LESSON_LINK.match(href):
                found = content.lesson(match.group(1))
                if found is None:
                    slugs = ", ".join(x.meta.slug for x in content.lessons)
                    broken(lesson, link.line, href, f"there is no lesson {match.group(1)!r} ({slugs})")
                    continue
                target, fragment = found, match.group(2)
            else:
                broken(
                    lesson,
                    link.line,
                    href,
                    "an internal link reads '#section', '/lessons/<slug>#section' or '/reference#section'",
                )
                continue
            if fragment and fragment not in anchors(content, target):
                broken(lesson, link.line, href, f"lesson {target.meta.slug!r} has no section or question {fragment!r}")
    return out


def check_feedback(root: Path, content: Content) -> list[ContentError]:
    """Quiz feedback is short and points back at the lesson: an explanation or hint of at most
    MAX_FEEDBACK_WORDS words, and a ``see`` link to a section (or question) that exists."""
    out = []
    for quiz in content.quizzes.values():
        path = root / "quizzes" / f"{quiz.id}.yaml"
        doc = parse_yaml(path.read_text(encoding="utf-8"), path)
        lesson = content.lesson(quiz.id)
        for n, q in enumerate(quiz.questions):
            for name in ("explanation", "hint"):
                text = getattr(q, name)
                if text is not None and (count := word_count(text)) > MAX_FEEDBACK_WORDS:
                    out.append(
                        ContentError(
                            path,
                            doc.line(("questions", n, name)),
                            f"question {q.id!r}: the {name} has {count} words; feedback is read at a glance, "
                            f"keep it to {MAX_FEEDBACK_WORDS} and link the lesson ('see') for the rest",
                        )
                    )
            if q.see is None:
                out.append(
                    ContentError(
                        path,
                        doc.line(("questions", n)),
                        f"question {q.id!r} has no 'see': link the feedback to the part of the lesson it refers to",
                    )
                )
            elif lesson is not None and (why := _see_problem(content, lesson, q.see)):
                out.append(ContentError(path, doc.line(("questions", n, "see")), f"question {q.id!r}: {why}"))
    return out


def _sentences(text: str) -> int:
    return len([s for s in text.replace("; ", ". ").split(". ") if s.strip()])


def check_choices(root: Path, content: Content) -> list[ContentError]:
    """A choice question cannot be passed by picking the longest answer: the right choice is not strictly
    the longest, the shortest choice is at least MIN_CHOICE_SHARE of the longest, and the explanation
    covers the wrong choices too (a sentence, or a clause after '; ', for each choice but one)."""
    out = []
    for quiz in content.quizzes.values():
        path = root / "quizzes" / f"{quiz.id}.yaml"
        doc = parse_yaml(path.read_text(encoding="utf-8"), path)
        for n, q in enumerate(quiz.questions):
            if q.choices is None:
                continue  # a task has no choices to balance
            lengths = {c.id: len(c.text) for c in q.choices}
            shown = ", ".join(f"{cid}: {size}" for cid, size in lengths.items())
            right = next(i for i, c in enumerate(q.choices) if c.id == q.answer)
            if lengths[q.answer] > max(v for k, v in lengths.items() if k != q.answer):
                out.append(
                    ContentError(
                        path,
                        doc.line(("questions", n, "choices", right)),
                        f"question {q.id!r}: the right choice is the longest ({shown} characters), so length "
                        "gives it away; shorten it or lengthen another",
                    )
                )
            shortest = min(range(len(q.choices)), key=lambda i: len(q.choices[i].text))
            if min(lengths.values()) < MIN_CHOICE_SHARE * max(lengths.values()):
                out.append(
                    ContentError(
                        path,
                        doc.line(("questions", n, "choices", shortest)),
                        f"question {q.id!r}: the choices differ too much in length ({shown} characters): the "
                        f"shortest should be at least {MIN_CHOICE_SHARE:.0%} of the longest",
                    )
                )
            if (count := _sentences(q.explanation)) < len(q.choices) - 1:
                out.append(
                    ContentError(
                        path,
                        doc.line(("questions", n, "explanation")),
                        f"question {q.id!r}: the explanation has {count} sentence(s) for {len(q.choices)} choices; "
                        "say why the right one is right and why the others are not",
                    )
                )
    return out


def check_challenges(root: Path, panels: dict[str, AnyPanel]) -> list[ContentError]:
    """A playground's goal is a challenge: it states an outcome and quotes none of the panel's button
    labels; only a hint's last stage (the solution) may quote them; and no label gives an answer away
    with an aside in brackets."""
    out = []
    for panel in panels.values():
        if not isinstance(panel, PlaygroundPanel):
            continue
        path = root / "panels" / f"{panel.id}.yaml"
        doc = parse_yaml(path.read_text(encoding="utf-8"), path)
        labels = [b.label for b in panel.buttons]
        for n, label in enumerate(labels):
            if "(" in label:
                out.append(
                    ContentError(
                        path,
                        doc.line(("buttons", n, "label")),
                        f"button {panel.buttons[n].id!r}: the label {label!r} holds an aside in brackets; a label "
                        "says what happens, the lesson says what it teaches",
                    )
                )
        if panel.goal is not None and (named := [x for x in labels if x in panel.goal.text]):
            out.append(
                ContentError(
                    path,
                    doc.line(("goal", "text")),
                    f"the goal quotes the button {named[0]!r}: state the outcome, not the presses that reach it",
                )
            )
        for n, nudge in enumerate(panel.hints[:-1]):
            if named := [x for x in labels if f'"{x}"' in nudge]:
                out.append(
                    ContentError(
                        path,
                        doc.line(("hints", n)),
                        f"hint {n + 1} quotes the button {named[0]!r}: only the last hint (the solution) may",
                    )
                )
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


def _see_problem(content: Content, lesson: Lesson, href: str) -> str | None:
    if href.startswith("#"):
        target, fragment = lesson, href[1:]
    elif (match := _LESSON_LINK.match(href)) and (found := content.lesson(match.group(1))):
        target, fragment = found, match.group(2)
    else:
        return f"'see' {href!r} names no lesson"
    if fragment and fragment not in anchors(content, target):
        return f"'see' {href!r}: lesson {target.meta.slug!r} has no section or question {fragment!r}"
    return None


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
                quiz = content.quiz(lesson.meta.slug)
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


def check_goals(root: Path, panels: dict[str, AnyPanel]) -> list[ContentError]:
    """A goal must not be met before the learner has pressed anything."""
    out = []
    for panel in panels.values():
        if not isinstance(panel, PlaygroundPanel) or panel.goal is None:
            continue
        if holds(panel.goal.when, view(begin(panel.start_for(panel.variant(None))))):
            path = root / "panels" / f"{panel.id}.yaml"
            out.append(ContentError(path, _line_of(path, "goal:"), "the goal is already met at the start"))
    return out


def check_tasks(root: Path, content: Content, panels: dict[str, AnyPanel]) -> list[ContentError]:
    """A task question names a playground its lesson shows, is not done before anything is pressed, and
    its ``solution`` replays on that playground and does the task."""
    out = []
    # A panel whose file exists but does not load has its own problems listed; do not call it missing.
    broken = frozenset(p.stem for p in (root / "panels").glob("*.yaml")) - set(panels)
    scenarios = page_scenarios(root)
    for quiz in content.quizzes.values():
        path = root / "quizzes" / f"{quiz.id}.yaml"
        doc = parse_yaml(path.read_text(encoding="utf-8"), path)
        lesson = content.lesson(quiz.id)
        for n, q in enumerate(quiz.questions):
            if q.task is not None:
                for field_name, message in _task_problems(q.task, panels, lesson, broken):
                    where = field_name if isinstance(field_name, tuple) else (field_name,)
                    line = doc.line(("questions", n, "task", *where))
                    out.append(ContentError(path, line, f"question {q.id!r}: {message}"))
                if (found := _scenario_doing(q.task, panels, scenarios)) is not None:
                    line = doc.line(("questions", n, "task", "when"))
                    out.append(ContentError(path, line, f"question {q.id!r}: {found}"))
    return out


def _scenario_doing(task: Task, panels: dict[str, AnyPanel], scenarios: dict[str, list[dict]]) -> str | None:
    """A task must be the learner's own work: the page replays a scenario one "Next moment" at a time, so
    every point a learner can stop at (after each moment, in either era) is graded like a task log."""
    panel = panels.get(task.panel)
    if not isinstance(panel, PlaygroundPanel):
        return None
    for scenario in scenarios.get(task.panel, []):
        for era in ("legacy", "modern"):
            pressed: list[str] = []
            for n, step in enumerate(scenario["steps"], 1):
                pressed = pressed + step["press"]
                log = Log(panel=panel.id, era=era, events=[("p", b) for b in pressed], seq=len(pressed))
                try:
                    if done(task, panel, log):
                        return (
                            f"the scenario {scenario['id']!r} does this task by itself at its moment {n} ({era}): "
                            "a learner pressing Next moment would be graded as done; ask for something it does not do"
                        )
                except (KeyError, ValueError):
                    break  # a scenario that does not replay is reported at its own file
    return None


def _task_problems(
    task: Task, panels: dict[str, AnyPanel], lesson: Lesson | None, broken: frozenset[str] = frozenset()
) -> list[tuple[str | tuple[int | str, ...], str]]:
    """(the task's field at fault, or where in it, and what is wrong) for one task question."""
    panel = panels.get(task.panel)
    if panel is None:
        if task.panel in broken:
            return []  # the panel's own problems are listed; its presses are checked against its file
        return [("panel", f"there is no panel {task.panel!r} (known: {', '.join(sorted(panels))})")]
    if not isinstance(panel, PlaygroundPanel):
        return [("panel", f"{task.panel!r} is a {panel.kind} panel; a task is done in a playground")]
    out: list[tuple[str | tuple[int | str, ...], str]] = []
    for name in ("when", "earlier"):
        if (cond := getattr(task, name)) is not None:
            out += unknown_condition_servers(panel.start, cond, (name,), f"the task's '{name}'")
    if lesson is not None and task.panel not in lesson.widgets:
        out.append(("panel", f"lesson {lesson.meta.slug!r} does not show the {task.panel!r} playground"))
    if done_at_start(task, panel):
        out.append(("when", "the task is already done at the start, before anything is pressed"))
    try:
        solved = done(task, panel, parse(f"{panel.id}:{panel.start.era}::{','.join(task.solution)}").log)
    except TaskLogError as exc:
        out.append(("solution", f"the solution cannot be replayed: {exc}"))
    else:
        if not solved:
            out.append(("solution", "the solution's presses do not do the task"))
    return out


def _listed_buttons(path: Path) -> list[str] | None:
    """The button ids a panel file lists, read without validating it; None when the file does not parse."""
    try:
        data = parse_yaml(path.read_text(encoding="utf-8"), path).data
    except (ContentError, OSError):
        return None
    buttons = data.get("buttons") if isinstance(data, dict) else None
    if not isinstance(buttons, list):
        return None
    return [b["id"] for b in buttons if isinstance(b, dict) and isinstance(b.get("id"), str)]


def check_presses_of_broken_panels(root: Path, panels: dict[str, AnyPanel]) -> list[ContentError]:
    """Scenarios and task solutions that press buttons of a panel that did not load: each press is checked
    against the ids the panel's file lists, so a typo is reported in the same run as the panel's problem."""
    broken = {p.stem: p for p in sorted((root / "panels").glob("*.yaml")) if p.stem not in panels}
    out: list[ContentError] = []

    def check_one(path: Path, doc_line: int | None, panel_id: str, press: object, what: str) -> None:
        ids = _listed_buttons(broken[panel_id])
        if ids is not None and isinstance(press, str) and press not in ids:
            out.append(
                ContentError(
                    path,
                    doc_line,
                    f"{what} presses {press!r}, which is not a button of panel {panel_id!r} ({', '.join(ids)})"
                    + did_you_mean(press, ids),
                )
            )

    for path in sorted((root / "scenarios").glob("*.yaml")):
        try:
            doc = parse_yaml(path.read_text(encoding="utf-8"), path)
        except ContentError:
            continue  # reported by the scenario's own check
        data = doc.data if isinstance(doc.data, dict) else {}
        panel_id, steps = data.get("panel"), data.get("steps")
        if panel_id not in broken or not isinstance(steps, list):
            continue
        for n, step in enumerate(steps):
            press = step.get("press") if isinstance(step, dict) else None
            for pid in press if isinstance(press, list) else [press] if press is not None else []:
                check_one(path, doc.line(("steps", n, "press")), panel_id, pid, f"step {n + 1}")
    for path in sorted((root / "quizzes").glob("*.yaml")):
        try:
            doc = parse_yaml(path.read_text(encoding="utf-8"), path)
        except ContentError:
            continue
        questions = doc.data.get("questions") if isinstance(doc.data, dict) else None
        for n, q in enumerate(questions if isinstance(questions, list) else []):
            task = q.get("task") if isinstance(q, dict) else None
            if not isinstance(task, dict) or task.get("panel") not in broken:
                continue
            solution = task.get("solution")
            for pid in solution if isinstance(solution, list) else []:
                line = doc.line(("questions", n, "task", "solution"))
                check_one(path, line, task["panel"], pid, f"question {q.get('id')!r}: the solution")
    return out


def check_locales(root: Path, content: Content, notes: list[str]) -> list[ContentError]:
    """Translated lessons (``locales/<locale>/lessons/*.md``): each loads, translates an English lesson,
    shows the same panels, and its links and wire examples hold like the English ones. A locale with no UI
    catalogue cannot be picked (``?lang=``), which the notes say."""
    from .locales import load_locale, locale_folders

    out: list[ContentError] = []
    for folder in locale_folders(root):
        translated = load_locale(folder, content, out)
        if not (i18n.HERE / f"{folder.name}.json").is_file():
            notes.append(
                f"{folder}: no UI catalogue lesson/messages/{folder.name}.json, so ?lang={folder.name} cannot pick "
                "these lessons"
            )
        if not translated:
            continue
        mixed = content.model_copy(update={"lessons": [translated.get(x.meta.slug, x) for x in content.lessons]})
        for lesson in translated.values():
            out.extend(check_messages(lesson))
            quiz = content.quiz(lesson.meta.slug)
            ids = anchors(mixed, lesson)
            lost = sorted(
                {
                    q.see[1:]
                    for q in (quiz.questions if quiz else [])
                    if q.see and q.see[1:] not in ids and q.see.startswith("#")
                }
            )
            if lost:
                notes.append(
                    f"{lesson.source}: the quick check's feedback links to {', '.join('#' + x for x in lost)}, "
                    "which this translation has no section for (those links open the page at its top)"
                )
        out.extend(p for p in check_links(mixed) if p.path.is_relative_to(folder))
    return out


def check_catalogues(folder: Path | None = None) -> tuple[list[ContentError], list[str]]:
    """The translated UI catalogues against English: every placeholder as English has it, no key English
    lacks, valid JSON (the server falls back to English for each of these, but the translation is lost).
    The notes say, per locale, how many messages are still English."""
    folder = folder or i18n.HERE
    english_path = folder / f"{i18n.DEFAULT}.json"
    try:
        english = json.loads(english_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [
            ContentError(english_path, getattr(exc, "lineno", None), f"the English catalogue does not load: {exc}")
        ], []
    errors, notes = [], []
    for path in sorted(folder.glob("*.json")):
        if path.stem == i18n.DEFAULT:
            continue
        found, missing = i18n.catalogue_problems(path, english)
        errors += [ContentError(p.path, p.line, p.message) for p in found]
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            notes.append(
                f"{path}: {len(missing)} of {len(english)} messages not translated (shown in English): {shown}"
            )
    return errors, notes


_NAMED_AMONG = re.compile(r"'([^']+)'[^']*\(([\w .,:'-]+)\)$")


def suggest(problem: ContentError) -> ContentError:
    """Add "did you mean" to a message that names an unknown name and ends with the known ones, e.g.
    ``presses 'kil', which is not a button of panel 'lights' (kill, revive, turn)``."""
    if "did you mean" in problem.message:
        return problem
    match = _NAMED_AMONG.search(problem.message)
    if not match:
        return problem
    known = [k.strip().strip("'") for k in re.split(r",\s*", match.group(2).removeprefix("known: "))]
    if match.group(1) in known:
        return problem
    hint = did_you_mean(match.group(1), known)
    return ContentError(problem.path, problem.line, problem.message + hint) if hint else problem


def schema_pointer(path: Path) -> str | None:
    """The JSON Schema a YAML file's first line points an editor at, if it points at one."""
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    match = _SCHEMA_LINE.match(first)
    return match.group(1) if match else None


def check_schema_pointers(root: Path) -> list[ContentError]:
    """A YAML file that points an editor at a JSON Schema must point at one that exists (a file without a
    pointer is fine: the editor just cannot help with it)."""
    out = []
    for file, name in ROOT_SCHEMAS.items():
        path = root / file
        pointer = schema_pointer(path) if path.is_file() else None
        if pointer is not None and not (path.parent / pointer).is_file():
            out.append(
                ContentError(path, 1, f"the schema {pointer!r} does not exist (expected 'schema/{name}.schema.json')")
            )
    for folder, name in SCHEMAS.items():
        for path in sorted((root / folder).glob("*.yaml")):
            pointer = schema_pointer(path)
            if pointer is not None and not (path.parent / pointer).is_file():
                want = f"../schema/{name}.schema.json"
                out.append(ContentError(path, 1, f"the schema {pointer!r} does not exist (expected {want!r})"))
    return out


def _line_of(path: Path, prefix: str) -> int | None:
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(prefix):
            return n
    return None


__all__ = [
    "Report",
    "anchors",
    "check",
    "check_catalogues",
    "check_challenges",
    "check_choices",
    "check_feedback",
    "check_goals",
    "check_links",
    "check_locales",
    "check_messages",
    "check_presses_of_broken_panels",
    "check_quiz_last",
    "check_schema_pointers",
    "check_tasks",
    "check_terms",
    "schema_pointer",
    "suggest",
]
