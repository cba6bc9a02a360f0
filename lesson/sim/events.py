"""Events: every press in the lesson is one of these named, serializable values."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from .model import Era, Role, Strict, ToolDef, Transport


class ToolCall(Strict):
    server: str
    tool: str
    arguments: dict[str, str] = Field(default_factory=dict)


class DeployTool(Strict):
    """A deploy or config reload adds a tool, from outside any request."""

    kind: Literal["deploy_tool"] = "deploy_tool"
    server: str
    tool: ToolDef | None = None  # None: the server's next upcoming tool


class RemoveTool(Strict):
    kind: Literal["remove_tool"] = "remove_tool"
    server: str
    tool: str


class AddServer(Strict):
    """An admin tells the host about a server: the protocol never discovers one."""

    kind: Literal["add_server"] = "add_server"
    server: str
    via: Literal["config", "admin console", "gateway"] = "config"


class RemoveServer(Strict):
    kind: Literal["remove_server"] = "remove_server"
    server: str


class ServerDies(Strict):
    kind: Literal["server_dies"] = "server_dies"
    server: str


class ServerBack(Strict):
    """The server's process is started again (a new generation)."""

    kind: Literal["server_back"] = "server_back"
    server: str
    transport: Transport | None = None  # None: as before


class RestartServer(Strict):
    """The process dies and a new one starts before anyone can react."""

    kind: Literal["restart_server"] = "restart_server"
    server: str


class TakeTurn(Strict):
    """The host calls the model; the model may call tools."""

    kind: Literal["take_turn"] = "take_turn"
    calls: list[ToolCall] | None = None  # None: the model carries on with each server's work


class StartCall(Strict):
    """The model calls a tool whose result has not come back yet."""

    kind: Literal["start_call"] = "start_call"
    server: str
    tool: str | None = None


class AskUserInput(Strict):
    """A tool needs the user to answer a question before it can finish."""

    kind: Literal["ask_user_input"] = "ask_user_input"
    server: str
    tool: str | None = None


class UserAnswers(Strict):
    kind: Literal["user_answers"] = "user_answers"
    server: str
    answer: str = "OR"
    after_expiry: bool = False  # the user took longer than the state's expiry


class ListenDrops(Strict):
    kind: Literal["listen_drops"] = "listen_drops"
    server: str


class TokenExpires(Strict):
    kind: Literal["token_expires"] = "token_expires"
    server: str


class TokenRefreshed(Strict):
    kind: Literal["token_refreshed"] = "token_refreshed"
    server: str


class SwitchEra(Strict):
    kind: Literal["switch_era"] = "switch_era"
    era: Era
    server: str | None = None  # None: every client


class BackendJoins(Strict):
    kind: Literal["backend_joins"] = "backend_joins"
    gateway: str
    backend: str


class BackendLeaves(Strict):
    kind: Literal["backend_leaves"] = "backend_leaves"
    gateway: str
    backend: str


class BackendFailsHealthCheck(Strict):
    kind: Literal["backend_fails"] = "backend_fails"
    gateway: str
    backend: str


class BackendRecovers(Strict):
    kind: Literal["backend_recovers"] = "backend_recovers"
    gateway: str
    backend: str


class CreateBasket(Strict):
    kind: Literal["create_basket"] = "create_basket"
    server: str


class AddItem(Strict):
    kind: Literal["add_item"] = "add_item"
    server: str
    sku: str = "A-100"
    basket_id: str | None = None  # None: the last handle the model was given


class LandOnReplica(Strict):
    """A load balancer sends the next calls to another replica of the server."""

    kind: Literal["land_on_replica"] = "land_on_replica"
    server: str
    replica: int = 2


class UndeclaredListChanged(Strict):
    """The server sends list_changed although it never declared tools.listChanged."""

    kind: Literal["undeclared_list_changed"] = "undeclared_list_changed"
    server: str


class TimerListChanged(Strict):
    """The server fires list_changed on a timer, with nothing changed."""

    kind: Literal["timer_list_changed"] = "timer_list_changed"
    server: str


class SetBatching(Strict):
    kind: Literal["set_batching"] = "set_batching"
    on: bool


class Reauthenticate(Strict):
    """The user signs in again with other permissions; the tool list may vary by authorization."""

    kind: Literal["reauthenticate"] = "reauthenticate"
    server: str
    role: Role


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


def parse_event(data: object) -> Event:
    """Validate a JSON-like value as an event (raises pydantic.ValidationError)."""
    return EVENT.validate_python(data)
