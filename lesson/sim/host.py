"""The host's one rule: ``apply(state, event) -> (state, outcome)``.

Pure and deterministic: the input state is never changed, ids come from counters and hashes, and
every step says what happened, from the host's point of view (narration codes with values, put in words
from the message catalogue outside the simulation: ``lesson/narration.py``), along with the frames
in the order they cross. The event's own handler does the work (``events/``); the clients speak each
era (``clients/``), the transport frames it (``transport.py``), the servers live and die
(``servers.py``), and the prompt counts what changed (``prompt.py``).
"""

from __future__ import annotations

import dataclasses

from .events import HANDLERS, Event
from .model import State
from .prompt import count_change, prompt_keys
from .step import LogLine, Outcome, Rejected, Step


def apply(state: State, event: Event) -> tuple[State, Outcome]:
    """Apply one event. The input state is left untouched; a senseless press changes nothing but
    the step count and says why."""
    st = Step(state)
    st.s.step += 1
    # The prompt before the step; a turn accounts for the prompt's changes itself.
    before = None if event.kind in ("take_turn", "start_call") else prompt_keys(state)
    try:
        HANDLERS[event.kind](st, event)
    except Rejected as why:
        rejected = dataclasses.replace(state, step=state.step + 1)
        return rejected, Outcome(
            lines=[LogLine(code=why.code, params=why.params, tone="rejected")], wire=[], rejected=True
        )
    if before is not None:
        count_change(st, before)
    if not st.lines:
        st.say("narration.nothing_changed")
    return st.done(), Outcome(lines=st.lines, wire=st.frames, turn=st.turn)


__all__ = ["LogLine", "Outcome", "apply"]
