"""Servers come, go, change their tools, die, come back and restart."""

from __future__ import annotations

from typing import Literal

from .. import servers
from ..clients import client_for
from ..gateway import front
from ..model import Client, ToolDef, Transport
from ..notify import tools_changed
from ..step import Rejected, Step
from .base import EventBase, handles


class DeployTool(EventBase):
    """A deploy or config reload adds a tool, from outside any request."""

    label = "{server} deploys a new tool"
    kind: Literal["deploy_tool"] = "deploy_tool"
    server: str
    tool: ToolDef | None = None  # None: the server's next upcoming tool


@handles(DeployTool)
def _deploy(st: Step, e: DeployTool) -> None:
    srv = st.srv(e.server)
    tool = e.tool or (srv.upcoming[0] if srv.upcoming else None)
    if tool is None:
        raise Rejected(f"{e.server} has nothing new to deploy.")
    if any(t.name == tool.name for t in srv.tools):
        raise Rejected(f"{e.server} already offers {tool.name}.")
    if not srv.up:
        raise Rejected(f"{e.server} is down; it can deploy once it is back.")
    srv.upcoming = [t for t in srv.upcoming if t.name != tool.name]
    srv.tools.append(tool)
    st.say(f"{e.server} deployed a new tool, {tool.name}, from outside any request (a deploy).", "change")
    tools_changed(st, front(st, e.server), f"{tool.name} added")


class RemoveTool(EventBase):
    label = "{server} removes {tool}"
    kind: Literal["remove_tool"] = "remove_tool"
    server: str
    tool: str


@handles(RemoveTool)
def _remove_tool(st: Step, e: RemoveTool) -> None:
    srv = st.srv(e.server)
    if not any(t.name == e.tool for t in srv.tools):
        raise Rejected(f"{e.server} has no tool called {e.tool}.")
    if not srv.up:
        raise Rejected(f"{e.server} is down.")
    srv.tools = [t for t in srv.tools if t.name != e.tool]
    st.say(f"{e.server} removed {e.tool} (a config reload).", "change")
    tools_changed(st, front(st, e.server), f"{e.tool} removed")


class AddServer(EventBase):
    """An admin tells the host about a server: the protocol never discovers one."""

    label = "an admin adds {server}"
    kind: Literal["add_server"] = "add_server"
    server: str
    via: Literal["config", "admin console", "gateway"] = "config"


@handles(AddServer)
def _add_server(st: Step, e: AddServer) -> None:
    srv = st.srv(e.server)
    if e.server in st.s.host.configured:
        raise Rejected(f"{e.server} is already in the host's config.")
    if srv.behind:
        raise Rejected(f"{e.server} sits behind gateway {srv.behind}; add it to the gateway instead.")
    st.s.host.configured.append(e.server)
    c = Client(server=e.server, era=st.s.host.era)
    st.s.host.clients[e.server] = c
    st.say(
        f"An admin added {e.server} ({srv.title}) through the {e.via}. Nothing in the protocol announced "
        "it: the host was told, and opens a new client.",
        "change",
    )
    client_for(st, c).connect()
    c.last_change = f"step {st.s.step}: added"


class RemoveServer(EventBase):
    label = "an admin removes {server}"
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
    del st.s.host.clients[e.server]
    st.say(f"An admin removed {e.server} from the config. Its tools leave the next prompt.", "change")


class ServerDies(EventBase):
    label = "{server} dies"
    kind: Literal["server_dies"] = "server_dies"
    server: str


@handles(ServerDies)
def _dies(st: Step, e: ServerDies) -> None:
    srv = st.srv(e.server)
    if not srv.up:
        raise Rejected(f"{e.server} is already down.")
    st.say(f"{e.server}'s process died.", "error")
    servers.kill(srv)
    for c in st.clients_of(srv.name):
        client_for(st, c).on_death(restarting=False)
    if srv.behind:
        st.say(
            f"{srv.name} sits behind gateway {srv.behind}; the gateway will notice at its next health check.",
            "warn",
        )
    if [c for c in st.s.host.clients.values() if c.status == "connected" and c.server != e.server]:
        st.say("The conversation lives in the host, so it survives; the other servers carry on.")


class ServerBack(EventBase):
    """The server's process is started again (a new generation)."""

    label = "{server} is back"
    kind: Literal["server_back"] = "server_back"
    server: str
    transport: Transport | None = None  # None: as before


@handles(ServerBack)
def _back(st: Step, e: ServerBack) -> None:
    srv = st.srv(e.server)
    if srv.up:
        raise Rejected(f"{e.server} is already up: there is nothing to come back from.")
    if e.transport and e.transport != srv.transport:
        srv.transport = e.transport
        for c in st.clients_of(srv.name):  # a new transport is a new connection, met from scratch
            c.session_id, c.greeted = None, False
    st.say(f"{e.server}'s process is running again (a new process, over {srv.transport}).", "change")
    servers.launch(st, srv)
    for c in st.clients_of(srv.name):
        client_for(st, c).on_back(restarted=False)


class RestartServer(EventBase):
    """The process dies and a new one starts before anyone can react."""

    label = "{server} restarts"
    kind: Literal["restart_server"] = "restart_server"
    server: str


@handles(RestartServer)
def _restart(st: Step, e: RestartServer) -> None:
    srv = st.srv(e.server)
    if not srv.up:
        raise Rejected(f"{e.server} is down; bring it back instead.")
    st.say(f"{e.server} restarted: the old process is gone and a new one is running.", "change")
    servers.kill(srv)
    for c in st.clients_of(srv.name):
        client_for(st, c).on_death(restarting=True)
    servers.launch(st, srv)
    # What became of the token, said before the client's first request to the new process meets it.
    for c in st.clients_of(srv.name):
        if srv.transport != "http":
            st.say("On stdio there is no token flow: the new process reads its credentials from the environment again.")
        elif not srv.auth:
            continue  # it asks for no token: there is nothing to say about one
        elif c.token == "revoked":
            st.say(
                "The user's token was issued by an authorization server inside the restarted process, "
                "with tokens in memory: it is gone. Every request with it now gets 401.",
                "warn",
            )
        elif c.token == "expired":
            st.say(
                "The user's token had already expired; the restart changes nothing about that: the next "
                "request gets 401 and the client refreshes it."
            )
        else:
            st.say(
                "The user's token is still valid: it was issued by the authorization server, which "
                "did not restart, and every request carries it again."
            )
    for c in st.clients_of(srv.name):
        client_for(st, c).on_back(restarted=True)
