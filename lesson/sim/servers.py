"""The simulated servers' side: what a process offers, runs and keeps, and its lifecycle
(up, down, restart, replicas, the keys and stores that do or do not outlive a process)."""

from __future__ import annotations

import json

from . import wire as w
from .model import SimServer, State, ToolDef
from .step import Step


def visible_tools(state: State, srv: SimServer, role: str) -> list[ToolDef]:
    """What ``tools/list`` returns: it may vary by authorization, never per connection."""
    if srv.gateway:
        tools: list[ToolDef] = []
        for name in srv.backends:
            backend = state.servers[name]
            if name not in srv.unhealthy:  # what passes the gateway's health checks
                tools += [t.model_copy(update={"origin": name}) for t in visible_tools(state, backend, role)]
        return tools
    return [t for t in srv.tools if not t.admin_only or role == "admin"]


def handle_store(srv: SimServer) -> dict[str, list[str]]:
    """Where baskets live: a durable store, or the memory of the replica the call lands on."""
    if srv.handles_durable:
        return srv.durable_handles
    return srv.process_handles.setdefault(str(srv.replica), {})


def run_tool(st: Step, server: str, tool: str, args: dict[str, str]) -> tuple[str, bool]:
    """The server runs a tool: (text, is_error). Errors here are tool execution errors the model reads.
    Only the basket tools change the server."""
    if tool == "create_basket":
        srv = st.srv(server)
        srv.handle_seq += 1
        handle = "bsk_" + w.digest(srv.name, srv.handle_seq, n=4)
        handle_store(srv)[handle] = []
        st.s.host.handles.append(handle)
        return json.dumps({"basket_id": handle}), False
    if tool == "add_item":
        handle, sku = args.get("basket_id", ""), args.get("sku", "")
        store = handle_store(st.srv(server))
        if handle not in store:
            return (
                f"Unknown basket_id '{handle}': it has expired or this server no longer has it. "
                "Create a new basket with create_basket."
            ), True
        store[handle].append(sku)
        return json.dumps({"basket_id": handle, "items": store[handle]}), False
    detail = ", ".join(f"{k}={v}" for k, v in args.items())
    return f"{tool} done ({detail})" if detail else f"{tool} done", False


def seal_state(srv: SimServer) -> str:
    """A modern server's sealed requestState, tied to the key of this process (or the durable key)."""
    srv.state_seq += 1
    key = "durable" if srv.state_key_durable else srv.generation
    return "v1.AEAD." + w.digest(srv.name, key, srv.state_seq, n=22)


def verifies(srv: SimServer, generation: int) -> bool:
    """Can this process verify state sealed by process ``generation``? Only with the same key."""
    return generation == srv.generation or srv.state_key_durable


def kill(srv: SimServer) -> None:
    """The process ends; whatever lived only in its memory ends with it."""
    srv.up = False
    srv.process_handles = {}
    if not srv.sessions_durable:
        srv.sessions = {}


def launch(st: Step, srv: SimServer) -> None:
    """A new process starts (a new generation). Tokens issued by an in-process authorization server are gone."""
    srv.up = True
    srv.generation += 1
    srv.request_seq = 0
    if srv.auth_in_process and srv.transport == "http":
        for c in st.clients_of(srv.name):
            if c.token == "valid":
                c.token = "revoked"


def new_session(srv: SimServer, salt: int) -> str | None:
    """Legacy HTTP: the id a server hands out on initialize, if it issues one at all."""
    if srv.transport != "http" or not srv.issues_session_id:
        return None
    sid = w.digest(srv.name, srv.generation, len(srv.sessions), salt)
    srv.sessions[sid] = srv.replica
    return sid


def honours(srv: SimServer, sid: str | None) -> bool:
    """Does the process the next request lands on know this legacy session? A session lives in the memory of
    the replica that issued it, unless sessions are stored outside the process (then every replica has it)."""
    if sid is None or sid not in srv.sessions:
        return False
    return srv.sessions_durable or srv.sessions[sid] == srv.replica
