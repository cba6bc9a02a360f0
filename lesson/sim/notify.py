"""A server's tool list changed: who hears of it, and what a host does about a server that never says."""

from __future__ import annotations

from typing import Any

from . import gateway
from .clients import client_for
from .model import Client, Said, SimServer, State
from .step import Step


def listeners(st: Step, server: str) -> list[Client]:
    srv = st.s.servers[server]
    target = srv.behind or server
    c = st.s.host.clients.get(target)
    return [c] if c is not None and c.status == "connected" else []


def tools_changed(st: Step, srv: SimServer, why: dict[str, Any]) -> None:
    """Tell whoever listens (list_changed is a SHOULD, so some never hear), and let them re-list.
    ``why`` is the change (a message, ``msg``), as the log says it."""
    srv.change_seq += 1
    for c in listeners(st, srv.name):
        if not srv.list_changed:
            st.say("narration.changed_undeclared", "warn", server=srv.name, server2=c.server)
            continue
        if not c.listen.open:
            st.say("narration.change_unnoticed", "warn", server=c.server)
            continue
        note = Said(code="narration.note.on_listen_stream" if c.era == "modern" else "narration.note.on_get_stream")
        if st.s.servers[c.server].transport == "stdio":
            note = Said(code="narration.note.on_listen_stdout" if c.era == "modern" else "narration.note.on_stdout")
        client_for(st, c).list_changed(why, note)
    if srv.gateway and srv.up:  # a gateway that is down tells nobody
        gateway.fan_out(st, srv)


def silent_servers(state: State) -> list[str]:
    """The connected servers that never promised list_changed: the host lists them again before each turn."""
    h = state.host
    return [n for n in h.configured if h.clients[n].status == "connected" and not state.servers[n].list_changed]


def poll_silent_servers(st: Step) -> None:
    """Before a turn, the host re-lists every server that never promised list_changed: without the
    notification, asking is the only way to see a change."""
    for name in silent_servers(st.s):
        changed = client_for(st, st.s.host.clients[name]).relist()
        if changed:
            st.say("narration.polled_changed", "change", server=name)
        else:
            st.say("narration.polled_unchanged", server=name)
