"""The restart lab's answers, situation by situation, both eras, as the page receives them (a
``restart`` frame): what each era does after the restart, by narration code, HTTP status, method and
wire message kind, checked against /work/shared/mcp-facts.md. The page's drawing of an answer is
tested in tests/e2e/test_restarts.py."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from lesson.content.course import default_root, load_panels
from lesson.playground.service import Service


@dataclass
class Side:
    """One era's side of a restart, flattened to what a test asks about."""

    codes: list[str]  # narration codes of every line, in order
    text: str  # every line's words (for short facts such as a tool's result)
    wire: list[dict]
    servers: list[dict]

    @property
    def https(self) -> list[str]:
        return [m["http"] for m in self.wire if m["http"]]

    @property
    def methods(self) -> list[str]:
        return [(m["payload"] or {}).get("method") for m in self.wire if (m["payload"] or {}).get("method")]

    @property
    def tools_called(self) -> list[str]:
        return [
            m["payload"]["params"]["name"]
            for m in self.wire
            if m["on_wire"] and (m["payload"] or {}).get("method") == "tools/call"
        ]

    @property
    def dump(self) -> str:
        """Every wire message as JSON, for a field anywhere in it (an error code, a header)."""
        return json.dumps(self.wire)

    def kinds(self, kind: str) -> list[dict]:
        return [m for m in self.wire if m["kind"] == kind]


@pytest.fixture(scope="module")
def service() -> Service:
    return Service(load_panels(default_root()))


@pytest.fixture
def restart(service: Service):
    def run(situation: str, *variants: str) -> tuple[Side, Side]:
        frame = {"v": 2, "type": "restart", "panel": "restarts", "situation": situation, "variants": list(variants)}
        answer = service.handle_text(json.dumps(frame)).data()
        assert answer["type"] == "restart", answer
        sides = {}
        for side in answer["result"]["sides"]:
            lines = [line for step in side["steps"] for line in step["lines"]]
            sides[side["era"]] = Side(
                codes=[line["code"] for line in lines],
                text=" ".join(line["text"] for line in lines),
                wire=[m for step in side["steps"] for m in step["wire"]],
                servers=side["view"]["servers"],
            )
        return sides["legacy"], sides["modern"]

    return run


NOT_FOUND = "HTTP 404 Not Found"
DONE = "get_forecast done (city=Oslo)"


def test_idle(restart) -> None:
    legacy, modern = restart("idle")
    # Legacy: the server had issued a session id, so the next request gets 404 and a new initialize.
    assert NOT_FOUND in legacy.https and "initialize" in legacy.methods
    assert "narration.session_404_new_session" in legacy.codes
    assert DONE in legacy.text
    # Modern: no session, nothing to rebuild; the next call just works.
    assert DONE in modern.text
    assert not any("404" in h for h in modern.https)
    assert "initialize" not in modern.methods


def test_idle_without_a_session_id(restart) -> None:
    legacy, modern = restart("idle", "no-session")
    assert not any("404" in h for h in legacy.https + modern.https)
    assert DONE in legacy.text


def test_idle_on_stdio(restart) -> None:
    legacy, modern = restart("idle", "stdio")
    for side in (legacy, modern):
        assert [m.get("how") for m in side.kinds("stream_end")] == ["eof"]  # the old process exits
        assert "narration.stdio_relaunch" in side.codes
        assert {m["transport"] for m in side.wire} == {"stdio"}  # stdio has no HTTP: no POST, no 202
        assert side.https == []
    assert "initialize" in legacy.methods  # a new process needs a new initialize
    assert "initialize" not in modern.methods


def test_call_in_flight(restart) -> None:
    legacy, modern = restart("in-flight")
    assert NOT_FOUND in legacy.https and "initialize" in legacy.methods
    for side in (legacy, modern):
        assert "narration.call_lost_reissued" in side.codes  # an idempotent call is re-issued
        assert side.tools_called[-1] == "get_forecast"
    assert not any("404" in h for h in modern.https)
    call = next(m for m in modern.wire if (m["payload"] or {}).get("method") == "tools/call")
    assert call["headers"]["Mcp-Name"] == "get_forecast"


def test_call_in_flight_not_idempotent(restart) -> None:
    legacy, modern = restart("in-flight", "unsafe-call")
    for side in (legacy, modern):
        assert "narration.call_lost_not_idempotent" in side.codes
        assert side.tools_called == []  # not retried blindly
        assert len(side.kinds("host_built")) == 1  # the error the model gets is the host's own
        assert "send_alert" in side.text


