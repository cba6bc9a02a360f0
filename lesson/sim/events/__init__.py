"""Events: every press in the lesson is one of these named, serializable values.

Each family module declares its event classes (each said as ``narration.event.<kind>``) and registers each class's
handler beside it. The kinds are a saved format (panel and scenario files and ``lesson trace``'s JSON
name them; pages keep and share button ids, not events): new kinds may be added, none renamed.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, TypeAdapter

from ..model import ToolCall
from .auth import Reauthenticate, TokenExpires, TokenRefreshed
from .backends import BackendFailsHealthCheck, BackendJoins, BackendLeaves, BackendRecovers
from .base import CLASSES, HANDLERS, EventBase
from .calls import StartCall, TakeTurn
from .churn import AddServer, DeployTool, RemoveServer, RemoveTool, RestartServer, ServerBack, ServerDies
from .handles import AddItem, CreateBasket, LandOnReplica
from .input import AskUserInput, UserAnswers
from .streams import ListenDrops, SetBatching, SwitchEra, TimerListChanged, UndeclaredListChanged

Event = Annotated[
    DeployTool
    | RemoveTool
    | AddServer
    | RemoveServer
    | ServerDies
    | ServerBack
    | RestartServer
    | TakeTurn
    | StartCall
    | AskUserInput
    | UserAnswers
    | ListenDrops
    | TokenExpires
    | TokenRefreshed
    | SwitchEra
    | BackendJoins
    | BackendLeaves
    | BackendFailsHealthCheck
    | BackendRecovers
    | CreateBasket
    | AddItem
    | LandOnReplica
    | UndeclaredListChanged
    | TimerListChanged
    | SetBatching
    | Reauthenticate,
    Field(discriminator="kind"),
]

EVENT = TypeAdapter(Event)
EVENTS = TypeAdapter(list[Event])

# Every class in the union has a handler, and every handler's class is in the union.
assert {c.model_fields["kind"].default for c in CLASSES} == set(HANDLERS)
assert set(CLASSES) == set(Event.__origin__.__args__), "an event class is registered but not in Event"  # type: ignore[attr-defined]


def parse_event(data: object) -> Event:
    """Validate a JSON-like value as an event (raises pydantic.ValidationError)."""
    return EVENT.validate_python(data)


__all__ = [
    "EVENT",
    "EVENTS",
    "HANDLERS",
    "AddItem",
    "AddServer",
    "AskUserInput",
    "BackendFailsHealthCheck",
    "BackendJoins",
    "BackendLeaves",
    "BackendRecovers",
    "CreateBasket",
    "DeployTool",
    "Event",
    "EventBase",
    "LandOnReplica",
    "ListenDrops",
    "Reauthenticate",
    "RemoveServer",
    "RemoveTool",
    "RestartServer",
    "ServerBack",
    "ServerDies",
    "SetBatching",
    "StartCall",
    "SwitchEra",
    "TakeTurn",
    "TimerListChanged",
    "TokenExpires",
    "TokenRefreshed",
    "ToolCall",
    "UndeclaredListChanged",
    "UserAnswers",
    "parse_event",
]
