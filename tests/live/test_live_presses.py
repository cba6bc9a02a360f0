"""The outage playground's other controls on real SDK servers (docs/live.md): a deploy announced and
re-listed, a call held by A when A dies (the host's own error, nothing from A), and a model turn that sends
nothing to the dead server. In-process, with every server process killed at the end."""

from __future__ import annotations

import socket

import pytest

from .conftest import live_outage


@pytest.fixture
def live_playground():
    with live_outage("legacy") as pg:
        yield pg


MCP_TYPES = ("application/json", "text/event-stream")  # what an MCP server answers with, an error included


def methods(frames: list[dict], receiver: str | None = None) -> list[str]:
    return [
        (f["payload"] or {}).get("method", "")
        for f in frames
        if f["on_wire"] and f["payload"] and (receiver is None or f["receiver"] == receiver)
    ]


def test_deploy_call_death_and_turn(live_playground):
    pg = live_playground
    opening = pg.opening
    assert methods(opening["wire"], "A")[:2] == ["initialize", "notifications/initialized"]  # legacy handshake

    deploy = pg.press("deploy")
    assert "notifications/tools/list_changed" in methods(deploy["wire"])
    assert "tools/list" in methods(deploy["wire"], "B")
    b = next(r for r in deploy["servers"] if r["name"] == "B")
    assert "close_ticket" in b["tools"]
    assert "close_ticket" in [t["name"] for t in deploy["next_prompt"]["tools"]]

    call = pg.press("call-a")
    [sent] = [f for f in call["wire"] if f["kind"] == "http_request" and f["receiver"] == "A"]
    assert sent["payload"]["method"] == "tools/call"
    assert [f["payload"]["method"] for f in call["sim"]["wire"] if f["kind"] == "http_request"] == ["tools/call"]

    dies = pg.press("a-dies")
    built = [f for f in dies["wire"] if f["kind"] == "host_built"]
    assert len(built) == 1 and built[0]["payload"]["isError"] is True and not built[0]["on_wire"]
    assert not [f for f in dies["wire"] if f["on_wire"] and f["sender"] == "A"]  # a dead process sends nothing
    assert [r["status"] for r in dies["servers"]] == ["down", "connected"]

    turn = pg.press("turn")
    assert methods(turn["wire"], "A") == []  # nothing is sent to a server the host saw go down
    assert "tools/call" in methods(turn["wire"], "B")
    assert all(t["server"] != "A" for t in turn["next_prompt"]["tools"])

    again = pg.press("a-dies")  # the simulation refuses it: nothing is done for real either
    assert again["wire"] == [] and any(line["tone"] == "rejected" for line in again["sim"]["lines"])


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_server_back_meets_its_host_again_though_its_old_port_was_taken(era):
    """While A is down its port is free, and any program may take it: the new A must be the one the host
    meets, never whatever listens there now."""
    with live_outage(era) as pg:
        old = pg.proxies["A"].upstream_port
        assert old is not None
        pg.press("a-dies")
        with socket.create_server(("127.0.0.1", old)):  # another program on A's old port
            back = pg.press("a-back")
        assert not [line for line in back["lines"] if line["tone"] == "error"], back["lines"]
        assert "tools/list" in methods(back["wire"], "A")
        answers = [f for f in back["wire"] if f["kind"] == "http_response" and f["sender"] == "A"]
        assert answers and all(f["headers"].get("Content-Type", "").startswith(MCP_TYPES) for f in answers)
        [a] = [r for r in back["servers"] if r["name"] == "A"]
        assert a["status"] == "connected" and "search_docs" in a["tools"]
