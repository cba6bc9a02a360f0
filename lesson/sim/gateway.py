"""A gateway: one endpoint in front of backends it health-checks. The host holds one client, to the
gateway; the gateway fans one list_changed out to every host listening to it."""

from __future__ import annotations

from . import frames as f
from . import wire as w
from .model import SimServer, said
from .step import Step


def unavailable(st: Step, gw: SimServer, tool: str) -> str | None:
    """The gateway's tool error text when the backend behind ``tool`` cannot serve it, else None."""
    servers = st.s.servers
    owner = next((b for b in gw.backends if any(t.name == tool for t in servers[b].tools)), None)
    if owner is None or (owner not in gw.unhealthy and servers[owner].up):
        return None
    why = "is failing its health checks" if owner in gw.unhealthy else "did not answer the gateway"
    return f"Backend {owner} {why}; {tool} is unavailable right now."


def fan_out(st: Step, gw: SimServer) -> None:
    """The same notification goes to the other hosts listening to the gateway."""
    era = st.s.host.era
    for n, other in enumerate(gw.other_listeners, 1):
        sub = f"listen-{n}" if era == "modern" else None
        st.show(
            f.sse_event(
                era,
                gw.name,
                other,
                w.list_changed(era, sub),
                note=said("narration.note.gateway_fan_out"),
            )
        )
    if gw.other_listeners:
        st.say("narration.gateway_told_other_hosts", hosts=len(gw.other_listeners))


def front(st: Step, server: str) -> SimServer:
    """The server whose clients hear about a change to ``server``: its gateway, if it sits behind one."""
    srv = st.srv(server)
    return st.srv(srv.behind) if srv.behind else srv
