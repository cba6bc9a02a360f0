"""What every event is: a named, serializable press that carries its own label; and the registry
that maps each event kind to the handler declared beside it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from ..model import Strict
from ..step import Step


class EventBase(Strict):
    label: ClassVar[str]  # for the log, in the lesson's words; fields fill {placeholders}

    def describe(self) -> str:
        # The fields as held (a model_dump would serialise every nested model for a label that names none).
        fields = {k: ("on" if v is True else "off" if v is False else v) for k, v in self.__dict__.items()}
        if fields.get("tool") is None:
            fields["tool"] = "a tool"
        elif isinstance(fields["tool"], Strict):
            fields["tool"] = fields["tool"].name
        text = self.label.format_map(fields)
        return text[0].upper() + text[1:]


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
