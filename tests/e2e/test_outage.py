"""The "Play out an outage" playground, pressed the way a learner does."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import (
    NEW,
    OUTAGE,
    OUTAGE_COMPARISON,
    comparison,
    era_sides,
    expect_era,
    expect_status,
    gone_list,
    log,
    log_labels,
    log_step,
    message,
    open_playground,
    press,
    prompt,
    prompt_tool,
    server_cell,
    server_row,
    servers,
    tool_text,
    wire,
)

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"
COMPARISON = OUTAGE_COMPARISON
A_TOOLS = ["search_docs", "read_page"]
B_TOOLS = ["create_ticket", "assign_ticket"]
C_TOOLS = ["find_slot", "book_meeting"]


@pytest.fixture
def outage(page: Page):
    return open_playground(page, OUTAGE, TITLE)


def expect_prompt(section, tools: list[tuple[str, str]]) -> None:
    """The next prompt lists exactly these tools, in this order (the "Gone" list aside)."""
    items = prompt(section).get_by_role("listitem").filter(has_text=tool_text())
    expect(items).to_have_text([tool_text(tool, server) for tool, server in tools])


def test_the_start(outage) -> None:
    expect(servers(outage).get_by_role("rowheader")).to_have_text([re.compile(r"^A \(docs\)"), re.compile(r"^B ")])
    expect_status(outage, "A", "connected")
    expect_status(outage, "B", "connected")
    expect_era(outage, "modern (2026-07-28)")
    expect(outage.get_by_role("radio", name="Modern (2026-07-28)")).to_be_checked()
    expect_prompt(outage, [(t, "A") for t in A_TOOLS] + [(t, "B") for t in B_TOOLS])
    expect(log_labels(outage)).to_have_text(["Start"])
    expect(log(outage)).to_contain_text("Servers A and B")
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    expect(comparison(outage, COMPARISON)).to_contain_text("Press a button")


def test_the_buttons_in_source_order(outage) -> None:
    # 1. B deploys a new tool: B re-lists, close_ticket joins the next prompt at once.
    press(outage, "B deploys a new tool", 1)
    expect(server_cell(outage, "B", "Tools")).to_have_text("create_ticket, assign_ticket, close_ticket")
    expect(server_cell(outage, "B", "Last change")).to_contain_text("close_ticket added")
    expect(prompt_tool(outage, "close_ticket", "B")).to_be_visible()
    # No turn has been taken yet, so nothing is "new since the last turn".
    expect(prompt(outage).get_by_text(NEW)).to_have_count(0)
    expect(log_step(outage, "Step 1: B deploys a new tool")).to_contain_text("notifications/tools/list_changed")
    legacy, modern = era_sides(outage, COMPARISON)
    # The two eras are a tab of their own: this era's side says the step, the other era's side only that
    # nothing differs.
    expect(modern).to_contain_text("close_ticket")
    expect(legacy).not_to_contain_text("B deployed a new tool, close_ticket")
    expect(legacy).to_contain_text(message("comparison.same"))

    # 2. A turn: the model sees all five tools.
    press(outage, "Take a model turn", 2)
    step = log_step(outage, "Step 2: The model takes a turn")
    expect(step).to_contain_text("Turn 1: the host built the prompt with 5 tools")
    expect(step).to_contain_text("close_ticket")
    expect(prompt(outage)).to_contain_text("Turns taken: 1")

    # 3. Add server C: a new row, and C's tools are new since the last turn.
    expect(server_row(outage, "C")).to_have_count(0)
    press(outage, "Add server C", 3)
    expect(server_row(outage, "C")).to_have_count(1)
    expect_status(outage, "C", "connected")
    expect(server_cell(outage, "C", "Tools")).to_have_text(", ".join(C_TOOLS))
    for tool in C_TOOLS:
        expect(prompt_tool(outage, tool, "C")).to_contain_text(NEW)
    expect(prompt_tool(outage, "close_ticket", "B")).not_to_contain_text(NEW)
    expect(log_step(outage, "Step 3: An admin adds C")).to_contain_text("Nothing in the protocol announced it")

    # 4. A turn: C's tools are in the prompt, and no longer marked new.
    press(outage, "Take a model turn", 4)
    step = log_step(outage, "Step 4: The model takes a turn")
    expect(step).to_contain_text(re.compile(r"[Nn]ew\b.*find_slot \(C\), book_meeting \(C\)"))
    expect(prompt(outage).get_by_text(NEW)).to_have_count(0)

    # 5. A dies: A is down and its tools leave the next prompt.
    press(outage, "A dies", 5)
    expect_status(outage, "A", "down")
    expect(server_cell(outage, "A", "Tools")).to_have_text("none")
    expect_status(outage, "B", "connected")
    for tool in A_TOOLS:
        expect(prompt_tool(outage, tool, "A")).to_have_count(0)
    expect_prompt(outage, [(t, "B") for t in [*B_TOOLS, "close_ticket"]] + [(t, "C") for t in C_TOOLS])
    expect(gone_list(outage)).to_contain_text("search_docs")
    expect(log_step(outage, "Step 5: A dies")).to_contain_text("marks A down")

    # 6. A turn: the model reaches for A's tool; the host answers with an error it builds itself.
    press(outage, "Take a model turn", 6)
    step = log_step(outage, "Step 6: The model takes a turn")
    expect(step).to_contain_text("is not reachable")
    expect(step).to_contain_text("built itself")
    expect(step).to_contain_text(re.compile(r"[Gg]one\b.*search_docs \(A\), read_page \(A\)"))
    expect(gone_list(outage)).to_have_count(0)

    # 7. A is back: connected again; the comparison shows what each era costs.
    press(outage, "A is back", 7)
    expect_status(outage, "A", "connected")
    expect(server_cell(outage, "A", "Stream")).to_contain_text("subscriptions/listen listen-2")
    for tool in A_TOOLS:
        expect(prompt_tool(outage, tool, "A")).to_contain_text(NEW)
    legacy, modern = era_sides(outage, COMPARISON)
    expect(legacy).to_contain_text("404")
    expect(legacy).to_contain_text("initialize")
    expect(legacy).not_to_contain_text("subscriptions/listen")
    # This era's lines are the log's newest step, and its side of the comparison (a tab of its own) says them.
    expect(modern).to_contain_text("There is no session to rebuild")
    expect(modern).not_to_contain_text("404")
    step = log_step(outage, "Step 7: A is back")
    expect(step).to_contain_text("re-sends subscriptions/listen")
    expect(step).to_contain_text("There is no session to rebuild")

    # 8. A turn: A's tools are back, and the call to A works.
    press(outage, "Take a model turn", 8)
    step = log_step(outage, "Step 8: The model takes a turn")
    expect(step).to_contain_text(re.compile(r"[Nn]ew\b.*search_docs \(A\), read_page \(A\)"))
    expect(step).to_contain_text(re.compile(r"search_docs on A\b.*search_docs done"))

    # The log keeps every step, newest last.
    expect(log_labels(outage)).to_have_text(
        [
            "Start",
            "Step 1: B deploys a new tool",
            "Step 2: The model takes a turn",
            "Step 3: An admin adds C",
            "Step 4: The model takes a turn",
            "Step 5: A dies",
            "Step 6: The model takes a turn",
            "Step 7: A is back",
            "Step 8: The model takes a turn",
        ]
    )


def test_a_dies_first_then_comes_back_twice(outage) -> None:
    press(outage, "A dies", 1)
    expect_status(outage, "A", "down")
    press(outage, "A is back", 2)
    expect_status(outage, "A", "connected")
    press(outage, "A is back", 3)
    expect(log_step(outage, "Step 3: A is back")).to_contain_text("already up")
    expect_status(outage, "A", "connected")


def test_a_is_back_while_a_is_up(outage) -> None:
    press(outage, "A is back", 1)
    step = log_step(outage, "Step 1: A is back")
    expect(step).to_contain_text("already up")
    expect_status(outage, "A", "connected")
    expect_prompt(outage, [(t, "A") for t in A_TOOLS] + [(t, "B") for t in B_TOOLS])


def test_dying_twice_says_why(outage) -> None:
    press(outage, "A dies", 1)
    press(outage, "A dies", 2)
    expect(log_step(outage, "Step 2: A dies")).to_contain_text("A is already down")


def test_legacy_era(outage) -> None:
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect(log_labels(outage).last).to_have_text(re.compile(r"^Step 1: "))
    expect(outage.get_by_role("radio", name="Legacy (2025-11-25)")).to_be_checked()
    expect_era(outage, "legacy (2025-11-25)")
    expect(server_cell(outage, "A", "Stream")).to_contain_text("GET SSE stream (session")
    expect(log_step(outage, "Step 1: The host switches to the legacy era")).to_contain_text(
        "The client for A now speaks legacy (2025-11-25)."
    )

    press(outage, "A dies", 2)
    expect_status(outage, "A", "down")
    press(outage, "A is back", 3)
    expect_status(outage, "A", "connected")
    step = log_step(outage, "Step 3: A is back")
    expect(step).to_contain_text("404")
    expect(step).to_contain_text("initialize")
    legacy, modern = era_sides(outage, COMPARISON)
    expect(outage.get_by_role("heading", name="Legacy (2025-11-25): this playground")).to_be_visible()
    expect(legacy).to_contain_text("404")
    expect(modern).to_contain_text("subscriptions/listen")

    # And back to modern: the same two presses cost no 404.
    outage.get_by_role("radio", name="Modern (2026-07-28)").check()
    expect(log_labels(outage).last).to_have_text(re.compile(r"^Step 4: "))
    expect_era(outage, "modern (2026-07-28)")
    press(outage, "A dies", 5)
    press(outage, "A is back", 6)
    step = log_step(outage, "Step 6: A is back")
    expect(step).to_contain_text("re-sends subscriptions/listen")
    expect(step).not_to_contain_text("404")


def test_undo_and_reset(outage) -> None:
    press(outage, "B deploys a new tool", 1)
    press(outage, "A dies", 2)
    expect_status(outage, "A", "down")

    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_text(["Start", "Step 1: B deploys a new tool"])
    expect_status(outage, "A", "connected")
    expect(server_cell(outage, "A", "Tools")).to_have_text("search_docs, read_page")
    expect(prompt_tool(outage, "search_docs", "A")).to_be_visible()
    expect(prompt_tool(outage, "close_ticket", "B")).to_be_visible()

    outage.get_by_role("button", name="Undo").press("Enter")  # from the keyboard, back to the start
    expect(log_labels(outage)).to_have_text(["Start"])
    expect(prompt_tool(outage, "close_ticket", "B")).to_have_count(0)
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    # The disabled Undo cannot keep the focus: it stays in the playground, on its first button.
    expect(outage.get_by_role("button", name="B deploys a new tool")).to_be_focused()

    # Undo also takes back an era switch.
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_era(outage, "legacy (2025-11-25)")
    outage.get_by_role("button", name="Undo").click()
    expect_era(outage, "modern (2026-07-28)")
    expect(outage.get_by_role("radio", name="Modern (2026-07-28)")).to_be_checked()

    press(outage, "Add server C", 1)
    press(outage, "A dies", 2)
    press(outage, "Take a model turn", 3)
    expect(server_row(outage, "C")).to_have_count(1)
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text(["Start"])
    expect(servers(outage).get_by_role("rowheader")).to_have_count(2)
    expect(server_row(outage, "C")).to_have_count(0)
    expect_status(outage, "A", "connected")
    expect(prompt(outage)).to_contain_text("Turns taken: 0")
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    set_aside = message("count.press.many", n=3)
    expect(outage.get_by_role("status")).to_have_text(message("playground.restarted", presses=set_aside))


def test_reset_keeps_the_chosen_era(outage) -> None:
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_era(outage, "legacy (2025-11-25)")
    press(outage, "A dies", 2)
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text(["Start"])
    expect(log(outage)).to_contain_text("The host speaks legacy (2025-11-25).")
    expect_era(outage, "legacy (2025-11-25)")
    expect(outage.get_by_role("radio", name="Legacy (2025-11-25)")).to_be_checked()


def test_wire_view_modern_deploy(outage) -> None:
    messages = wire(outage)
    expect(messages).to_contain_text(message("wire.none"))
    press(outage, "B deploys a new tool", 1)
    expect(messages).to_contain_text("notifications/tools/list_changed")
    expect(messages).to_contain_text("io.modelcontextprotocol/subscriptionId")
    expect(messages).to_contain_text('"listen-1"')
    expect(messages).to_contain_text("tools/list")
    expect(messages).not_to_contain_text("Mcp-Session-Id")


def test_wire_view_legacy_deploy(outage) -> None:
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_era(outage, "legacy (2025-11-25)")
    messages = wire(outage)
    press(outage, "B deploys a new tool", 2)
    expect(messages).to_contain_text("notifications/tools/list_changed")
    expect(messages).to_contain_text("Mcp-Session-Id")
    expect(messages).not_to_contain_text("io.modelcontextprotocol/subscriptionId")


def test_wire_view_host_made_error(outage) -> None:
    press(outage, "Take a model turn", 1)
    press(outage, "A dies", 2)
    messages = wire(outage)
    expect(messages).to_contain_text("not on the wire")
    press(outage, "Take a model turn", 3)
    # The tool error comes from the host, never from the dead server, and never crossed the wire.
    expect(messages).to_contain_text("host → model")
    expect(messages).to_contain_text("built by the host, not on the wire")
    expect(messages).not_to_contain_text("A → ")
    expect(messages).to_contain_text('"isError": true')


def test_a_call_cut_short_by_a_death_is_said_and_nothing_is_counted_as_on_the_wire(outage) -> None:
    """A dies while a call on it runs: the log says the host built the error result itself, and the
    era comparison does not count the host's own items as wire messages."""
    press(outage, "The model calls a tool on A", 1)
    press(outage, "A dies", 2)
    step = outage.get_by_role("listitem").filter(has_text=re.compile(r"^Step 2: A dies"))
    expect(step).to_contain_text("isError: true")
    expect(step).to_contain_text("sent nothing")
    counts = comparison(outage, OUTAGE_COMPARISON).get_by_text(re.compile(r"^Nothing crossed the wire: "))
    expect(counts).to_have_count(2)  # each era's side
    expect(comparison(outage, OUTAGE_COMPARISON).get_by_text(re.compile(r"^\d+ wire message"))).to_have_count(0)


def test_badges_read_as_separate_words(outage) -> None:
    press(outage, "Take a model turn", 1)
    press(outage, "Add server C", 2)
    expect(prompt_tool(outage, "find_slot", "C")).to_have_text("find_slot from C new since the last turn")
    press(outage, "A dies", 3)
    expect(wire(outage)).to_contain_text("stream closed seen by the host, not on the wire")
