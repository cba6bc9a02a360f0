"""A stepper's moments: the view after each moment's events, with everything that moment said (the
content file lists them under ``steps``; the page calls each a moment, which may hold several steps of
the log). A moment's table and account speak of moments only: a server's last change names the moment
it came in, not the log's step, so the learner meets one count, not two."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lesson.sim import advance_all, begin, view
from lesson.sim.model import Era, Strict
from lesson.sim.view import View, in_moments

if TYPE_CHECKING:  # panels.py replays every panel with this module as it loads it
    from .panels import StepperPanel


class MomentView(Strict):
    number: int
    title: str | None  # none: the page numbers the moment only
    caption: str
    view: View


def moment_views(panel: StepperPanel, era: Era) -> list[MomentView]:
    """Each moment of a stepper: the view after its events, with everything the moment said (in words
    where it is written out: ``model_dump(context=narration.words(locale))``)."""
    run = begin(panel.start.model_copy(update={"era": era}))
    out: list[MomentView] = []
    moment_of: dict[int, int] = {}  # the log's step -> the moment it belongs to
    for n, moment in enumerate(panel.steps, 1):
        first = len(run.log)
        run = advance_all(run, moment.events)
        v = view(run)
        moment_of.update((s.step, n) for s in v.log[first:])
        rows = [r.model_copy(update={"last_change": in_moments(r.last_change, moment_of)}) for r in v.servers]
        shown = v.model_copy(update={"log": v.log[first:], "servers": rows})
        out.append(MomentView(number=n, title=moment.title, caption=moment.caption, view=shown))
    return out
