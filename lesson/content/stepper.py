"""A stepper's moments: the view after each step's events, with everything that step said."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lesson.sim import advance_all, begin, view
from lesson.sim.model import Era, Strict
from lesson.sim.view import View

if TYPE_CHECKING:  # panels.py replays every panel with this module as it loads it
    from .panels import StepperPanel


class StepView(Strict):
    number: int
    title: str
    caption: str
    view: View


def stepper_views(panel: StepperPanel, era: Era) -> list[StepView]:
    """Each step of a stepper: the view after its events, with everything the step said (in words where
    it is written out: ``model_dump(context=narration.words(locale))``)."""
    run = begin(panel.start.model_copy(update={"era": era}))
    out: list[StepView] = []
    for n, step in enumerate(panel.steps, 1):
        first = len(run.log)
        run = advance_all(run, step.events)
        v = view(run)
        out.append(
            StepView(number=n, title=step.title, caption=step.caption, view=v.model_copy(update={"log": v.log[first:]}))
        )
    return out
