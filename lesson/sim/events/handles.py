"""Explicit state handles: the model creates a basket and adds to it; calls land on replicas."""

from __future__ import annotations

from typing import Literal

from ..model import ToolCall
from ..step import Rejected, Step, count, msg
from .base import EventBase, handles
from .calls import call_tool, deliver


def _basket_call(st: Step, server: str, tool: str, args: dict[str, str]) -> None:
    c = st.client(server)
    if not any(t.name == tool for t in c.tools):
        raise Rejected("refusal.tool_not_offered", server=server, tool=tool)
    rec = call_tool(st, ToolCall(server=server, tool=tool, arguments=args))
    deliver(st, rec)
    srv = st.s.servers[server]
    where = (
        msg("narration.where.durable_store")
        if srv.handles_durable
        else msg("narration.where.replica_memory", replica=srv.replica)
    )
    if rec.is_error:
        st.say("narration.basket_call_failed", "failed", tool=tool, result=rec.text)
    else:
        st.say("narration.basket_call", "model", tool=tool, where=where, result=rec.text)


class CreateBasket(EventBase):
    kind: Literal["create_basket"] = "create_basket"
    server: str


@handles(CreateBasket)
def _create_basket(st: Step, e: CreateBasket) -> None:
    _basket_call(st, e.server, "create_basket", {"customer": "learner"})


class AddItem(EventBase):
    kind: Literal["add_item"] = "add_item"
    server: str
    sku: str = "A-100"
    basket_id: str | None = None  # None: the last handle the model was given


@handles(AddItem)
def _add_item(st: Step, e: AddItem) -> None:
    handle = e.basket_id or (st.s.host.handles[-1] if st.s.host.handles else None)
    if handle is None:
        raise Rejected("refusal.no_basket_yet")
    _basket_call(st, e.server, "add_item", {"basket_id": handle, "sku": e.sku})


class LandOnReplica(EventBase):
    """A load balancer sends the next calls to another replica of the server."""

    kind: Literal["land_on_replica"] = "land_on_replica"
    server: str
    replica: int = 2


@handles(LandOnReplica)
def _replica(st: Step, e: LandOnReplica) -> None:
    srv = st.srv(e.server)
    if not 1 <= e.replica <= srv.replicas:
        raise Rejected("refusal.no_such_replica", server=e.server, replicas=count(srv.replicas, "replica"))
    if srv.replica == e.replica:
        raise Rejected("refusal.already_on_replica", replica=e.replica)
    srv.replica = e.replica
    st.say("narration.replica_switched", "change", server=e.server, replica=e.replica)
