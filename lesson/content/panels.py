"""Interactive panels as data: which start each panel plays, the event behind each of its buttons,
which views it shows, its goal and its staged hints. Loaded from ``content/panels/*.yaml`` and validated at start-up.

The web layer never builds an event itself: a press names a button, and the panel says what it
means. A new panel is a new YAML file plus a ``::: id`` line in a lesson: the page renders it with the
shared template of its kind unless ``templates/widgets/<id>.html`` exists.

What a stepper shows at each moment is computed in ``stepper.py``, a restart lab's two eras in
``restart_lab.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError, model_validator

from lesson.sim import Event, Playground, Start, advance, begin
from lesson.sim.model import ERAS, Era, Strict
from lesson.sim.spelling import did_you_mean

from .base import ID, ID_PATTERN, At, no_duplicates
from .goals import Condition, Goal
from .names import (
    declared_server_problems,
    deployed,
    start_described,
    unknown_condition_servers,
    unknown_servers,
    unknown_tools,
)
from .restart_lab import restart_lab
from .stepper import moment_views
from .yamlfile import ContentError, YamlDoc, load_yaml_file

# A button's id is written once per press in a page's log and a task's line: short enough that a full
# playground (MAX_EVENTS presses) fits in a frame (LESSON_MAX_FRAME_BYTES) and a line (tasks.MAX_LINE).
BUTTON_ID_MAX = 20
ButtonId = Annotated[str, Field(pattern=ID_PATTERN, max_length=BUTTON_ID_MAX)]
Label = Annotated[str, Field(min_length=1)]
ViewName = Literal["servers", "prompt", "log", "comparison", "wire", "handles"]
# The views a playground shows when its file does not say; "handles" (baskets and replicas) only on request.
VIEWS: tuple[ViewName, ...] = ("servers", "prompt", "log", "comparison", "wire")


class Button(Strict):
    id: Annotated[
        ButtonId,
        Field(description="the button's id: what a press, a scenario's 'press' and a task's 'solution' name"),
    ]
    label: Annotated[Label, Field(description="the button's text")]
    event: Annotated[Event, Field(description="what a press does in the simulation (see Events in docs/content.md)")]


class Variant(Strict):
    id: Annotated[ID, Field(description="the variant's id")]
    label: Annotated[Label, Field(description="the variant's name in the choice the learner makes")]
    options: dict[str, bool | str] = Field(
        description="start options this variant sets (a start's switches, e.g. transport: stdio)", default_factory=dict
    )
    call_tool: Annotated[str | None, Field(description="restart lab: the tool the call in flight uses")] = None
    late_answer: Annotated[
        bool, Field(description="restart lab: the user answers after the server's state for the call expired")
    ] = False


class PredictChoice(Strict):
    id: Annotated[ID, Field(description="the choice's id, which the prediction's 'answer' names")]
    text: Annotated[Label, Field(description="what the learner reads and picks")]


class Prediction(Strict):
    """Ask before showing: the learner picks an answer, then the press of ``button`` reveals what happens
    and the explanation says why."""

    button: ID = Field(description="the button whose press reveals the answer")
    after: ID | None = Field(
        default=None, description="ask only once this button has been pressed (the moment the question is about)"
    )
    variant: ID | None = Field(
        default=None, description="ask only in this variant (one whose premise the other variants change)"
    )
    when: Condition | None = Field(
        default=None,
        description="ask only while this holds in the playground's view (the question's premise: A is down)",
    )
    question: Annotated[Label, Field(description="asked before the press: what will happen?")]
    choices: Annotated[
        list[PredictChoice], Field(description="two to five answers to pick from", min_length=2, max_length=5)
    ]
    answer: ID = Field(description="the id of the right choice")
    explanation: Label = Field(description="why the right choice is right and the others are not")

    @model_validator(mode="after")
    def _answer_is_a_choice(self) -> Prediction:
        ids = [c.id for c in self.choices]
        no_duplicates(ids, "choice", ("choices",))
        if self.answer not in ids:
            raise ValueError(f"answer {self.answer!r} is not one of the choices {', '.join(ids)}")
        if self.after == self.button:
            raise ValueError("a prediction cannot wait for the button that reveals it")
        return self


class PlaygroundPanel(Strict):
    """A playground: buttons that fire events on a start, and the views it shows after each."""

    id: Annotated[ID, Field(description="the panel's id, the file's name, and what '::: <id>' in a lesson names")]
    kind: Annotated[Literal["playground"], Field(description="a playground: buttons the learner presses on a start")]
    title: Annotated[Label, Field(description="the panel's heading")]
    start: Annotated[Start, Field(description="where the playground starts: a named start, its era and its options")]
    era_choice: Annotated[
        bool, Field(description="whether the learner may switch between the legacy and modern era")
    ] = True
    variants: list[Variant] = Field(
        description="alternative starts (each with id, label, options), offered as a choice", default_factory=list
    )
    variants_legend: Label | None = Field(default=None, description='the variants\' legend; by default "Variant"')
    variants_era: Era | None = Field(
        default=None,
        description="the one era in which the variants make a difference: in the other the choice is off and says so",
    )
    buttons: Annotated[
        list[Button], Field(description="the presses offered; a press names the button, never the event", min_length=1)
    ]
    shows: list[ViewName] = Field(default_factory=lambda: list(VIEWS), description="the views shown, in this order")
    titles: dict[ViewName, Label] = Field(default_factory=dict, description="headings that replace a view's default")
    goal: Annotated[
        Goal | None, Field(description="what the learner is asked to reach: text, and when, a condition over the view")
    ] = None
    hints: Annotated[list[Label], Field(min_length=1, max_length=3)] = Field(
        default_factory=list,
        description="hints in stages, shown one at a time: a nudge first, the full solution last",
    )
    predictions: list[Prediction] = Field(default_factory=list, description="questions asked before a press")

    @model_validator(mode="after")
    def _unique(self) -> PlaygroundPanel:
        no_duplicates([b.id for b in self.buttons], "button", ("buttons",))
        no_duplicates([p.button for p in self.predictions], "prediction button", ("predictions",))
        buttons = {b.id for b in self.buttons}
        for n, p in enumerate(self.predictions):
            for key, name in (("button", p.button), ("after", p.after)):
                if name is not None and name not in buttons:
                    hint = did_you_mean(name, sorted(buttons))
                    raise At(("predictions", n, key), f"{key} {name!r} is not a button of this panel{hint}")
            if p.variant is not None and p.variant not in {v.id for v in self.variants}:
                hint = did_you_mean(p.variant, [v.id for v in self.variants])
                raise At(("predictions", n, "variant"), f"variant {p.variant!r} is not one of this panel's{hint}")
        no_duplicates([v.id for v in self.variants], "variant", ("variants",))
        no_duplicates(list(self.shows), "view", ("shows",))
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


class Moment(Strict):
    """One moment of a stepper: what it is called, what it shows, and the events that bring it about."""

    title: Annotated[Label | None, Field(description="the moment's heading (none: the page numbers it only)")] = None
    caption: Annotated[Label, Field(description="what the moment shows, in a sentence or two")]
    events: Annotated[list[Event], Field(description="the events played at this moment, in order")]


class StepperPanel(Strict):
    """Moments shown one at a time: written inline as ``steps``, or taken from ``scenarios/<scenario>.yaml``."""

    id: Annotated[ID, Field(description="the panel's id, the file's name, and what '::: <id>' in a lesson names")]
    kind: Annotated[Literal["stepper"], Field(description="a stepper: moments shown one at a time")]
    title: Annotated[Label, Field(description="the panel's heading")]
    start: Annotated[Start | None, Field(description="where the moments start (needed with inline steps)")] = None
    steps: list[Moment] = Field(
        description="the moments, written inline (with a start); or use 'scenario'", default_factory=list
    )
    scenario: Annotated[
        ID | None, Field(description="the id of a scenario file (scenarios/<id>.yaml) whose steps are the moments")
    ] = None

    @model_validator(mode="after")
    def _one_source(self) -> StepperPanel:
        if (self.scenario is None) == (not self.steps):
            has = "neither" if self.scenario is None else "both"
            raise ValueError(f"a stepper has either steps (with a start) or a scenario: this one has {has}")
        if self.steps and self.start is None:
            raise ValueError("a stepper with steps needs a start")
        return self


class Situation(Strict):
    id: Annotated[ID, Field(description="the situation's id")]
    label: Annotated[Label, Field(description="the situation's name on its button")]
    options: dict[str, bool | str] = Field(description="start options the situation sets", default_factory=dict)
    before: list[Event] = Field(
        description="events played before the restart, to set the situation up", default_factory=list
    )
    after: list[Event] = Field(
        description="events played after the restart, to show what survived", default_factory=list
    )
    note: Label | None = Field(
        default=None, description="a line shown with the situation's result (which option makes it differ)"
    )


class LabQuestion(Strict):
    """A question the lab asks before a restart: the learner guesses, sets the lab up (``situation`` and
    ``variants``), restarts, and checks the guess against ``answer``, shown with the result it explains."""

    situation: ID = Field(description="the situation the question is about")
    variants: list[ID] = Field(default_factory=list, description="the options ticked for it (none by default)")
    question: Annotated[Label, Field(description="asked before the restart: what will it cost?")]
    answer: Annotated[Label, Field(description="what the result shows, and why; shown with that result")]


# What a variant needs of a situation to change it (restart lab): a variant that swaps the tool of the
# call in flight needs a call in flight; one about a late answer needs an answer; one about verifying
# requestState needs an input request. Other variants change every situation.
NEEDS = {"call_tool": "start_call", "late_answer": "user_answers", "state_key_durable": "ask_user_input"}
# An HTTP server's options: over stdio there is no session id, no stored SSE event and no token.
HTTP_ONLY = ("issues_session_id", "sessions_durable", "event_store", "auth_in_process")


class RestartLabPanel(Strict):
    id: Annotated[ID, Field(description="the panel's id, the file's name, and what '::: <id>' in a lesson names")]
    kind: Annotated[
        Literal["restart-lab"],
        Field(description="a restart lab: situations side by side in both eras, each restarting one server"),
    ]
    title: Annotated[Label, Field(description="the panel's heading")]
    start: Annotated[Start, Field(description="where each situation starts")]
    server: Annotated[str, Field(description="the server that restarts (a server of the start)")]
    situations: list[Situation] = Field(description="the situations offered, each a button", min_length=1)
    variants: list[Variant] = Field(description="alternative starts, offered as a choice", default_factory=list)
    questions: list[LabQuestion] = Field(
        default_factory=list, description="questions to guess before a restart, in the order they are asked"
    )

    @model_validator(mode="after")
    def _unique(self) -> RestartLabPanel:
        no_duplicates([s.id for s in self.situations], "situation", ("situations",))
        no_duplicates([v.id for v in self.variants], "variant", ("variants",))
        situations, variants = [s.id for s in self.situations], [v.id for v in self.variants]
        for n, q in enumerate(self.questions):
            if q.situation not in situations:
                hint = did_you_mean(q.situation, situations)
                raise At(("questions", n, "situation"), f"situation {q.situation!r} is not one of this lab's{hint}")
            for k, v in enumerate(q.variants):
                if v not in variants:
                    raise At(
                        ("questions", n, "variants", k),
                        f"variant {v!r} is not one of this lab's{did_you_mean(v, variants)}",
                    )
            no_duplicates(q.variants, "variant", ("questions", n, "variants"))
            for v in q.variants:
                variant = next(x for x in self.variants if x.id == v)
                if q.situation not in self.applies(variant):
                    raise At(("questions", n, "variants"), f"variant {v!r} changes nothing while {q.situation!r}")
            ticked = [x for x in self.variants if x.id in q.variants]
            if any(self.over_stdio(x) for x in ticked) and any(self.http_only(x) for x in ticked):
                raise At(("questions", n, "variants"), "an HTTP server's option cannot be ticked with stdio")
        # The result of a restart shows the one question about its set-up: two about one set-up cannot both be.
        no_duplicates(
            [f"{q.situation} with {', '.join(sorted(q.variants)) or 'no option'}" for q in self.questions],
            "question's set-up",
            ("questions",),
        )
        return self

    def applies(self, variant: Variant) -> list[str]:
        """The situations ``variant`` can change: those with the event it needs (``NEEDS``), or all."""
        needed = [NEEDS["call_tool"]] if variant.call_tool else []
        needed += [NEEDS["late_answer"]] if variant.late_answer else []
        needed += [NEEDS[key] for key in variant.options if key in NEEDS]
        kinds = {s.id: {e.kind for e in [*s.before, *s.after]} for s in self.situations}
        return [s.id for s in self.situations if all(k in kinds[s.id] for k in needed)]

    @staticmethod
    def http_only(variant: Variant) -> bool:
        """Whether ``variant`` sets an HTTP server's option, which changes nothing over stdio."""
        return any(key in HTTP_ONLY for key in variant.options)

    @staticmethod
    def over_stdio(variant: Variant) -> bool:
        return variant.options.get("transport") == "stdio"

    def question_for(self, situation: str, variants: list[str]) -> LabQuestion | None:
        """The question about a restart of ``situation`` with exactly these options ticked, if there is one."""
        return next(
            (q for q in self.questions if q.situation == situation and sorted(q.variants) == sorted(variants)), None
        )


