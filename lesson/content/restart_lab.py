"""A restart lab's run: a situation set up, its server restarted, and what survived, in both eras side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lesson import narration
from lesson.i18n import DEFAULT
from lesson.sim import Event, Run, advance_all, begin, runs, view
from lesson.sim.events import RestartServer, StartCall, UserAnswers
from lesson.sim.model import ERAS, Era, Strict
from lesson.sim.view import View

if TYPE_CHECKING:  # panels.py replays every panel with this module as it loads it
    from .panels import RestartLabPanel


class RestartSide(Strict):
    era: Era
    steps: list[dict]  # {step, label, lines, wire}: ``step`` is the number the table's "last change" uses
    view: View


class RestartResult(Strict):
    situation: str
    label: str
    note: str | None  # the situation's own line for its result (content), if it has one
    variants: list[str]
    setup: list[dict]  # {step, label}: the steps that set the situation up before the restart (both eras')
    sides: list[RestartSide]
    # The lab's question about this very set-up, if it asks one, and its answer: shown with the result,
    # where the learner checks the guess made before restarting (content).
    question: str | None = None
    answer: str | None = None


def restart_lab(
    panel: RestartLabPanel, situation_id: str, variant_ids: list[str], locale: str = DEFAULT
) -> RestartResult:
    """Set up the situation, restart the server, and show both eras side by side."""
    situation = next((s for s in panel.situations if s.id == situation_id), None)
    if situation is None:
        known = ", ".join(s.id for s in panel.situations)
        raise LookupError(f"situation: this lab has no situation {situation_id!r}; its situations are: {known}")
    variants = []
    for vid in variant_ids:
        v = next((x for x in panel.variants if x.id == vid), None)
        if v is None:
            known = ", ".join(x.id for x in panel.variants)
            raise LookupError(f"variants: this lab has no variant {vid!r}; its variants are: {known}")
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

    said = narration.words(locale)
    sides, setup = [], []
    for era in ERAS:
        start = begin(panel.start.model_copy(update={"era": era, "options": options}))
        before = advance_all(start, map(adjust, situation.before))
        first = len(before.log)
        if not sides:
            # The situation's own presses (a call started), numbered as the steps after them are: the same
            # events, so the same labels, in both eras: named once.
            setup = [{"step": e.step, "label": e.label.model_dump(context=said)} for e in before.log[1:]]
        steps = []
        run: Run = before
        for run in runs(before, map(adjust, [RestartServer(server=panel.server), *situation.after])):
            assert run.last is not None
            steps.append(
                {
                    "step": run.log[-1].step,
                    "label": run.log[-1].label.model_dump(context=said),
                    "lines": [line.model_dump(context=said) for line in run.last.lines],
                    "wire": [m.model_dump(context=said) for m in run.last.wire],
                }
            )
        v = view(run)  # its words are written where the result is sent (the service's answer)
        sides.append(RestartSide(era=era, steps=steps, view=v.model_copy(update={"log": v.log[first:]})))
    asked = panel.question_for(situation.id, [v.id for v in variants])
    return RestartResult(
        question=asked and asked.question,
        answer=asked and asked.answer,
        situation=situation.id,
        label=situation.label,
        note=situation.note,
        variants=[v.id for v in variants],
        setup=setup,
        sides=sides,
    )
