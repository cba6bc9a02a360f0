"""What the service answers to the outage playground's presses: the log's lines (by their codes), the
wire frames of a step and the era comparison. The page only draws these; tests/e2e/test_outage.py
checks that it does."""

from __future__ import annotations

import json
import re

import pytest

from lesson.content.course import default_root, load_panels
from lesson.playground.service import Service

from .pageclient import PageClient

LEGACY, MODERN = "legacy (2025-11-25)", "modern (2026-07-28)"


@pytest.fixture(scope="module")
def service() -> Service:
    return Service(load_panels(default_root()))


@pytest.fixture
def outage(service: Service) -> PageClient:
    """The outage playground as a page holds it, opened (named apart from pytest-playwright's page)."""
    client = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data())
    client.open()
    return client


def codes(answer: dict) -> list[str]:
    """The codes of the newest step's lines."""
    return [line["code"] for line in answer["view"]["log"][-1]["lines"]]


def row(answer: dict, name: str) -> dict:
    return next(r for r in answer["view"]["servers"] if r["name"] == name)


def wire(answer: dict, side: str = "this") -> list[dict]:
    return answer["view"]["comparison"][side]["wire"]


def methods(frames: list[dict]) -> list[str]:
    return [f["payload"]["method"] for f in frames if f["payload"] and "method" in f["payload"]]


def names_in(line: dict, *names: str) -> bool:
    """Each name is a word of the line's text, however the catalogue words the sentence around it."""
    words = set(re.findall(r"[\w-]+", line["text"]))
    return all(name in words for name in names)


def test_the_start_names_the_servers_and_the_era(outage: PageClient) -> None:
    start = outage.last
    assert [(r["name"], r["status"]) for r in start["view"]["servers"]] == [("A", "connected"), ("B", "connected")]
    [line] = start["view"]["log"][0]["lines"]
    assert line["code"] == "narration.start" and "A and B" in line["text"] and MODERN in line["text"]


