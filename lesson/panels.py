"""Interactive panels as data: which start scenario each panel plays, and which event each of its
buttons stands for. Loaded from ``content/scenarios/*.yaml`` and validated at start-up.

The web layer never builds an event itself: a press names a button, and the panel says what it
means.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, model_validator

from .sim import Event, Playground, Run, Start, advance, begin, view
from .sim.events import RestartServer, StartCall, UserAnswers
from .sim.model import Era, Strict
from .sim.view import View

ID = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=40)]


class Button(Strict):
    id: ID
    label: str
    event: Event


class Variant(Strict):
    id: ID
    label: str
    options: dict[str, bool | str] = Field(default_factory=dict)
    call_tool: str | None = None  # restart lab: the call in flight uses this tool
    late_answer: bool = False  # restart lab: the user answers after the state expired


class PlaygroundPanel(Strict):
    id: ID
    kind: Literal["playground"]
    title: str
    start: Start
    era_choice: bool = True
    variants: list[Variant] = Field(default_factory=list)
    buttons: list[Button]

    @model_validator(mode="after")
    def _unique(self) -> PlaygroundPanel:
        _no_duplicates([b.id for b in self.buttons], "button")
        _no_duplicates([v.id for v in self.variants], "variant")
        return self

    def button(self, button_id: str) -> Button | None:
        return next((b for b in self.buttons if b.id == button_id), None)

    def variant(self, variant_id: str | None) -> Variant | None:
        if variant_id is None:
            return self.variants[0] if self.variants else None
        return next((v for v in self.variants if v.id == variant_id), None)

    def start_for(self, variant: Variant | None, era: Era | None = None) -> Start:
        options = {**self.start.options, **(variant.options if variant else {})}
        return self.start.model_copy(update={"options": options, "era": era or self.start.era})


class Step(Strict):
    title: str
    caption: str
    events: list[Event]


class StepperPanel(Strict):
    id: ID
    kind: Literal["stepper"]
    title: str
    start: Start
    steps: list[Step] = Field(min_length=1)


class Situation(Strict):
    id: ID
    label: str
    options: dict[str, bool | str] = Field(default_factory=dict)
    before: list[Event] = Field(default_factory=list)
    after: list[Event] = Field(default_factory=list)


class RestartLabPanel(Strict):
    id: ID
    kind: Literal["restart-lab"]
    title: str
    start: Start
    server: str
    situations: list[Situation] = Field(min_length=1)
    variants: list[Variant] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> RestartLabPanel:
        _no_duplicates([s.id for s in self.situations], "situation")
        _no_duplicates([v.id for v in self.variants], "variant")
        return self


Panel = Annotated[PlaygroundPanel | StepperPanel | RestartLabPanel, Field(discriminator="kind")]


class PanelFile(Strict):
    """The top level of one scenario file."""

    panel: Panel


def _no_duplicates(ids: list[str], what: str) -> None:
    seen = [i for n, i in enumerate(ids) if i in ids[:n]]
    if seen:
        raise ValueError(f"duplicate {what} id {seen[0]!r}")


def load_panels(root: Path) -> dict[str, PlaygroundPanel | StepperPanel | RestartLabPanel]:
    """Load and validate every ``scenarios/*.yaml`` under the content root."""
    from .content import ContentError, load_yaml_model

    panels: dict[str, PlaygroundPanel | StepperPanel | RestartLabPanel] = {}
    for path in sorted((root / "scenarios").glob("*.yaml")):
        panel = load_yaml_model(path, PanelModel)
        if panel.id in panels:
            raise ContentError(path, None, f"panel id {panel.id!r} is used twice")
        if panel.id != path.stem:
            raise ContentError(path, None, f"panel id {panel.id!r} must match the file name {path.stem!r}")
        _check_runs(path, panel)
        panels[panel.id] = panel
    return panels


class _PanelAdapter:
    """Lets ``load_yaml_model`` validate the union of panel kinds."""

    @staticmethod
    def model_validate(data: object) -> PlaygroundPanel | StepperPanel | RestartLabPanel:
        try:
            return PanelFile.model_validate({"panel": data}).panel
        except ValidationError as exc:
            # Report locations relative to the file: drop the wrapper key and the union's tag.
            kinds = {"playground", "stepper", "restart-lab"}
            errors = []
            for err in exc.errors():
                loc = list(err["loc"])[1:]
                if loc and loc[0] in kinds:
                    loc = loc[1:]
                errors.append({**err, "loc": tuple(loc)})
            raise ValidationError.from_exception_data(exc.title, errors) from None


PanelModel = _PanelAdapter


def _server_names(event: Event) -> set[str]:
    names = {getattr(event, f, None) for f in ("server", "gateway", "backend")}
    names |= {c.server for c in getattr(event, "calls", None) or []}
    return {n for n in names if n}


def _check_runs(path: Path, panel: PlaygroundPanel | StepperPanel | RestartLabPanel) -> None:
    """Play every scripted event once, and check every button names a server of its scenario, so a
    broken scenario fails at start-up rather than when a learner presses."""
    from .content import ContentError

    try:
        known = set(begin(panel.start).state.servers)

        def check(what: str, events: list[Event]) -> None:
            unknown = set().union(*(_server_names(e) for e in events)) - known if events else set()
            if unknown:
                raise ValueError(
                    f"{what} names {', '.join(sorted(unknown))}, which is not a server of scenario "
                    f"{panel.start.name!r} ({', '.join(sorted(known))})"
                )

        if isinstance(panel, StepperPanel):
            for n, step in enumerate(panel.steps, 1):
                check(f"step {n}", step.events)
            for era in ("legacy", "modern"):
                stepper_views(panel, era)
        elif isinstance(panel, RestartLabPanel):
            if panel.server not in known:
                raise ValueError(f"server {panel.server!r} is not in scenario {panel.start.name!r}")
            for situation in panel.situations:
                check(f"situation {situation.id!r}", situation.before + situation.after)
                restart_lab(panel, situation.id, [])
        else:
            for variant in panel.variants or [None]:
                begin(panel.start_for(variant))
            for button in panel.buttons:
                check(f"button {button.id!r}", [button.event])
    except (KeyError, ValueError) as exc:
        raise ContentError(path, None, f"the scenario does not play: {exc}") from exc


# --- what the panels compute -----------------------------------------------------------------


class StepView(Strict):
    number: int
    title: str
    caption: str
    view: View


def stepper_views(panel: StepperPanel, era: Era) -> list[StepView]:
    """Each step of a stepper: the view after its events, with everything the step said."""
    run = begin(panel.start.model_copy(update={"era": era}))
    out: list[StepView] = []
    for n, step in enumerate(panel.steps, 1):
        first = len(run.log)
        for event in step.events:
            run = advance(run, event)
        v = view(run)
        out.append(
            StepView(number=n, title=step.title, caption=step.caption, view=v.model_copy(update={"log": v.log[first:]}))
        )
    return out


class RestartSide(Strict):
    era: Era
    steps: list[dict]  # {label, lines, wire}
    view: View


class RestartResult(Strict):
    situation: str
    label: str
    variants: list[str]
    sides: list[RestartSide]


def restart_lab(panel: RestartLabPanel, situation_id: str, variant_ids: list[str]) -> RestartResult:
    """Set up the situation, restart the server, and show both eras side by side."""
    situation = next((s for s in panel.situations if s.id == situation_id), None)
    if situation is None:
        raise KeyError(f"unknown situation {situation_id!r}")
    variants = []
    for vid in variant_ids:
        v = next((x for x in panel.variants if x.id == vid), None)
        if v is None:
            raise KeyError(f"unknown variant {vid!r}")
        variants.append(v)
    options = {**panel.start.options, **situation.options}
    for v in variants:
        options.update(v.options)
    call_tool = next((v.call_tool for v in variants if v.call_tool), None)
    late = any(v.late_answer for v in variants)

    def adjust(e: Event) -> Event:
        if isinstance(e, StartCall) and call_tool:
            return e.model_copy(update={"tool": call_tool})
        if isinstance(e, UserAnswers) and late:
            return e.model_copy(update={"after_expiry": True})
        return e

    sides = []
    for era in ("legacy", "modern"):
        run: Run = begin(Start(name=panel.start.name, era=era, options=options))
        for e in situation.before:
            run = advance(run, adjust(e))
        first = len(run.log)
        steps = []
        for e in [RestartServer(server=panel.server), *situation.after]:
            run = advance(run, adjust(e))
            assert run.last is not None
            steps.append(
                {
                    "label": run.log[-1].label,
                    "lines": [line.model_dump() for line in run.last.lines],
                    "wire": [m.model_dump() for m in run.last.wire],
                }
            )
        v = view(run)
        sides.append(RestartSide(era=era, steps=steps, view=v.model_copy(update={"log": v.log[first:]})))
    return RestartResult(situation=situation.id, label=situation.label, variants=[v.id for v in variants], sides=sides)


__all__ = [
    "Button",
    "PlaygroundPanel",
    "Playground",
    "RestartLabPanel",
    "StepperPanel",
    "load_panels",
    "restart_lab",
    "stepper_views",
]
