"""What every event is: a named, serializable press, said in the log's headings as ``narration.event.<kind>``
filled with its fields; and the registry that maps each event kind to the handler declared beside it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from ..model import Strict
from ..step import Said, Step, word

# Fields a heading names as a word of the simulation's vocabulary (``word``); a switch (a bool) is on or off.
_WORDS = {"role": "role", "via": "via", "era": "era_name"}


class EventBase(Strict):
    def describe(self) -> Said:
        """What was pressed, as the log's heading says it (``narration.event.<kind>``). Its values are
        the event's fields as held (a model_dump would serialise every nested model for a heading that
        names none); the calls a turn makes and a deployed tool's definition are not among them."""
        params: dict[str, Any] = {}
        kind = ""
        for key, value in self:  # a model iterates as (field, value) pairs
            if key == "kind":
                kind = value
                continue
            if value is None or isinstance(value, list | BaseModel):
                continue
            if isinstance(value, bool):
                value = word("switch", "on" if value else "off")
            elif key in _WORDS:
                value = word(_WORDS[key], value)
            params[key] = value
        return Said(code=f"narration.event.{kind}", params=params)


HANDLERS: dict[str, Callable[[Step, Any], None]] = {}
CLASSES: list[type[EventBase]] = []

E = TypeVar("E", bound=EventBase)


def handles(cls: type[E]) -> Callable[[Callable[[Step, E], None]], Callable[[Step, E], None]]:
    """Register ``fn`` as the handler of ``cls``: an event and its rule are declared together."""

    def register(fn: Callable[[Step, E], None]) -> Callable[[Step, E], None]:
        kind = cls.model_fields["kind"].default
        assert kind not in HANDLERS, f"two handlers for {kind}"
        HANDLERS[kind] = fn
        CLASSES.append(cls)
        return fn

    return register
