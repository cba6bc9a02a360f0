"""The "Play out an outage" playground, pressed the way a learner does: what the page draws of each
answer (the servers table, the next prompt and its badges, the log, the era tabs, the wire) and what it
does (undo, reset, focus). What the service answers to each press (the log's lines, the wire frames,
the era comparison) is checked fast in tests/web/test_outage_answers.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import (
    NEW,
    OUTAGE,
    OUTAGE_COMPARISON,
    START,
    comparison,
    era_sides,
    expect_era,
    expect_status,
    gone_list,
    heading,
    lead,
    log_labels,
    log_step,
    message,
    narrated,
    narrated_lead,
    open_playground,
    press,
    prompt,
    prompt_tool,
    server_cell,
    server_row,
    servers,
    step_label,
    tool_text,
    wire,
)

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"
COMPARISON = OUTAGE_COMPARISON
A_TOOLS = ["search_docs", "read_page"]
B_TOOLS = ["create_ticket", "assign_ticket"]
C_TOOLS = ["find_slot", "book_meeting"]
LEGACY, MODERN = "Legacy (2025-11-25)", "Modern (2026-07-28)"


@pytest.fixture
def outage(page: Page):
    return open_playground(page, OUTAGE, TITLE)


def expect_prompt(section, tools: list[tuple[str, str]]) -> None:
    """The next prompt lists exactly these tools, in this order (the "Gone" list aside)."""
    items = prompt(section).get_by_role("listitem").filter(has_text=tool_text())
    expect(items).to_have_text([tool_text(tool, server) for tool, server in tools])


def test_the_start_and_the_buttons_in_source_order(outage) -> None:
    # The start: A and B connected, the modern era, all four tools in the prompt, nothing to undo.
    expect(servers(outage).get_by_role("rowheader")).to_have_text([re.compile(r"^A \(docs\)"), re.compile(r"^B ")])
    expect_status(outage, "A", "connected")
    expect_status(outage, "B", "connected")
    expect_era(outage, "modern")
    expect(outage.get_by_role("radio", name=MODERN)).to_be_checked()
    expect_prompt(outage, [(t, "A") for t in A_TOOLS] + [(t, "B") for t in B_TOOLS])
    expect(log_labels(outage)).to_have_text([START])
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    expect(comparison(outage, COMPARISON)).to_contain_text(message("comparison.empty"))

    # 1. B deploys a new tool: B re-lists, close_ticket joins the next prompt at once.
    press(outage, "B deploys a new tool", 1)
    expect(server_cell(outage, "B", "Tools")).to_have_text("create_ticket, assign_ticket, close_ticket")
    expect(server_cell(outage, "B", "Last change")).to_contain_text("close_ticket added")
    expect(prompt_tool(outage, "close_ticket", "B")).to_be_visible()
    # No turn has been taken yet, so nothing is "new since the last turn", and no change is counted since one.
    expect(prompt(outage).get_by_text(NEW)).to_have_count(0)
    expect(prompt(outage)).not_to_contain_text(lead("prompt.pending"))
    expect(log_step(outage, heading(1, "deploy_tool", server="B"))).to_contain_text("notifications/tools/list_changed")
    legacy, modern = era_sides(outage, COMPARISON)
    # The two eras are a tab of their own: this era's side says the step, the other era's side only that
    # nothing differs.
    expect(modern).to_contain_text("close_ticket")
    expect(legacy).to_contain_text(message("comparison.same", era=message("era.modern")))
    expect(legacy).not_to_contain_text("close_ticket")
    # The wire tab draws the step's messages, with their payloads.
    messages = wire(outage)
    expect(messages).to_contain_text("notifications/tools/list_changed")
    expect(messages).to_contain_text('"listen-1"')
    expect(messages).not_to_contain_text("Mcp-Session-Id")

    # 2. A turn: the model sees all five tools. B's change came before any prompt was cached: it invalidated nothing.
    press(outage, "Take a model turn", 2)
    expect(prompt(outage)).to_contain_text(message("prompt.turns", turns=1, invalidations=0))

    # 3. Add server C: a new row, and C's tools are new since the last turn; the badge reads as words.
    expect(server_row(outage, "C")).to_have_count(0)
    press(outage, "Add server C", 3)
    expect(prompt(outage)).to_contain_text(message("prompt.pending", n=1).strip())
    expect(server_row(outage, "C")).to_have_count(1)
    # Turn 1's prompt is cached; the next turn will miss it, and is counted then.
    expect(prompt(outage)).to_contain_text(message("prompt.turns", turns=1, invalidations=0))
    expect_status(outage, "C", "connected")
    expect(server_cell(outage, "C", "Tools")).to_have_text(", ".join(C_TOOLS))
    for tool in C_TOOLS:
        expect(prompt_tool(outage, tool, "C")).to_contain_text(NEW)
    expect(prompt_tool(outage, "find_slot", "C")).to_have_text(f"find_slot from C {NEW}")
    expect(prompt_tool(outage, "close_ticket", "B")).not_to_contain_text(NEW)

    # 4. A turn: C's tools are no longer marked new, and the prompt cache of turn 1 was missed.
    press(outage, "Take a model turn", 4)
    expect(prompt(outage).get_by_text(NEW)).to_have_count(0)
    expect(prompt(outage)).to_contain_text(message("prompt.turns", turns=2, invalidations=1))

    # 5. A dies: A is down and its tools leave the next prompt, into the "Gone" list.
    press(outage, "A dies", 5)
    expect_status(outage, "A", "down")
    expect(server_cell(outage, "A", "Tools")).to_have_text("none")
    expect_status(outage, "B", "connected")
    expect_prompt(outage, [(t, "B") for t in [*B_TOOLS, "close_ticket"]] + [(t, "C") for t in C_TOOLS])
    expect(gone_list(outage)).to_contain_text("search_docs")
    # The closed stream is drawn as something the host saw, not a message on the wire.
    expect(wire(outage)).to_contain_text("stream closed " + message("wire.stream_end"))

    # 6. A turn: the model reaches for A's tool; the host answers with an error it builds itself.
    press(outage, "Take a model turn", 6)
    expect(gone_list(outage)).to_have_count(0)
    messages = wire(outage)
    expect(messages).to_contain_text("host → model")
    expect(messages).to_contain_text(message("wire.host_built"))
    expect(messages).not_to_contain_text("A → ")
    expect(messages).to_contain_text('"isError": true')

    # 7. A is back: connected again, its tools new; the era tabs show what each era costs.
    press(outage, "A is back", 7)
    expect_status(outage, "A", "connected")
    expect(server_cell(outage, "A", "Stream")).to_have_text(
        narrated("narration.table.listen.acknowledged", id="listen-2")
    )
    for tool in A_TOOLS:
        expect(prompt_tool(outage, tool, "A")).to_contain_text(NEW)
    legacy, modern = era_sides(outage, COMPARISON)
    expect(legacy).to_contain_text("404")
    expect(legacy).to_contain_text("initialize")
    expect(legacy).not_to_contain_text("subscriptions/listen")
    expect(modern).to_contain_text("subscriptions/listen")
    expect(modern).not_to_contain_text("404")

    # 8. A turn. The log keeps every step, newest last.
    press(outage, "Take a model turn", 8)
    expect(log_labels(outage)).to_have_text(
        [
            START,
            heading(1, "deploy_tool", server="B"),
            heading(2, "take_turn"),
            heading(3, "add_server", server="C"),
            heading(4, "take_turn"),
            heading(5, "server_dies", server="A"),
            heading(6, "take_turn"),
            heading(7, "server_back", server="A"),
            heading(8, "take_turn"),
        ]
    )


def test_a_double_click_is_one_press(outage) -> None:
    """The second click of a double click presses nothing: no refused step the learner never meant."""
    outage.get_by_role("button", name="A dies", exact=True).dblclick()
    press(outage, "Take a model turn", 2)  # answered in order: a second "A dies" would come before it
    expect(log_labels(outage)).to_have_count(3)  # the start and two steps


def test_undo_the_legacy_era_and_reset(outage) -> None:
    # A dies while a call on it runs: the era tabs count the host's own items as nothing on the wire.
    press(outage, "The model calls a tool on A", 1)
    press(outage, "A dies", 2)
    expect_status(outage, "A", "down")
    cmp = comparison(outage, COMPARISON)
    nothing = re.escape(message("wire.count_only_local", local="").strip())
    expect(cmp.get_by_text(re.compile("^" + nothing))).to_have_count(2)  # each era's side
    expect(cmp.get_by_text(re.compile(r"^\d+ wire message"))).to_have_count(0)

    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_text([START, step_label(1)])
    expect_status(outage, "A", "connected")
    expect(server_cell(outage, "A", "Tools")).to_have_text("search_docs, read_page")
    expect(prompt_tool(outage, "search_docs", "A")).to_be_visible()

    outage.get_by_role("button", name="Undo").press("Enter")  # from the keyboard, back to the start
    expect(log_labels(outage)).to_have_text([START])
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    # The disabled Undo cannot keep the focus: it stays in the playground, on Reset beside it, not on an
    # event button that the same key pressed again would press.
    expect(outage.get_by_role("button", name="Reset")).to_be_focused()

    # Undo also takes back an era switch.
    outage.get_by_role("radio", name=LEGACY).check()
    expect_era(outage, "legacy")
    outage.get_by_role("button", name="Undo").click()
    expect_era(outage, "modern")
    expect(outage.get_by_role("radio", name=MODERN)).to_be_checked()

    # The legacy era: a session stream, and A's return costs a 404 and a new initialize.
    outage.get_by_role("radio", name=LEGACY).check()
    expect(log_labels(outage).last).to_have_text(step_label(1))
    expect(outage.get_by_role("radio", name=LEGACY)).to_be_checked()
    expect_era(outage, "legacy")
    expect(server_cell(outage, "A", "Stream")).to_contain_text(narrated_lead("narration.table.listen.session"))
    press(outage, "A dies", 2)
    expect_status(outage, "A", "down")
    press(outage, "A is back", 3)
    expect_status(outage, "A", "connected")
    legacy, modern = era_sides(outage, COMPARISON)
    expect(outage.get_by_role("heading", name=message("comparison.mine", era=LEGACY))).to_be_visible()
    expect(legacy).to_contain_text("404")
    expect(modern).to_contain_text("subscriptions/listen")

    # Reset: back to the start, in the era chosen, and the status says how many presses it set aside.
    press(outage, "Add server C", 4)
    expect(server_row(outage, "C")).to_have_count(1)
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text([START])
    expect(servers(outage).get_by_role("rowheader")).to_have_count(2)
    expect(server_row(outage, "C")).to_have_count(0)
    expect_status(outage, "A", "connected")
    expect(prompt(outage)).to_contain_text(message("prompt.turns", turns=0, invalidations=0))
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    set_aside = message("count.press.many", n=4)
    expect(outage.get_by_role("status")).to_have_text(message("playground.restarted", presses=set_aside))
    expect_era(outage, "legacy")
    expect(outage.get_by_role("radio", name=LEGACY)).to_be_checked()


def test_on_a_phone_every_field_is_one_press_away_while_a_press_folds_the_table(page: Page) -> None:
    """A press that changed the table folds what it left alone, with a toggle that shows every field and says
    it is on. A press that changes no row shows every field anyway, and the toggle goes with the fold."""
    page.set_viewport_size({"width": 375, "height": 812})
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "A dies", 1)
    unfold = outage.get_by_role("button", name=message("servers.unfold"))
    expect(server_cell(outage, "B", "Tools")).to_be_hidden()
    unfold.click()
    expect(unfold).to_have_attribute("aria-pressed", "true")
    expect(server_cell(outage, "B", "Tools")).to_be_visible()
    press(outage, "Take a model turn", 2)  # the table does not change
    expect(unfold).to_be_hidden()
    expect(server_cell(outage, "B", "Tools")).to_be_visible()
