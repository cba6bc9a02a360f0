"""The era-mismatch playground (content/panels/eras.yaml), pressed through the service as the page presses
it: what each side sends when a host and a server share no era, and how a dual-era host falls back."""

from __future__ import annotations

import json

import pytest

from lesson.content.course import default_root, load_panels
from lesson.playground.service import Service

from .pageclient import PageClient

LEGACY, MODERN = "2025-11-25", "2026-07-28"


@pytest.fixture(scope="module")
def service() -> Service:
    return Service(load_panels(default_root()))


def page(service: Service, variant: str, era: str) -> PageClient:
    p = PageClient(lambda frame: service.handle_text(json.dumps(frame)).data(), "eras")
    p.open()
    p.do("reset", variant=variant)
    if p.last["start_era"] != era:
        assert p.do("era", era=era)["type"] == "view"
    return p


def messages(answer: dict) -> list[tuple[str, str, dict]]:
    """The JSON-RPC messages of the step, in order: (sender, receiver, message)."""
    wire = answer["view"]["comparison"]["this"]["wire"]
    return [(f["sender"], f["receiver"], f["payload"]) for f in wire if f["on_wire"] and f["payload"]]


def row(answer: dict, name: str) -> dict:
    return next(r for r in answer["view"]["servers"] if r["name"] == name)


def test_a_legacy_only_host_meets_a_modern_only_server_with_32022(service: Service) -> None:
    p = page(service, "one-era", "legacy")
    answer = p.do("press", button="add-m")
    [(_, _, ask), (sender, _, reply)] = messages(answer)
    assert ask["method"] == "initialize" and ask["params"]["protocolVersion"] == LEGACY
    assert sender == "M" and reply["id"] == ask["id"]
    assert reply["error"]["code"] == -32022
    assert reply["error"]["data"] == {"supported": [MODERN], "requested": LEGACY}
    assert row(answer, "M")["status"] == "incompatible" and not row(answer, "M")["tools"]
    assert row(answer, "M")["era"] is None  # no era in common
    assert not [t for t in answer["view"]["next_prompt"]["tools"] if t["server"] == "M"]


def test_a_modern_only_host_meets_a_legacy_only_server_and_sends_no_initialize(service: Service) -> None:
    p = page(service, "one-era", "modern")
    answer = p.do("press", button="add-l")
    [(_, _, ask), (_, _, reply)] = messages(answer)
    assert ask["method"] == "server/discover"
    assert ask["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
    assert reply["id"] == ask["id"] and reply["error"]["code"] == -32601
    assert row(answer, "L")["status"] == "incompatible"
    # The other era's host, beside it, is the legacy-only one: it gets on with L.
    other = answer["view"]["comparison"]["other"]["wire"]
    assert [f["payload"]["method"] for f in other if f["sender"] == "host" and f["payload"]][0] == "initialize"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_dual_era_host_sends_server_discover_first_and_falls_back_to_initialize(service: Service, era: str) -> None:
    p = page(service, "dual-era", era)
    answer = p.do("press", button="add-l")
    sent = [m for s, _, m in messages(answer) if s == "host"]
    got = [m for s, _, m in messages(answer) if s == "L"]
    assert [m.get("method") for m in sent][:3] == ["server/discover", "initialize", "notifications/initialized"]
    assert got[0]["error"]["code"] == -32601 and "result" in got[1]
    assert sent[1]["params"]["protocolVersion"] == LEGACY and got[1]["result"]["protocolVersion"] == LEGACY
    assert row(answer, "L")["status"] == "connected" and row(answer, "L")["era"] == "legacy"
    answer = p.do("press", button="add-m")
    sent = [m for s, _, m in messages(answer) if s == "host"]
    assert sent[0]["method"] == "server/discover" and "initialize" not in [m.get("method") for m in sent]
    assert [m for s, _, m in messages(answer) if s == "M"][0]["result"]["supportedVersions"] == [MODERN]
    assert row(answer, "M")["era"] == "modern"
    servers = {t["server"] for t in answer["view"]["next_prompt"]["tools"]}
    assert servers == {"L", "M"}
    # Either era's playground did the same: the view says the host speaks both, so the page offers no era to choose.
    cmp = answer["view"]["comparison"]
    assert answer["view"]["dual_era"] and cmp["this"]["lines"] == cmp["other"]["lines"]
    assert not page(service, "one-era", era).last["view"]["dual_era"]


def test_the_question_about_a_server_of_another_era_is_asked_only_of_a_legacy_host(service: Service) -> None:
    """The question about M assumes a host M cannot speak with: a legacy host. A modern host uses M, so
    it is not asked it (its answer would say what did not happen). A dual-era host is left out by the
    question's variant, on the page (tests/e2e/test_goals_predict.py)."""
    asked = {era: "add-m" in page(service, "one-era", era).last["asks"] for era in ("legacy", "modern")}
    assert asked == {"legacy": True, "modern": False}
