"""Backends join, leave, fail and pass the gateway's health checks."""

from __future__ import annotations

from typing import Any, Literal

from ..model import SimServer
from ..notify import tools_changed
from ..step import Rejected, Step, msg
from .base import EventBase, handles


def _pair(st: Step, name: str, backend: str) -> tuple[SimServer, SimServer]:
    gw = st.srv(name)
    if not gw.gateway:
        raise Rejected("refusal.not_a_gateway", server=name)
    return gw, st.srv(backend)


class BackendJoins(EventBase):
    kind: Literal["backend_joins"] = "backend_joins"
    gateway: str
    backend: str


@handles(BackendJoins)
def _joins(st: Step, e: BackendJoins) -> None:
    gw, b = _pair(st, e.gateway, e.backend)
    if e.backend in gw.backends:
        raise Rejected("refusal.already_behind", backend=e.backend, gateway=e.gateway)
    if b.gateway or b.behind:
        raise Rejected("refusal.cannot_join", backend=e.backend, gateway=e.gateway)
    if e.backend in st.s.host.configured:
        raise Rejected("refusal.reached_directly", backend=e.backend)
    gw.backends.append(e.backend)
    b.behind = e.gateway
    st.say("narration.backend_joined", "change", backend=e.backend, gateway=e.gateway)
    _announce(st, gw, msg("narration.why.backend_joined", backend=e.backend))


class BackendLeaves(EventBase):
    kind: Literal["backend_leaves"] = "backend_leaves"
    gateway: str
    backend: str


@handles(BackendLeaves)
def _leaves(st: Step, e: BackendLeaves) -> None:
    gw, b = _pair(st, e.gateway, e.backend)
    if e.backend not in gw.backends:
        raise Rejected("refusal.not_behind", backend=e.backend, gateway=e.gateway)
    gw.backends.remove(e.backend)
    gw.unhealthy = [n for n in gw.unhealthy if n != e.backend]
    b.behind = None
    st.say("narration.backend_left", "change", backend=e.backend, gateway=e.gateway)
    _announce(st, gw, msg("narration.why.backend_left", backend=e.backend))


class BackendFailsHealthCheck(EventBase):
    kind: Literal["backend_fails"] = "backend_fails"
    gateway: str
    backend: str


@handles(BackendFailsHealthCheck)
def _fails(st: Step, e: BackendFailsHealthCheck) -> None:
    gw, _ = _pair(st, e.gateway, e.backend)
    if e.backend not in gw.backends:
        raise Rejected("refusal.not_behind", backend=e.backend, gateway=e.gateway)
    if e.backend in gw.unhealthy:
        raise Rejected("refusal.already_unhealthy", backend=e.backend)
    gw.unhealthy.append(e.backend)
    st.say("narration.backend_unhealthy", "error", backend=e.backend)
    _announce(st, gw, msg("narration.why.backend_failed", backend=e.backend))


class BackendRecovers(EventBase):
    kind: Literal["backend_recovers"] = "backend_recovers"
    gateway: str
    backend: str


@handles(BackendRecovers)
def _recovers(st: Step, e: BackendRecovers) -> None:
    gw, b = _pair(st, e.gateway, e.backend)
    if e.backend not in gw.unhealthy:
        raise Rejected("refusal.not_unhealthy", backend=e.backend)
    gw.unhealthy.remove(e.backend)
    b.up = True
    st.say("narration.backend_recovered", "change", backend=e.backend)
    _announce(st, gw, msg("narration.why.backend_recovered", backend=e.backend))


def _announce(st: Step, gw: SimServer, why: dict[str, Any]) -> None:
    if not gw.up:
        st.say("narration.gateway_down_change_unheard", "warn", gateway=gw.name)
        gw.change_seq += 1
        return
    tools_changed(st, gw, why)
