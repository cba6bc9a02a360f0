"""Scenarios, scripted walk-throughs: ``content/scenarios/*.yaml``. A start, a list of steps (each a press of a panel's
button or an event written out) and narration for each step, so a prepared run can be replayed in class.

:func:`scenario_events` turns a file into ``(start, events)``, the same pair a playground is made of, so any
tool that replays a playground (``lesson trace``, the playground itself) can take a scenario file.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator, model_validator

from lesson.narration import sentence
from lesson.sim import Event, Start, begin, runs, view
from lesson.sim.model import Strict, other_era
from lesson.sim.spelling import did_you_mean

from .goals import Condition, describe, holds
from .limits import MAX_NARRATION_WORDS, word_count
from .names import declared_server_problems, deployed, unknown_condition_servers, unknown_servers, unknown_tools
from .panels import ID, Label, Moment, PlaygroundPanel, load_panel
from .yamlfile import ContentError, YamlDoc, load_yaml_file


class ScenarioStep(Strict):
    """One step: a press of the panel's button, or one or more events, and what to say about it."""

    title: Annotated[
        Label | None, Field(description="the step's heading (none: the page numbers it only, in its own language)")
    ] = None
    press: ID | Annotated[list[ID], Field(min_length=1)] | None = Field(
        default=None, description="the id of a button of the scenario's panel, or several pressed in turn"
    )
    event: Annotated[Event | None, Field(description="one event this step plays, instead of a press")] = None
    events: Annotated[
        list[Event] | None, Field(description="several events this step plays in turn, instead of a press")
    ] = None
    narration: Annotated[
        Label,
        Field(description=f"what the step shows, read beside it: at most {MAX_NARRATION_WORDS} words"),
    ]
    expect: Condition | None = Field(default=None, description="must hold after this step, or the replay fails")

    @field_validator("narration")
    @classmethod
    def _short(cls, narration: str) -> str:
        if (n := word_count(narration)) > MAX_NARRATION_WORDS:
            raise ValueError(f"a narration has at most {MAX_NARRATION_WORDS} words; this one has {n}")
        return narration

    @model_validator(mode="after")
    def _one_action(self) -> ScenarioStep:
        given = [k for k in ("press", "event", "events") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a step needs exactly one of press, event, events (got {', '.join(given) or 'none'})")
        return self


class Scenario(Strict):
    """A scripted scenario."""

    id: Annotated[ID, Field(description="the scenario's id, the same as the file's name")]
    title: Annotated[Label, Field(description="the scenario's name, shown in the page's scenario choice")]
    summary: Annotated[Label | None, Field(description="one sentence on what the scenario shows")] = None
    panel: ID | None = Field(default=None, description="the playground whose buttons the steps press")
    start: Start | None = Field(default=None, description="where the run starts; default: the panel's start")
    steps: Annotated[
        list[ScenarioStep],
        Field(
            description="the moments in order; each has exactly one of press, event or events, and a narration",
            min_length=1,
        ),
    ]

    @model_validator(mode="after")
    def _startable(self) -> Scenario:
        if self.start is None and self.panel is None:
            raise ValueError("a scenario needs a start, a panel, or both")
        if self.panel is None and any(s.press for s in self.steps):
            raise ValueError("a step presses a button, so the scenario needs a panel")
        return self


def presses(step: ScenarioStep) -> list[str]:
    """The buttons a step presses, in order (none for a step written as events)."""
    if step.press is None:
        return []
    return [step.press] if isinstance(step.press, str) else list(step.press)


def _panel_of(scenario: Scenario, doc: YamlDoc) -> PlaygroundPanel | None:
    """The playground a scenario's steps press, read from its file; raises ContentError at ``panel:`` when
    there is no such file or it is not a playground."""
    if scenario.panel is None:
        return None
    panels = doc.path.parent.parent / "panels"
    panel_path = panels / f"{scenario.panel}.yaml"
    if not panel_path.is_file():
        hint = did_you_mean(scenario.panel, sorted(p.stem for p in panels.glob("*.yaml")))
        raise ContentError(doc.path, doc.line(("panel",)), f"there is no panel file panels/{scenario.panel}.yaml{hint}")
    panel = load_panel(panel_path)[0]
    if not isinstance(panel, PlaygroundPanel):
        raise ContentError(
            doc.path,
            doc.line(("panel",)),
            f"panel {scenario.panel!r} is a {panel.kind}: a scenario plays in a playground, whose buttons its "
            "steps press (a stepper names the scenario instead, with scenario: <id>)",
        )
    return panel


def _resolve(scenario: Scenario, doc: YamlDoc, panel: PlaygroundPanel | None) -> tuple[Start, list[list[Event]]]:
    """The start and each step's events; raises ContentError at the step that cannot be resolved."""
    if scenario.start is not None:
        start = scenario.start
    else:
        assert panel is not None  # Scenario checks that it has a start or a panel
        start = panel.start_for(panel.variant(None))
    steps: list[list[Event]] = []
    for n, step in enumerate(scenario.steps):
        if step.press is not None:
            pressed: list[Event] = []
            for pid in presses(step):
                button = panel.button(pid) if panel is not None else None
                if button is None:
                    ids = [b.id for b in panel.buttons] if panel is not None else []
                    raise ContentError(
                        doc.path,
                        doc.line(("steps", n, "press")),
                        f"step {n + 1} presses {pid!r}, which is not a button of panel {scenario.panel!r} "
                        f"({', '.join(ids) or 'none'}){did_you_mean(pid, ids)}",
                    )
                pressed.append(button.event)
            steps.append(pressed)
        else:
            steps.append([step.event] if step.event is not None else list(step.events or []))
    return start, steps


def load_scenario(path: Path) -> tuple[Scenario, Start, list[Moment]]:
    """Read a scenario file into its model, its start and its steps (as a stepper shows them)."""
    scenario, doc = load_yaml_file(Path(path), Scenario)
    start, events = _resolve(scenario, doc, _panel_of(scenario, doc))
    steps = [Moment(title=s.title, caption=s.narration, events=e) for s, e in zip(scenario.steps, events, strict=True)]
    return scenario, start, steps


def scenario_events(path: Path) -> tuple[Start, list[Event]]:
    """A scenario file as the pair a playground is made of: its start and every event, in order.

    Reads the file (and its panel's file, for presses) and nothing else; raises ContentError.
    """
    _scenario, start, steps = load_scenario(path)
    return start, [e for step in steps for e in step.events]


def check_scenario(path: Path) -> list[ContentError]:
    """Every problem of one scenario file: its shape, its presses, its servers, and a replay in both eras
    that must play every step (and, in the scenario's own era, meet every ``expect``)."""
    path = Path(path)
    try:
        scenario, doc = load_yaml_file(path, Scenario)
        if scenario.id != path.stem:
            return [
                ContentError(
                    path, doc.line(("id",)), f"scenario id {scenario.id!r} must match the file name ({path.name})"
                )
            ]
        panel = _panel_of(scenario, doc)
        start, steps = _resolve(scenario, doc, panel)
    except ContentError as err:
        return list(err.problems)
    if scenario.start is not None and (taken := declared_server_problems(doc, path, scenario.start, ("start",))):
        return taken
    out: list[ContentError] = []
    # A question asked from the start, about the very first press: the walk-through would reveal its answer
    # in its first moment, before any moment has said the question is there to answer.
    # (Asked from the start: no `after`, in the first variant, which every walk-through plays, and its
    # premise holding at the start.)
    if panel is not None:
        first_variant = panel.variant(None)
        with contextlib.suppress(KeyError, ValueError):  # a start that does not play is reported below
            at_start = view(begin(start))
            asked = {
                p.button
                for p in panel.predictions
                if p.after is None
                and p.variant in (None, first_variant.id if first_variant else None)
                and (p.when is None or holds(p.when, at_start))
            }
            if revealed := [b for b in presses(scenario.steps[0]) if b in asked]:
                why = f"step 1 presses {revealed[0]!r}, which a prediction asks about from the start: the "
                why += "walk-through would reveal the answer before a moment says the question is there; "
                why += "begin with another moment"
                out.append(ContentError(path, doc.line(("steps", 0, "press")), why))
    # Replay in both eras; the expectations are checked in the scenario's own era.
    with contextlib.suppress(KeyError, ValueError):  # a start that does not play is reported below
        for n, step in enumerate(scenario.steps):
            if step.expect is not None:
                for loc, why in unknown_condition_servers(start, step.expect, ("steps", n, "expect"), f"step {n + 1}"):
                    out.append(ContentError(path, doc.line(loc), why))
    for era in (start.era, other_era(start.era)):
        try:
            run = begin(start.model_copy(update={"era": era}))
        except (KeyError, ValueError) as exc:
            return [ContentError(path, doc.line(("start",)), f"the start does not play: {exc}")]
        for n, (step, events) in enumerate(zip(scenario.steps, steps, strict=True)):
            also = deployed([e for x in steps for e in x])
            if why := unknown_servers(start, events) or unknown_tools(start, events, also):
                out.append(ContentError(path, doc.line(("steps", n)), f"step {n + 1} {why}"))
                break
            try:
                refused = None
                for after in runs(run, events):
                    if after.last is not None and after.last.rejected and refused is None:
                        refused = after.last.lines[0]
                    run = after
            except (KeyError, ValueError) as exc:
                out.append(ContentError(path, doc.line(("steps", n)), f"step {n + 1} does not replay ({era}): {exc}"))
                break
            if refused is not None and era == start.era:
                # The page would show a press that does nothing but say why not: no step of a walk-through.
                why = sentence(refused.code, refused.params)
                out.append(ContentError(path, doc.line(("steps", n)), f"step {n + 1} is refused ({era}): {why}"))
            if step.expect is not None and era == start.era and not holds(step.expect, view(run)):
                out.append(
                    ContentError(
                        path,
                        doc.line(("steps", n, "expect")),
                        f"step {n + 1} ({era}): expected {describe(step.expect)}, which does not hold",
                    )
                )
    return list({str(p): p for p in out}.values())


def page_scenarios(root: Path) -> dict[str, list[dict]]:
    """What the page needs to replay scenarios, by panel id: each scenario's title and its steps as
    presses of that panel's buttons. Scenarios without a playground panel, or with a step that is not a
    press, are left out (``lesson check`` reports the latter). A scenario file that does not load raises
    ContentError, as any broken content does: it stops start-up, and a reload shows it."""
    out: dict[str, list[dict]] = {}
    for path in sorted((Path(root) / "scenarios").glob("*.yaml")):
        scenario, start, _steps = load_scenario(path)  # a panel it names is a playground (or it raises)
        if scenario.panel is None or any(s.press is None for s in scenario.steps):
            continue
        out.setdefault(scenario.panel, []).append(
            {
                "id": scenario.id,
                "title": scenario.title,
                "summary": scenario.summary,
                "era": start.era,
                "steps": [{"title": s.title, "narration": s.narration, "press": presses(s)} for s in scenario.steps],
            }
        )
    # A panel's own walk-through (the scenario named as the panel is) comes first, then the others by
    # name (a stable sort): lesson 3's outage playground opens with its outage, not lesson 1's session.
    for pid, offers in out.items():
        offers.sort(key=lambda offer, pid=pid: offer["id"] != pid)
    return out


__all__ = [
    "Scenario",
    "ScenarioStep",
    "check_scenario",
    "scenario_events",
    "load_scenario",
    "page_scenarios",
    "presses",
]
