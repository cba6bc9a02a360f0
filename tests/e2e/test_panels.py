"""The gateway and explicit-handles playgrounds (lesson 1) and the misbehaving servers (lesson 2), as
the page draws them: the table, the next prompt, the status line, the tabs, the storage choice and its
keys. What each press answers (servers, tools, counters, narration codes, wire) is tested fast against
the service in tests/web/test_playground_answers.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from lesson.i18n import translate

from .helpers import (
    GATEWAYS,
    LESSON_2,
    NEW,
    START,
    button_label,
    choose_era,
    era_sides,
    expect_era,
    expect_status,
    gone_list,
    heading,
    lead,
    log_labels,
    log_step,
    message,
    open_playground,
    press,
    prompt,
    prompt_tool,
    region,
    server_cell,
    servers,
    wire,
)

pytestmark = pytest.mark.e2e


def test_gateway_draws_its_backends_and_each_change(page: Page) -> None:
    """The host's table has one row, G: what sits behind it shows as G's tools changing, and the
    prompt says which backend each tool comes from."""
    gateway = open_playground(page, GATEWAYS, "A gateway in front")
    expect(servers(gateway).get_by_role("rowheader")).to_have_text([re.compile(r"^G \(gateway\)")])
    expect_status(gateway, "G", "connected")
    expect(prompt_tool(gateway, "create_ticket", "B via G")).to_be_visible()

    press(gateway, "B fails its health check", 1)
    expect_status(gateway, "G", "connected")
    expect(server_cell(gateway, "G", "Tools")).not_to_contain_text("create_ticket")
    expect(server_cell(gateway, "G", "Last error")).to_have_text("—")
    expect(prompt_tool(gateway, "create_ticket", "B via G")).to_have_count(0)
    expect(prompt_tool(gateway, "search_docs", "A via G")).to_be_visible()
    # The note says where the tools came from the way the prompt did: from B, via G.
    left = gateway.get_by_text(re.compile("^" + re.escape(message("playground.left", tools=""))))
    expect(left).to_contain_text(message("playground.tool_from_via", tool="create_ticket", origin="B", server="G"))
    expect(log_step(gateway, heading(1, "backend_fails", backend="B"))).to_contain_text("2 other listening hosts")
    expect(wire(gateway), "the notice to another listening host is drawn").to_contain_text("G → host-3")

    press(gateway, "Take a model turn", 2)
    # The status line names every change it marks, the turns taken among them.
    turns = message("changes.was", now=message("changes.turns", n=1), was=0)
    expect(gateway.get_by_role("status").filter(has_text=lead("playground.after", k=2))).to_contain_text(turns)

    press(gateway, "B recovers", 3)
    expect(server_cell(gateway, "G", "Tools")).to_contain_text("create_ticket")
    expect(prompt_tool(gateway, "create_ticket", "B via G")).to_contain_text(NEW)

    press(gateway, "C joins the gateway", 4)
    expect(server_cell(gateway, "G", "Tools")).to_contain_text("find_slot")
    expect(prompt_tool(gateway, "find_slot", "C via G")).to_contain_text(NEW)

    press(gateway, "A leaves the gateway", 5)
    expect(servers(gateway).get_by_role("rowheader")).to_have_count(1)
    expect(prompt_tool(gateway, "search_docs", "A via G")).to_have_count(0)
    # The model saw A's tools at its last turn: they are listed as gone since then, named as the prompt
    # named them (from A, via G), and outlined as this press's change; no note names them a second time.
    gone = prompt(gateway).get_by_role("list", name=message("prompt.gone_label"))
    struck = gone.get_by_role("listitem").filter(has_text="search_docs")
    expect(struck).to_contain_text(message("prompt.from_via", origin="A", server="G").strip())
    expect(struck).to_have_attribute("data-mark", "")
    expect(gateway.get_by_text(re.compile("^" + re.escape(message("playground.left", tools=""))))).to_have_count(0)

    # The legacy era: the table says it once; this era's side of the comparison says the notice, the
    # other era's side does not again; the wire shows the legacy session header.
    choose_era(gateway, "legacy")
    expect_era(gateway, "legacy")
    press(gateway, "B fails its health check", 7)
    legacy, modern = era_sides(gateway)
    notice = "G sent notifications/tools/list_changed"
    expect(legacy).to_contain_text(notice)
    expect(modern).not_to_contain_text(notice)
    expect(wire(gateway)).to_contain_text("Mcp-Session-Id")


def test_handles_storage_choice_keeps_each_choices_presses(page: Page) -> None:
    handles = open_playground(page, GATEWAYS, "Explicit state handles")
    durable = handles.get_by_role("radio", name="Baskets in a durable store")
    memory = handles.get_by_role("radio", name="Baskets in process memory")
    status = handles.get_by_role("status")
    expect(durable).to_be_checked()
    # This panel shows no prompt, and no era comparison: handles work alike in both eras.
    expect(prompt(handles)).to_have_count(0)
    expect(region(handles, "The same step, era by era")).to_have_count(0)

    memory.check()
    expect(log_labels(handles)).to_have_text([START])
    press(handles, "create_basket", 1)
    # Reset keeps the chosen variant, and says the presses so far are set aside.
    handles.get_by_role("button", name="Reset").click()
    expect(log_labels(handles)).to_have_text([START])
    expect(memory).to_be_checked()
    expect(status).to_contain_text(message("count.press.one", n=1))

    # Another place for the baskets is another start: the status names it and what was set aside.
    press(handles, "create_basket", 1)
    durable.check()
    expect(log_labels(handles)).to_have_text([START])
    expect(status).to_contain_text("Baskets in a durable store")
    expect(status).to_contain_text(message("count.press.one", n=1))
    # Choosing process memory again brings back the press made under it.
    memory.check()
    expect(log_labels(handles)).to_have_text([START, heading(1, "create_basket")])
    expect(status).to_contain_text("Baskets in process memory")
    expect(handles.get_by_role("button", name="Undo")).to_be_enabled()

    # Arrow keys in a radio group choose each option they pass: down and back up again used to leave
    # the learner at a fresh start with every press gone.
    memory.press("ArrowUp")
    expect(durable).to_be_checked()
    press(handles, "create_basket", 1)
    press(handles, "add_item", 2)
    durable.press("ArrowDown")
    expect(memory).to_be_checked()
    expect(log_labels(handles)).to_have_text([START, heading(1, "create_basket")])
    memory.press("ArrowUp")
    expect(durable).to_be_checked()
    expect(log_labels(handles)).to_have_text([START, heading(1, "create_basket"), heading(2, "add_item")])
    expect(status).to_contain_text(message("count.press.many", n=2))
    press(handles, "add_item", 3)  # and it carries on from there
    expect(log_step(handles, heading(3, "add_item"))).to_contain_text('"items": ["A-100", "A-100"]')
    messages = wire(handles)
    expect(messages).to_contain_text('"name": "add_item"')
    expect(messages).to_contain_text('"basket_id"')
    expect(handles.get_by_role("heading", name=re.compile("^(Legacy|Modern)"))).to_have_count(0)


def test_misbehaving_servers_draw_their_counters_and_prompt(page: Page) -> None:
    guide = open_playground(page, LESSON_2, "Misbehaving servers")
    before = ["create_ticket from P", "assign_ticket from P", "query from Q", "list_tables from Q"]
    press(guide, button_label("guide", "undeclared"), 1)
    # Nothing changed on screen: the status line gives the step's note, not only that.
    said = guide.get_by_role("status").filter(has_text=lead("playground.after", k=1))
    regions = " or ".join(message(f"changes.region.{r}") for r in ("servers", "prompt"))
    expect(said).to_contain_text(message("changes.none", regions=regions))
    expect(said).to_contain_text(translate("en", "narration.undeclared_list_changed_not_sent", server="Q"))
    expect(prompt(guide).get_by_role("listitem")).to_have_text(before)
    expect(prompt(guide)).to_contain_text(message("prompt.turns", turns=0, invalidations=0))
    expect(wire(guide)).to_contain_text(message("wire.none"))

    press(guide, button_label("guide", "timer"), 2)
    expect(prompt(guide)).to_contain_text(message("counter.wasted", n=1))
    # Undone, that counter is back to 0 and no longer shown: the line it left carries the mark.
    guide.get_by_role("button", name="Undo").click()
    expect(prompt(guide)).not_to_contain_text(message("counter.wasted", n=1))
    expect(prompt(guide).locator("p.counters")).to_have_attribute("data-mark", message("mark.changed"))
    press(guide, button_label("guide", "timer"), 2)

    press(guide, button_label("guide", "admin"), 3)
    expect(prompt_tool(guide, "delete_workspace", "P")).to_be_visible()
    expect(server_cell(guide, "P", "Tools")).to_contain_text("delete_workspace")
    messages = wire(guide)
    expect(messages).to_contain_text('"method": "tools/list"')
    expect(messages).not_to_contain_text("notifications/tools/list_changed")

    press(guide, "Take a model turn", 4)
    # The turn moved the turns line, which carries the mark; the note on the silent Q above it did not move.
    turns = prompt(guide).get_by_text(lead("prompt.turns", turns=1))
    expect(turns).to_have_attribute("data-mark", message("mark.changed"))
    expect(prompt(guide).get_by_text(lead("prompt.relisted_first", servers="Q"))).not_to_have_attribute(
        "data-mark", re.compile(".")
    )
    press(guide, button_label("guide", "member"), 5)
    expect(prompt_tool(guide, "delete_workspace", "P")).to_have_count(0)
    expect(gone_list(guide)).to_contain_text("delete_workspace")
    guide.get_by_role("button", name="Undo").click()
    expect(log_labels(guide)).to_have_count(5)  # the start and steps 1 to 4
    expect(prompt_tool(guide, "delete_workspace", "P")).to_be_visible()

    choose_era(guide, "legacy")
    expect_era(guide, "legacy")
    press(guide, button_label("guide", "undeclared"), 6)
    expect(prompt(guide)).to_contain_text(message("counter.ignored", n=1))
    messages = wire(guide)
    expect(messages).to_contain_text("notifications/tools/list_changed")
    expect(messages).to_contain_text("Q → host")
