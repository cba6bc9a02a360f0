"""``lesson check``: validate all the content and report every problem, each as ``file:line: what``.

Beyond what start-up loads, it checks every wire example against its era's schema, every internal link,
every scripted scenario (replayed in both eras), every panel goal, the JSON Schema each YAML file
points an editor at, and the UI's translated message catalogues.

A file that does not load does not hide the problems of the files that use it: a scenario or a task that
presses buttons of a broken panel still has its presses checked against the buttons the panel's file lists.
A name that is not known gets the closest known one as a suggestion.

This module runs the check; the rules are in ``check_lessons``, ``check_quizzes``, ``check_panels`` and
``check_translations``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lesson.sim.spelling import did_you_mean

from .check_lessons import (
    check_links,
    check_messages,
    check_moved,
    check_quiz_last,
    check_size,
    check_subscription_ids,
    check_terms,
    check_widget_lines,
)
from .check_panels import check_challenges, check_goals, check_presses_of_broken_panels
from .check_quizzes import check_choices, check_feedback, check_tasks
from .check_translations import check_catalogues, check_locales
from .course import GLOSSARY, load_content, load_panels
from .scenarios import check_scenario
from .yamlfile import ContentError, read_text

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


def _checked(check_one: Callable[..., list[ContentError]], *args: Any) -> list[ContentError]:
    """One check's problems. A check that reads a file again stops at a file it cannot read (not UTF-8,
    say); the loaders have reported that file already, and the other checks still run."""
    try:
        return check_one(*args)
    except ContentError as err:
        return err.problems


# What each content folder reads. A content file under another name there is read by nothing.
_FOLDER_FILES = {"lessons": ".md", "panels": ".yaml", "quizzes": ".yaml", "scenarios": ".yaml"}
_CONTENT_SUFFIXES = {".md", ".markdown", ".yaml", ".yml"}


def check_file_names(root: Path) -> list[ContentError]:
    """A lesson saved as ``.markdown`` or a panel as ``.yml`` would be skipped without a word: say so."""
    out = []
    for folder, suffix in _FOLDER_FILES.items():
        for path in sorted((root / folder).glob("*")):
            if path.suffix.lower() in _CONTENT_SUFFIXES and path.suffix != suffix:
                want = path.with_suffix(suffix).name
                out.append(
                    ContentError(path, None, f"nothing reads this file: {folder}/ reads *{suffix} (rename it {want})")
                )
    return out


def check(root: Path) -> Report:
    """Check everything under the content root; never raises on bad content."""
    root = Path(root)
    report = Report(root)
    problems = report.problems
    content = load_content(root, problems)
    # Lessons and quizzes that did not load: the link check must not count them as missing.
    unread = frozenset(
        {p for p in (root / "lessons").glob("*.md") if p not in {lesson.source for lesson in content.lessons}}
        | {p for p in (root / "quizzes").glob("*.yaml") if p.stem not in content.quizzes}
    )
    panels = load_panels(root, problems)
    for lesson in content.lessons:
        problems.extend(_checked(check_messages, lesson))
        problems.extend(_checked(check_subscription_ids, lesson))
        problems.extend(_checked(check_size, lesson))
        problems.extend(_checked(check_quiz_last, lesson))
        problems.extend(_checked(check_widget_lines, lesson))
    if content.reference is not None:
        problems.extend(_checked(check_messages, content.reference))
        problems.extend(_checked(check_subscription_ids, content.reference))
    problems.extend(_checked(check_links, content, unread))
    problems.extend(_checked(check_moved, content, root, unread))
    scenario_files = sorted((root / "scenarios").glob("*.yaml"))
    for path in scenario_files:
        problems.extend(_checked(check_scenario, path))
    problems.extend(_checked(check_goals, root, panels))
    problems.extend(_checked(check_tasks, root, content, panels))
    problems.extend(_checked(check_schema_pointers, root))
    problems.extend(check_file_names(root))
    problems.extend(_checked(check_feedback, root, content))
    problems.extend(_checked(check_choices, root, content))
    problems.extend(_checked(check_challenges, root, panels))
    if content.glossary is not None:
        problems.extend(_checked(check_terms, content, content.glossary, panels))
    problems.extend(_checked(check_presses_of_broken_panels, root, panels))
    problems.extend(_checked(check_locales, root, content, report.notes))
    placed = {name for lesson in content.lessons for name in lesson.widgets}
    lessons_unread = any(p.parent.name == "lessons" for p in unread)  # its panels are unknown
    for name in sorted(set(panels) - placed) if not lessons_unread else []:
        report.notes.append(f"{root / 'panels' / name}.yaml: no lesson places this panel (a '::: {name}' line)")
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
    first = read_text(path).split("\n", 1)[0]
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


__all__ = [
    "Report",
    "check",
    "check_schema_pointers",
    "schema_pointer",
    "suggest",
]
