"""``lesson check``'s rules for the quick checks (``quizzes/*.yaml``): feedback short and linked to the
lesson, choice questions that length does not give away, and task questions whose solution replays and
does the task (graded by :mod:`lesson.playground.tasks`, as a learner's log is).
"""

from __future__ import annotations

from pathlib import Path

from lesson.playground.protocol import Log
from lesson.playground.tasks import TaskLogError, done, done_at_start, log_line, read_line, views
from lesson.sim import View
from lesson.sim.model import ERAS

from .check_lessons import LESSON_LINK, anchors
from .goals import All, Condition, Not, Test, describe, holds, resolve
from .limits import MAX_FEEDBACK_WORDS, MAX_RIGHT_PLACE_SHARE, MIN_CHOICE_SHARE, RIGHT_PLACE_FROM, word_count
from .models import Content, Lesson, Task
from .names import unknown_condition_servers
from .panels import AnyPanel, PlaygroundPanel
from .scenarios import page_scenarios
from .yamlfile import ContentError, parse_yaml, read_text


def check_feedback(root: Path, content: Content) -> list[ContentError]:
    """Quiz feedback is short and points back at the lesson: an explanation or hint of at most
    MAX_FEEDBACK_WORDS words, and a ``see`` link to a section (or question) that exists."""
    out = []
    for quiz in content.quizzes.values():
        path = root / "quizzes" / f"{quiz.id}.yaml"
        doc = parse_yaml(read_text(path), path)
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


def _see_problem(content: Content, lesson: Lesson, href: str) -> str | None:
    if href.startswith("#"):
        target, fragment = lesson, href[1:]
    elif (match := LESSON_LINK.match(href)) and (found := content.lesson(match.group(1))):
        target, fragment = found, match.group(2)
    else:
        return f"'see' {href!r} names no lesson"
    if fragment and fragment not in anchors(content, target):
        return f"'see' {href!r}: lesson {target.meta.slug!r} has no section or question {fragment!r}"
    return None


def _sentences(text: str) -> int:
    return len([s for s in text.replace("; ", ". ").split(". ") if s.strip()])


def check_choices(root: Path, content: Content) -> list[ContentError]:
    """A choice question cannot be passed by picking the longest answer: the right choice is not strictly
    the longest, the shortest choice is at least MIN_CHOICE_SHARE of the longest, and the explanation
    covers the wrong choices too (a sentence, or a clause after '; ', for each choice but one). Across the
    course, the right choice is not in one place of the list (the second, say) in most questions."""
    out = []
    places: list[tuple[int, Path, int | None]] = []  # the right choice's place (1-based), where it is written
    for quiz in content.quizzes.values():
        path = root / "quizzes" / f"{quiz.id}.yaml"
        doc = parse_yaml(read_text(path), path)
        for n, q in enumerate(quiz.questions):
            if q.choices is None:
                continue  # a task has no choices to balance
            lengths = {c.id: len(c.text) for c in q.choices}
            shown = ", ".join(f"{cid}: {size}" for cid, size in lengths.items())
            right = next(i for i, c in enumerate(q.choices) if c.id == q.answer)
            places.append((right + 1, path, doc.line(("questions", n, "choices", right))))
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
    if len(places) >= RIGHT_PLACE_FROM:
        for place in sorted({p for p, _, _ in places}):
            at = [(path, line) for p, path, line in places if p == place]
            if len(at) > MAX_RIGHT_PLACE_SHARE * len(places):
                out.append(
                    ContentError(
                        *at[0],
                        f"the right choice is choice {place} in {len(at)} of the course's {len(places)} choice "
                        f"questions, so always picking choice {place} passes; move some right choices elsewhere "
                        f"(at most {MAX_RIGHT_PLACE_SHARE:.0%} in one place)",
                    )
                )
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
        doc = parse_yaml(read_text(path), path)
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
        for era in ERAS if panel.era_choice else (panel.start.era,):
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


def _short_of(task: Task, panel: PlaygroundPanel) -> str:
    """Where a solution that does not do its task falls short, with the values the view shows there."""
    shown = views(panel, read_line(log_line(panel.id, panel.start.era, None, task.solution)).log)

    def facts(condition: Condition, view: View) -> str:
        return "; ".join(f"{t.path} is {resolve(view, t.path)!r}" for t in _tests(condition))

    if not shown:
        return "it presses nothing"
    if task.earlier is not None:
        first = next((n for n, v in enumerate(shown) if holds(task.earlier, v)), None)
        if first is None:
            last = facts(task.earlier, shown[-1])
            return f"'earlier' ({describe(task.earlier)}) holds after none of them; after the last, {last}"
        if first == len(shown) - 1:
            earlier = describe(task.earlier)
            return f"'earlier' ({earlier}) first holds after the last press, and 'when' needs a press after it"
        return (
            f"'when' ({describe(task.when)}) holds after none of the presses after press {first + 1}, where "
            f"'earlier' first holds; after the last, {facts(task.when, shown[-1])}"
        )
    return f"'when' ({describe(task.when)}) holds after none of them; after the last, {facts(task.when, shown[-1])}"


def _tests(condition: Condition) -> list[Test]:
    """The tests a condition is made of, each naming a path in the view."""
    if isinstance(condition, Test):
        return [condition]
    if isinstance(condition, Not):
        return _tests(condition.not_)
    parts = condition.all if isinstance(condition, All) else condition.any
    return [t for part in parts for t in _tests(part)]


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
        solved = done(task, panel, read_line(log_line(panel.id, panel.start.era, None, task.solution)).log)
    except TaskLogError as exc:
        out.append(("solution", f"the solution cannot be replayed: {exc}"))
    else:
        if not solved:
            out.append(("solution", "the solution's presses do not do the task: " + _short_of(task, panel)))
    return out


__all__ = [
    "check_choices",
    "check_feedback",
    "check_tasks",
]
