"""Servers come, go, change their tools, die, come back and restart."""

from __future__ import annotations

from typing import Literal

from .. import servers
from ..clients import client_for
from ..gateway import front
from ..model import Client, ToolDef, Transport
from ..notify import tools_changed
from ..step import Rejected, Step, changed, msg, word
from .base import EventBase, handles


class DeployTool(EventBase):
    """A deploy or config reload adds a tool, from outside any request."""

    kind: Literal["deploy_tool"] = "deploy_tool"
    server: str
    tool: ToolDef | None = None  # None: the server's next upcoming tool


@handles(DeployTool)
def _deploy(st: Step, e: DeployTool) -> None:
    srv = st.srv(e.server)
    tool = e.tool or (srv.upcoming[0] if srv.upcoming else None)
    if tool is None:
        raise Rejected("refusal.nothing_to_deploy", server=e.server)
    if any(t.name == tool.name for t in srv.tools):
        raise Rejected("refusal.already_offers", server=e.server, tool=tool.name)
    if not srv.up:
        raise Rejected("refusal.deploy_while_down", server=e.server)
    srv.upcoming = [t for t in srv.upcoming if t.name != tool.name]
    srv.tools.append(tool)
    st.say("narration.tool_deployed", "change", server=e.server, tool=tool.name)
    tools_changed(st, front(st, e.server), msg("narration.why.tool_added", tool=tool.name))


class RemoveTool(EventBase):
    kind: Literal["remove_tool"] = "remove_tool"
    server: str
    tool: str


@handles(RemoveTool)
def _remove_tool(st: Step, e: RemoveTool) -> None:
    srv = st.srv(e.server)
    if not any(t.name == e.tool for t in srv.tools):
        raise Rejected("refusal.no_such_tool", server=e.server, tool=e.tool)
    if not srv.up:
        raise Rejected("refusal.server_down", server=e.server)
    srv.tools = [t for t in srv.tools if t.name != e.tool]
    st.say("narration.tool_removed", "change", server=e.server, tool=e.tool)
    tools_changed(st, front(st, e.server), msg("narration.why.tool_removed", tool=e.tool))


class AddServer(EventBase):
    """An admin tells the host about a server: the protocol never discovers one."""

    kind: Literal["add_server"] = "add_server"
    server: str
    via: Literal["config", "admin console", "gateway"] = "config"


@handles(AddServer)
def _add_server(st: Step, e: AddServer) -> None:
    srv = st.srv(e.server)
    if e.server in st.s.host.configured:
        raise Rejected("refusal.already_configured", server=e.server)
    if srv.behind:
        raise Rejected("refusal.behind_gateway", server=e.server, behind=srv.behind)
    st.s.host.configured.append(e.server)
    c = Client(server=e.server, era=st.s.host.era, token_serial=st.s.host.token_serials.pop(e.server, 0) + 1)
    st.s.host.clients[e.server] = c
    st.say("narration.server_added", "change", server=e.server, title=srv.title, via=word("via", e.via))
    client_for(st, c).connect()
    c.last_change = changed(st.s.step, msg("narration.table.added"))


class RemoveServer(EventBase):
    kind: Literal["remove_server"] = "remove_server"
    server: str


@handles(RemoveServer)
def _remove_server(st: Step, e: RemoveServer) -> None:
    c = st.client(e.server)
    client = client_for(st, c)
    client.abandon(f"An admin removed {e.server} from the host's config while this call was running")
    if c.status == "connected":
        client.leave()
    st.s.host.configured.remove(e.server)
    st.s.host.token_serials[e.server] = c.token_serial
    del st.s.host.clients[e.server]
    st.say("narration.server_removed", "change", server=e.server)


class ServerDies(EventBase):
    kind: Literal["server_dies"] = "server_dies"
    server: str


@handles(ServerDies)
def _dies(st: Step, e: ServerDies) -> None:
    srv = st.srv(e.server)
    if not srv.up:
        raise Rejected("refusal.already_down", server=e.server)
    st.say("narration.process_died", "error", server=e.server)
    servers.kill(srv)
    for c in st.clients_of(srv.name):
        client_for(st, c).on_death(restarting=False)
    if srv.behind:
        st.say("narration.backend_died", "warn", server=srv.name, behind=srv.behind)
    if [c for c in st.s.host.clients.values() if c.status == "connected" and c.server != e.server]:
        st.say("narration.conversation_survives")


class ServerBack(EventBase):
    """The server's process is started again (a new generation)."""

    kind: Literal["server_back"] = "server_back"
    server: str
    transport: Transport | None = None  # None: as before


@handles(ServerBack)
def _back(st: Step, e: ServerBack) -> None:
    srv = st.srv(e.server)
    if srv.up:
        raise Rejected("refusal.already_up", server=e.server)
    if e.transport and e.transport != srv.transport:
        srv.transport = e.transport
        for c in st.clients_of(srv.name):  # a new transport is a new connection, met from scratch
            c.session_id, c.greeted = None, False
    st.say("narration.process_running_again", "change", server=e.server, transport=srv.transport)
    servers.launch(st, srv)
    for c in st.clients_of(srv.name):
        client_for(st, c).on_back(restarted=False)


class RestartServer(EventBase):
    """The process dies and a new one starts before anyone can react."""

    kind: Literal["restart_server"] = "restart_server"
    server: str


@handles(RestartServer)
def _restart(st: Step, e: RestartServer) -> None:
    srv = st.srv(e.server)
    if not srv.up:
        raise Rejected("refusal.restart_while_down", server=e.server)
    # Every replica's process is restarted (as a redeploy does): what any of them held in memory is gone.
    if srv.replicas > 1:
        st.say("narration.restarted_replicas", "change", server=e.server, replicas=srv.replicas)
    else:
        st.say("narration.restarted", "change", server=e.server)
    servers.kill(srv)
    for c in st.clients_of(srv.name):
        client_for(st, c).on_death(restarting=True)
    servers.launch(st, srv)
    # What became of the token, said before the client's first request to the new process meets it.
    for c in st.clients_of(srv.name):
        if srv.transport != "http":
            st.say("narration.restart_stdio_no_token")
        elif not srv.auth:
            continue  # it asks for no token: there is nothing to say about one
        elif c.token == "revoked":
            st.say("narration.restart_token_gone", "warn")
        elif c.token == "expired":
            st.say("narration.restart_token_expired")
        else:
            st.say("narration.restart_token_valid")
    for c in st.clients_of(srv.name):
        client_for(st, c).on_back(restarted=True)