def test_listen_stream_open(restart) -> None:
    legacy, modern = restart("listen")
    assert {"subscriptions/listen", "notifications/subscriptions/acknowledged"} <= set(modern.methods)
    assert not any("404" in h for h in modern.https)
    assert NOT_FOUND in legacy.https and "GET /mcp" in legacy.https and "initialize" in legacy.methods
    listen = modern.servers[0]["listen"]
    assert listen["code"] == "narration.table.listen.acknowledged" and "listen-2" in listen["text"]
    assert legacy.servers[0]["listen"]["code"] == "narration.table.listen.session"


def test_token_still_valid(restart) -> None:
    for side in restart("token"):
        assert "narration.restart_token_valid" in side.codes
        assert not any("401" in h for h in side.https)
        assert DONE in side.text


def test_token_with_the_authorization_server_inside(restart) -> None:
    for side in restart("token", "auth-in-process"):
        assert "HTTP 401 Unauthorized" in side.https
        assert {"narration.restart_token_gone", "narration.token_gone_sign_in"} <= set(side.codes)
        assert "narration.restart_token_valid" not in side.codes


def test_each_situation_answers_only_its_own_outcome(restart) -> None:
    """Run one after another on the same service, each restart shows its own outcome: only the
    listen one speaks of a listen stream's acknowledgement."""
    for situation in ("idle", "in-flight", "listen", "token"):
        _, modern = restart(situation)
        assert ("subscriptions/acknowledged" in modern.dump) == (situation == "listen"), situation


def test_legacy_with_everything_stored_outside_the_process(restart) -> None:
    legacy, modern = restart("in-flight", "durable-sessions")
    get = next(m for m in legacy.wire if m["http"] == "GET /mcp")
    assert "Last-Event-ID" in get["headers"]
    assert "narration.call_resumed" in legacy.codes
    assert not any("404" in h for h in legacy.https)
    assert "tools/call" not in legacy.methods
    # The variant is for legacy sessions: the modern call is still re-issued.
    assert "tools/call" in modern.methods


def test_listen_stream_resumed_from_a_durable_session(restart) -> None:
    legacy, _ = restart("listen", "durable-sessions")
    assert not any("404" in h for h in legacy.https)
    assert "initialize" not in legacy.methods
    assert "GET /mcp" in legacy.https
    # No event came on the stream before the restart: there is no id to resume from, so none is sent.
    assert "Last-Event-ID" not in legacy.dump


def test_call_in_flight_on_stdio(restart) -> None:
    legacy, modern = restart("in-flight", "stdio")
    for side in (legacy, modern):
        assert "narration.stdio_relaunch" in side.codes  # the host launches a new process
        assert [m.get("how") for m in side.kinds("stream_end")] == ["eof"]
        assert side.https == []
        assert "tools/call" in side.methods  # re-issued to the new process
    assert "initialize" in legacy.methods
    assert "initialize" not in modern.methods


def test_token_on_stdio(restart) -> None:
    for side in restart("token", "stdio", "auth-in-process"):
        assert "narration.restart_stdio_no_token" in side.codes
        assert side.https == []


@pytest.mark.parametrize(("situation", "setup"), [("idle", []), ("in-flight", ["narration.event.start_call"])])
def test_the_steps_that_set_a_situation_up_come_with_their_numbers(
    service: Service, situation: str, setup: list[str]
) -> None:
    """A restart's steps are numbered after the situation's own (a call started at step 1, the restart at
    step 2), as the table's "last change" numbers them: the answer names those first steps too, so a
    result that begins at step 2 says what step 1 was."""
    frame = {"v": 2, "type": "restart", "panel": "restarts", "situation": situation, "variants": []}
    result = service.handle_text(json.dumps(frame)).data()["result"]
    assert [s["label"]["code"] for s in result["setup"]] == setup
    assert [s["step"] for s in result["setup"]] == list(range(1, len(setup) + 1))
    for side in result["sides"]:
        assert side["steps"][0]["step"] == len(setup) + 1
        assert side["steps"][0]["label"]["code"] == "narration.event.restart_server"


def test_a_situation_with_a_note_sends_it_with_its_result(service: Service) -> None:
    """The token situation reads like an idle restart unless the authorization server runs inside the
    process: its note, from the content, comes with its result; a situation without one sends none."""
    panel = load_panels(default_root())["restarts"]
    notes = {s.id: s.note for s in panel.situations}
    assert notes["token"] and notes["idle"] is None
    for situation in ("token", "idle"):
        frame = {"v": 2, "type": "restart", "panel": "restarts", "situation": situation, "variants": []}
        assert service.handle_text(json.dumps(frame)).data()["result"]["note"] == notes[situation]
