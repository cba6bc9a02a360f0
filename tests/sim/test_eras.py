"""Hosts and servers of different eras: what each side sends, and the dual-era fallback."""

from __future__ import annotations

from lesson.sim import view
from lesson.sim.events import AddServer, ServerBack, ServerDies, SwitchEra
from lesson.sim.frames import HttpResponse
from tests import schemas

from .support import labels, play, step, wire


def test_initialize_to_a_modern_only_server_gets_the_schema_s_unsupported_version_error() -> None:
    run = play("eras", "legacy", AddServer(server="M"))
    (reply,) = [m for m in wire(run) if m.sender == "M"]
    assert schemas.errors(reply.payload, "modern", "UnsupportedProtocolVersionError", "") == []
    (m,) = [r for r in view(run).servers if r.name == "M"]
    assert (m.status, m.era) == ("incompatible", None), "M is running: the host cannot use it, which is not down"


def test_over_http_the_unsupported_version_error_is_a_400() -> None:
    run = play("eras", "legacy", AddServer(server="M"), ServerDies(server="M"))
    run, _ = step(run, ServerBack(server="M", transport="http"))
    (reply,) = [m for m in wire(run) if isinstance(m, HttpResponse)]
    assert reply.status == 400 and reply.payload["error"]["code"] == -32022


def test_a_refused_server_is_tried_again_when_the_host_switches_to_its_era() -> None:
    run = play("eras", "legacy", AddServer(server="M"))
    run, v = step(run, SwitchEra(era="modern"))
    assert labels(wire(run))[0] == "server/discover"
    assert next(r for r in v.servers if r.name == "M").status == "connected"


def test_a_dual_era_host_probes_every_server_with_server_discover_first() -> None:
    for server in ("L", "M"):
        run = play("eras", "legacy", AddServer(server=server), dual_era=True)
        assert labels(wire(run))[0] == "server/discover"