def test_the_modern_walk_says_each_step(outage: PageClient) -> None:
    deploy = outage.do("press", button="deploy")
    assert "narration.list_changed_relisted" in codes(deploy)
    change = row(deploy, "B")["last_change"]
    assert change["code"] == "narration.table.change" and "close_ticket" in change["text"]
    assert methods(wire(deploy)) == ["notifications/tools/list_changed", "tools/list"]
    notice = wire(deploy)[0]["payload"]
    assert notice["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"
    assert not any("Mcp-Session-Id" in f["headers"] for f in wire(deploy))
    # The other era's side of the comparison says the step the same way.
    assert deploy["view"]["comparison"]["other"]["lines"] == deploy["view"]["comparison"]["this"]["lines"]

    turn = outage.do("press", button="turn")
    prompt_line = turn["view"]["log"][-1]["lines"][0]
    assert prompt_line["code"] == "narration.turn_prompt" and "5" in prompt_line["text"].split()
    assert "close_ticket" in prompt_line["text"] and turn["view"]["next_prompt"]["turns"] == 1

    add = outage.do("press", button="add-c")
    assert codes(add)[0] == "narration.server_added"
    assert [t["change"] for t in add["view"]["next_prompt"]["tools"] if t["server"] == "C"] == ["new", "new"]

    turn = outage.do("press", button="turn")
    new = turn["view"]["log"][-1]["lines"][1]
    assert new["code"] == "narration.new_since_last_turn" and names_in(new, "find_slot", "book_meeting", "C")

    dies = outage.do("press", button="a-dies")
    assert codes(dies)[:3] == ["narration.process_died", "narration.marked_down", "narration.conversation_survives"]
    assert [t["name"] for t in dies["view"]["next_prompt"]["removed"]] == ["search_docs", "read_page"]

    turn = outage.do("press", button="turn")
    lines = turn["view"]["log"][-1]["lines"]
    gone = next(line for line in lines if line["code"] == "narration.gone_since_last_turn")
    assert names_in(gone, "search_docs", "read_page", "A")
    assert "narration.model_called_gone_tool" in [line["code"] for line in lines]  # A's tool, seen last turn
    # The tool error comes from the host, never from the dead server, and never crossed the wire.
    built = wire(turn)[0]
    assert (built["kind"], built["sender"], built["receiver"]) == ("host_built", "host", "model")
    assert built["on_wire"] is False
    assert built["payload"]["isError"] is True and "not reachable" in built["payload"]["content"][0]["text"]
    assert all(f["sender"] != "A" for f in wire(turn))

    back = outage.do("press", button="a-back")
    assert "narration.back_modern" in codes(back)
    assert "subscriptions/listen" in methods(wire(back)) and "initialize" not in methods(wire(back))
    other = back["view"]["comparison"]["other"]
    assert "narration.back_session_unknown" in [line["code"] for line in other["lines"]]
    assert "initialize" in methods(other["wire"])

    turn = outage.do("press", button="turn")
    lines = turn["view"]["log"][-1]["lines"]
    assert lines[1]["code"] == "narration.new_since_last_turn" and names_in(lines[1], "search_docs", "A")
    assert any(ln["code"] == "narration.model_called" and names_in(ln, "search_docs", "A") for ln in lines)
    kinds = ["start", "deploy_tool", "take_turn", "add_server", "take_turn", "server_dies", "take_turn"]
    kinds += ["server_back", "take_turn"]
    assert [s["label"]["code"] for s in outage.history] == [f"narration.event.{k}" for k in kinds]
    said = {s["label"]["code"]: s["label"]["text"] for s in outage.history}
    assert "C" in said["narration.event.add_server"].split() and "A" in said["narration.event.server_dies"].split()


@pytest.mark.parametrize(
    "presses, code",
    [
        (["a-back"], "refusal.already_up"),
        (["a-dies", "a-back", "a-back"], "refusal.already_up"),
        (["a-dies", "a-dies"], "refusal.already_down"),
    ],
)
def test_a_press_that_cannot_happen_says_why(outage: PageClient, presses: list[str], code: str) -> None:
    for button in presses:
        answer = outage.do("press", button=button)
    assert codes(answer) == [code]
    assert row(answer, "A")["status"] == ("down" if code == "refusal.already_down" else "connected")


def test_the_legacy_era_rebuilds_a_session_and_modern_does_not(outage: PageClient) -> None:
    switch = outage.do("era", era="legacy")
    assert codes(switch) == ["narration.client_now_speaks"] * 2
    assert LEGACY in switch["view"]["log"][-1]["lines"][0]["text"]
    assert row(switch, "A")["listen"]["code"] == "narration.table.listen.session"

    deploy = outage.do("press", button="deploy")
    assert methods(wire(deploy)) == ["notifications/tools/list_changed", "tools/list"]
    assert "Mcp-Session-Id" in wire(deploy)[1]["headers"]
    assert "io.modelcontextprotocol/subscriptionId" not in json.dumps(wire(deploy))

    outage.do("press", button="a-dies")
    back = outage.do("press", button="a-back")
    assert "narration.back_session_unknown" in codes(back) and "initialize" in methods(wire(back))
    assert "subscriptions/listen" in methods(back["view"]["comparison"]["other"]["wire"])

    outage.do("era", era="modern")
    outage.do("press", button="a-dies")
    back = outage.do("press", button="a-back")
    assert "narration.back_modern" in codes(back) and "initialize" not in methods(wire(back))


def test_reset_keeps_the_chosen_era(outage: PageClient) -> None:
    outage.do("era", era="legacy")
    outage.do("press", button="a-dies")
    reset = outage.do("reset")
    assert reset["era"] == "legacy" and reset["steps"] == 0
    assert LEGACY in reset["view"]["log"][0]["lines"][0]["text"]


def test_a_call_cut_short_by_a_death_is_built_by_the_host(outage: PageClient) -> None:
    outage.do("press", button="call-a")
    dies = outage.do("press", button="a-dies")
    assert "narration.call_cut_short" in codes(dies)
    for side in ("this", "other"):
        assert [f["kind"] for f in wire(dies, side)] == ["stream_end", "host_built"]
        assert not any(f["on_wire"] for f in wire(dies, side))
    built = wire(dies)[1]
    assert built["payload"]["isError"] is True and built["note"]["code"] == "narration.note.built_nothing_sent"
