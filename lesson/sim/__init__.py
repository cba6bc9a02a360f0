"""The simulation: an in-memory MCP host with simulated servers, in both protocol eras.

Pure and deterministic: no Flask, no I/O, no clock, no randomness. ``apply(state, event)``
returns the next state and what happened; a playground is a named start plus events.
"""

from .events import EVENT, EVENTS, Event, parse_event
from .host import Outcome, apply
from .model import State
from .run import Playground, Run, advance, advance_all, at_step, begin, run_from_start, runs, undo, view
from .starts import STARTS, Start, start
from .view import View, build_view

__all__ = [
    "EVENT",
    "EVENTS",
    "Event",
    "Outcome",
    "Playground",
    "Run",
    "STARTS",
    "Start",
    "State",
    "View",
    "advance",
    "advance_all",
    "apply",
    "at_step",
    "begin",
    "build_view",
    "parse_event",
    "run_from_start",
    "runs",
    "start",
    "undo",
    "view",
]
