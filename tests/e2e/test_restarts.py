"""The restart lab: each situation in both eras side by side, checked against /work/shared/mcp-facts.md."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .helpers import LESSON_1, region, restart_lab

pytestmark = pytest.mark.e2e

SITUATIONS = {
    "idle": "idle",
    "in-flight": "a call is in flight",
    "input": "waiting for user input",
    "listen": "a listen stream is open",
    "token": "the user's token is valid",
}
NOT_IDEMPOTENT = "The call in flight is not idempotent (send_alert)"
STATE_KEY = "Modern: the restarted server can still verify the requestState (its secret outlives the restart)"
EXPIRED = "The user answers after the requestState expired"
AUTH_INSIDE = "The authorization server runs inside the restarted process, tokens in memory"
STDIO = "The server runs over stdio (the host launches it)"
NO_SESSION = "Legacy: the server issues no Mcp-Session-Id"


@pytest.fixture
def lab(page: Page) -> Locator:
    page.goto(LESSON_1)
    section = restart_lab(page)
    expect(section.get_by_role("button", name="Restart the server")).to_be_enabled()
    return section


def restart(lab: Locator, situation: str, *variants: str) -> tuple[Locator, Locator]:
    """Choose the situation and tick the variants as a person would, restart, return both sides."""
    lab.get_by_role("radio", name=SITUATIONS[situation], exact=True).check()
    for variant in variants:
        lab.get_by_role("checkbox", name=variant, exact=True).check()
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(f"Restarted while {SITUATIONS[situation]}: both eras shown.")
    return region(lab, "Legacy (2025-11-25)"), region(lab, "Modern (2026-07-28)")


def open_wire(side: Locator) -> Locator:
    """Expand every "Wire messages (n)" of one side."""
    summaries = side.get_by_text(re.compile(r"^Wire messages \(\d+\)$"))
    for i in range(summaries.count()):
        summaries.nth(i).click()
    return side


def test_nothing_shown_before_a_restart(lab: Locator) -> None:
    expect(lab.get_by_role("radio", name="idle", exact=True)).to_be_checked()
    expect(lab.get_by_role("region")).to_have_count(0)
    expect(lab.get_by_role("status")).to_have_text("")


def test_idle(lab: Locator) -> None:
    legacy, modern = restart(lab, "idle")
    open_wire(legacy)
    open_wire(modern)
    # Legacy: the server had issued a session id, so the next request gets 404 and a new initialize.
    expect(legacy).to_contain_text("HTTP 404 Not Found")
    expect(legacy).to_contain_text('"method": "initialize"')
    expect(legacy).to_contain_text("get_forecast done (city=Oslo)")
    # Modern: no session, nothing to rebuild; the next call just works.
    expect(modern).to_contain_text("get_forecast done (city=Oslo)")
    expect(modern).not_to_contain_text("404")
    expect(modern).not_to_contain_text("initialize")


def test_idle_without_a_session_id(lab: Locator) -> None:
    legacy, modern = restart(lab, "idle", NO_SESSION)
    expect(legacy).not_to_contain_text("404")
    expect(legacy).to_contain_text("get_forecast done (city=Oslo)")
    expect(modern).not_to_contain_text("404")


def test_idle_on_stdio(lab: Locator) -> None:
    legacy, modern = restart(lab, "idle", STDIO)
    open_wire(legacy)
    open_wire(modern)
    for side in (legacy, modern):
        expect(side).to_contain_text("EOF")  # the host sees the old process exit
        expect(side).not_to_contain_text("404")
        expect(side).not_to_contain_text("POST /mcp")  # stdio has no HTTP
        expect(side).not_to_contain_text("HTTP 202")
    expect(legacy).to_contain_text('"method": "initialize"')  # a new process needs a new initialize
    expect(modern).not_to_contain_text("initialize")


def test_call_in_flight(lab: Locator) -> None:
    legacy, modern = restart(lab, "in-flight")
    open_wire(legacy)
    open_wire(modern)
    expect(legacy).to_contain_text("HTTP 404 Not Found")
    expect(legacy).to_contain_text('"method": "initialize"')
    for side in (legacy, modern):
        expect(side).to_contain_text("idempotent")
        expect(side).to_contain_text('"method": "tools/call"')  # re-issued
        expect(side).to_contain_text('"name": "get_forecast"')
    expect(modern).not_to_contain_text("404")
    expect(modern).to_contain_text("Mcp-Name: get_forecast")


def test_call_in_flight_not_idempotent(lab: Locator) -> None:
    legacy, modern = restart(lab, "in-flight", NOT_IDEMPOTENT)
    for side in (legacy, modern):
        open_wire(side)
        expect(side).to_contain_text("not idempotent")
        expect(side).not_to_contain_text('"method": "tools/call"')  # not retried blindly
        expect(side).to_contain_text("built by the host, not on the wire")
        expect(side).to_contain_text("send_alert")


def test_waiting_for_user_input(lab: Locator) -> None:
    legacy, modern = restart(lab, "input")
    open_wire(legacy)
    open_wire(modern)
    # Legacy: the call's stream drops at the restart; the answer gets 404; a new session asks again.
    expect(legacy).to_contain_text("seen by the host, not on the wire")
    expect(legacy).to_contain_text("HTTP 404 Not Found")
    expect(legacy).to_contain_text('"method": "initialize"')
    expect(legacy).to_contain_text('"method": "elicitation/create"')
    # Modern: the retry's requestState cannot be verified: 400 with -32602, and the flow starts over.
    expect(modern).to_contain_text("HTTP 400 Bad Request")
    expect(modern).to_contain_text("-32602")
    expect(modern).to_contain_text("Invalid or expired requestState")
    expect(modern).to_contain_text('"requestState"')
    expect(modern).to_contain_text('"resultType": "input_required"')
    expect(modern).not_to_contain_text("404")


def test_waiting_for_user_input_the_state_key_survives(lab: Locator) -> None:
    legacy, modern = restart(lab, "input", STATE_KEY)
    open_wire(modern)
    expect(modern).to_contain_text('"resultType": "complete"')
    expect(modern).not_to_contain_text("-32602")
    # The option is about the modern requestState: legacy still loses the answer.
    expect(legacy).to_contain_text("404")


def test_waiting_for_user_input_the_answer_comes_too_late(lab: Locator) -> None:
    _, modern = restart(lab, "input", STATE_KEY, EXPIRED)
    open_wire(modern)
    expect(modern).to_contain_text("-32602")
    expect(modern).to_contain_text("expired")


def test_listen_stream_open(lab: Locator) -> None:
    legacy, modern = restart(lab, "listen")
    open_wire(legacy)
    open_wire(modern)
    expect(modern).to_contain_text('"method": "subscriptions/listen"')
    expect(modern).to_contain_text("notifications/subscriptions/acknowledged")
    expect(modern).not_to_contain_text("404")
    expect(legacy).to_contain_text("HTTP 404 Not Found")
    expect(legacy).to_contain_text("GET /mcp")
    expect(legacy).to_contain_text('"method": "initialize"')
    expect(modern.get_by_role("table")).to_contain_text("subscriptions/listen listen-2, acknowledged")
    expect(legacy.get_by_role("table")).to_contain_text("GET SSE stream (session")


def test_token_still_valid(lab: Locator) -> None:
    legacy, modern = restart(lab, "token")
    for side in (legacy, modern):
        expect(side).to_contain_text("still valid")
        expect(side).not_to_contain_text("401")
        expect(side).to_contain_text("get_forecast done (city=Oslo)")


def test_token_with_the_authorization_server_inside(lab: Locator) -> None:
    legacy, modern = restart(lab, "token", AUTH_INSIDE)
    for side in (legacy, modern):
        expect(side).to_contain_text("401")
        expect(side).to_contain_text("sign in again")
        expect(side).not_to_contain_text("still valid")


def test_every_situation_one_after_another(lab: Locator) -> None:
    """The same page, one restart after another: each shows only its own outcome."""
    for situation in SITUATIONS:
        legacy, modern = restart(lab, situation)
        expect(legacy).to_be_visible()
        expect(modern).to_be_visible()
        expect(lab.get_by_role("region")).to_have_count(2)
    expect(modern).not_to_contain_text("requestState")


DURABLE = "Legacy: session, SSE events and unfinished work are stored outside the process"


def test_legacy_with_everything_stored_outside_the_process(lab: Locator) -> None:
    legacy, modern = restart(lab, "in-flight", DURABLE)
    open_wire(legacy)
    open_wire(modern)
    expect(legacy).to_contain_text("Last-Event-ID")
    expect(legacy).to_contain_text("resumed")
    expect(legacy).not_to_contain_text("404")
    expect(legacy).not_to_contain_text('"method": "tools/call"')
    # The variant is for legacy sessions: the modern call is still re-issued.
    expect(modern).to_contain_text('"method": "tools/call"')


def test_listen_stream_resumed_from_a_durable_session(lab: Locator) -> None:
    legacy, _ = restart(lab, "listen", DURABLE)
    expect(legacy).not_to_contain_text("404")
    open_wire(legacy)
    expect(legacy).not_to_contain_text('"method": "initialize"')
    expect(legacy).to_contain_text("GET /mcp")
    # No event came on the stream before the restart: there is no id to resume from, so none is sent.
    expect(legacy).not_to_contain_text("Last-Event-ID")


def test_call_in_flight_on_stdio(lab: Locator) -> None:
    legacy, modern = restart(lab, "in-flight", STDIO)
    for side in (legacy, modern):
        open_wire(side)
        expect(side).to_contain_text("launches a new process")
        expect(side).to_contain_text("EOF")
        expect(side).not_to_contain_text("404")
        expect(side).to_contain_text('"method": "tools/call"')  # re-issued to the new process
    expect(legacy).to_contain_text('"method": "initialize"')
    expect(modern).not_to_contain_text("initialize")


def test_token_on_stdio(lab: Locator) -> None:
    legacy, modern = restart(lab, "token", STDIO, AUTH_INSIDE)
    for side in (legacy, modern):
        expect(side).to_contain_text("no token flow")
        expect(side).not_to_contain_text("401")
