"""The ports tests start servers on (tests/ports.py)."""

from __future__ import annotations

from tests import ports


def test_side_by_side_workers_never_draw_the_same_port(monkeypatch) -> None:
    """Each of pytest-xdist's workers draws its servers' ports from a slice of its own, below the ports the
    system hands out, and one process never hands out a port twice: two tests running at once cannot both
    pick a port before either binds it."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    slices = []
    for worker in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        slices.append(set(ports.own_ports()))
    assert slices[0] and slices[1] and not slices[0] & slices[1]
    assert max(slices[0] | slices[1]) < ports.LOWEST_HANDED_OUT
    monkeypatch.setattr(ports, "_HANDED", set())
    drawn = [ports.free_port() for _ in range(200)]
    assert len(set(drawn)) == len(drawn), "a port was handed out twice"
    assert set(drawn) <= slices[1]
