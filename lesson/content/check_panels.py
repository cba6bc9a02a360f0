"""``lesson check``'s rules for the panels (``panels/*.yaml``): a goal not met at the start, a goal and
hints that set a challenge rather than quote the buttons, and presses of a panel that did not load checked
against the buttons its file lists.
"""

from __future__ import annotations

from pathlib import Path

from lesson.sim import begin, view
from lesson.sim.spelling import did_you_mean

from .goals import holds
from .panels import AnyPanel, PlaygroundPanel
from .yamlfile import ContentError, parse_yaml, read_text


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


def check_challenges(root: Path, panels: dict[str, AnyPanel]) -> list[ContentError]:
    """A playground's goal is a challenge: it states an outcome and quotes none of the panel's button
    labels; only a hint's last stage (the solution) may quote them; and no label gives an answer away
    with an aside in brackets."""
    out = []
    for panel in panels.values():
        if not isinstance(panel, PlaygroundPanel):
            continue
        path = root / "panels" / f"{panel.id}.yaml"
        doc = parse_yaml(read_text(path), path)
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


def _listed_buttons(path: Path) -> list[str] | None:
    """The button ids a panel file lists, read without validating it; None when the file does not parse."""
    try:
        data = parse_yaml(read_text(path), path).data
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
            doc = parse_yaml(read_text(path), path)
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
            doc = parse_yaml(read_text(path), path)
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


def _line_of(path: Path, prefix: str) -> int | None:
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if line.startswith(prefix):
            return n
    return None


__all__ = [
    "check_challenges",
    "check_goals",
    "check_presses_of_broken_panels",
]