AnyPanel = PlaygroundPanel | StepperPanel | RestartLabPanel
Panel = Annotated[AnyPanel, Field(discriminator="kind")]


class PanelFile(Strict):
    """The top level of one panel file."""

    panel: Panel


class _PanelAdapter:
    """Lets ``load_yaml_model`` validate the union of panel kinds."""

    @staticmethod
    def model_json_schema() -> dict[str, Any]:
        return TypeAdapter(Panel).json_schema()

    @staticmethod
    def model_validate(data: object) -> AnyPanel:
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


def load_panel(path: Path) -> tuple[AnyPanel, YamlDoc]:
    """Read and validate one panel file (no replay); raises ContentError."""
    return load_yaml_file(path, PanelModel)


def check_panel(path: Path, doc: YamlDoc, panel: AnyPanel) -> list[ContentError]:
    """Play every scripted event once and check every event names a server of its start, so a broken
    panel fails at start-up (and in ``lesson check``) rather than when a learner presses."""
    out: list[ContentError] = []

    def problem(loc: tuple[int | str, ...], message: str) -> None:
        out.append(ContentError(path, doc.line(loc), message))

    assert panel.start is not None
    if not (isinstance(panel, StepperPanel) and panel.scenario):  # a scenario file's start is checked there
        out.extend(declared_server_problems(doc, path, panel.start, ("start",)))
        if out:
            return out
    try:
        begin(panel.start)
    except (KeyError, ValueError) as exc:
        problem(("start",), f"the start does not play: {exc.args[0] if exc.args else exc}")
        return out
    if isinstance(panel, StepperPanel):
        for n, step in enumerate(panel.steps):
            also = deployed([e for x in panel.steps for e in x.events])
            if why := unknown_servers(panel.start, step.events) or unknown_tools(panel.start, step.events, also):
                problem(("steps", n), f"step {n + 1} {why}")
        if not out:
            try:
                for era in ERAS:
                    moment_views(panel, era)
            except (KeyError, ValueError) as exc:
                problem(("steps",), f"the steps do not replay: {exc}")
    elif isinstance(panel, RestartLabPanel):
        if panel.server not in begin(panel.start).state.servers:
            known = sorted(begin(panel.start).state.servers)
            problem(
                ("server",),
                f"server {panel.server!r} is not a server of {start_described(panel.start)} ({', '.join(known)})"
                + did_you_mean(panel.server, known),
            )
            return out
        for n, situation in enumerate(panel.situations):
            events = situation.before + situation.after
            if why := unknown_servers(panel.start, events) or unknown_tools(panel.start, events):
                problem(("situations", n), f"situation {situation.id!r} {why}")
                continue
            try:
                restart_lab(panel, situation.id, [])
            except (KeyError, ValueError) as exc:
                problem(("situations", n), f"situation {situation.id!r} does not replay: {exc}")
    else:
        for n, variant in enumerate(panel.variants or [None]):
            try:
                begin(panel.start_for(variant))
            except (KeyError, ValueError) as exc:
                problem(("variants", n) if variant else ("start",), f"the start does not play: {exc}")
        if panel.goal is not None:
            for loc, why in unknown_condition_servers(panel.start, panel.goal.when, ("goal", "when"), "the goal"):
                problem(loc, why)
        for n, p in enumerate(panel.predictions):
            if p.when is not None:
                said = f"the prediction on {p.button!r}"
                for loc, why in unknown_condition_servers(panel.start, p.when, ("predictions", n, "when"), said):
                    problem(loc, why)
        for n, button in enumerate(panel.buttons):
            also = deployed([b.event for b in panel.buttons])
            if why := unknown_servers(panel.start, [button.event]) or unknown_tools(panel.start, [button.event], also):
                problem(("buttons", n, "event"), f"button {button.id!r} {why}")
                continue
            try:
                advance(begin(panel.start), button.event)
            except (KeyError, ValueError) as exc:
                problem(("buttons", n, "event"), f"button {button.id!r} does not play: {exc}")
    return out


__all__ = [
    "AnyPanel",
    "Button",
    "VIEWS",
    "check_panel",
    "load_panel",
    "PlaygroundPanel",
    "Playground",
    "RestartLabPanel",
    "StepperPanel",
]
