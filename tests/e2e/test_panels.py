"""The gateway and explicit-handles playgrounds (lesson 1) and the misbehaving servers (lesson 2)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .helpers import (
    GATEWAYS,
    LESSON_2,
    NEW,
    era_sides,
    expect_era,
    expect_status,
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
    wire,
)

pytestmark = pytest.mark.e2e


# --- A gateway in front ------------------------------------------------------------------------


@pytest.fixture
def gateway(page: Page) -> Locator:
    return open_playground(page, GATEWAYS, "A gateway in front")


def test_gateway_start(gateway: Locator) -> None:
    expect(servers(gateway).get_by_role("rowheader")).to_have_text(
        [re.compile(r"^G \(gateway\)"), re.compile(r"^A \(docs, behind G\)"), re.compile(r"^B \(tracker, behind G\)")]
    )
    expect_status(gateway, "G", "connected")
    expect(prompt_tool(gateway, "create_ticket", "B via G")).to_be_visible()


def test_gateway_backend_fails_recovers_and_c_joins(gateway: Locator) -> None:
    press(gateway, "B fails its health check", 1)
    expect_status(gateway, "B", "hidden")
    expect(server_cell(gateway, "B", "Tools")).to_have_text("none")
    expect(server_cell(gateway, "B", "Last error")).to_have_text("failing health checks")
    expect_status(gateway, "A", "connected")
    expect_status(gateway, "G", "connected")
    expect(prompt_tool(gateway, "create_ticket", "B via G")).to_have_count(0)
    expect(prompt_tool(gateway, "assign_ticket", "B via G")).to_have_count(0)
    expect(prompt_tool(gateway, "search_docs", "A via G")).to_be_visible()
    # The note says where the tools came from the way the prompt did: from B, via G.
    left = gateway.get_by_text(re.compile("^Left the next prompt with this press"))
    expect(left).to_contain_text("create_ticket from B via G")
    step = log_step(gateway, "Step 1: B fails its health check")
    expect(step).to_contain_text("health check")
    expect(step).to_contain_text("notifications/tools/list_changed")
    expect(step).to_contain_text("2 other listening hosts")
    for other in ("host-2", "host-3"):  # the same notice goes to every listening host
        expect(wire(gateway)).to_contain_text(f"G → {other}")

    press(gateway, "Take a model turn", 2)
    expect(log_step(gateway, "Step 2: The model takes a turn")).to_contain_text("prompt with 2 tools")
    # The status line names every change it marks, the turns taken among them.
    expect(gateway.get_by_role("status").filter(has_text="After press 2")).to_contain_text("turns taken 1 (was 0)")

    press(gateway, "B recovers", 3)
    expect_status(gateway, "B", "connected")
    expect(prompt_tool(gateway, "create_ticket", "B via G")).to_contain_text(NEW)
    expect(log_step(gateway, "Step 3: B recovers")).to_contain_text("The gateway shows its tools again.")

    expect(server_row(gateway, "C")).to_have_count(0)
    press(gateway, "C joins the gateway", 4)
    expect(server_row(gateway, "C")).to_have_count(1)
    expect(servers(gateway).get_by_role("rowheader", name=re.compile(r"^C \(calendar, behind G\)"))).to_be_visible()
    expect(prompt_tool(gateway, "find_slot", "C via G")).to_contain_text(NEW)
    step = log_step(gateway, "Step 4: C joins gateway G")
    expect(step).to_contain_text("one client")
    expect(step).to_contain_text("other listening hosts")

    press(gateway, "A leaves the gateway", 5)
    expect(server_row(gateway, "A")).to_have_count(0)
    expect(prompt_tool(gateway, "search_docs", "A via G")).to_have_count(0)
    # One client the whole time: G is the only server the host itself connects to.
    expect(servers(gateway).get_by_role("rowheader", name=re.compile(r"^\w \(\w+\)$"))).to_have_count(1)


def test_gateway_repeated_failure_says_why(gateway: Locator) -> None:
    press(gateway, "B fails its health check", 1)
    press(gateway, "B fails its health check", 2)
    expect(log_step(gateway, "Step 2: B fails its health check")).to_contain_text(
        "B is already failing its health checks."
    )
    press(gateway, "B recovers", 3)
    press(gateway, "B recovers", 4)
    expect(log_step(gateway, "Step 4: B recovers")).to_contain_text("B is not failing its health checks.")


def test_gateway_in_legacy(gateway: Locator) -> None:
    gateway.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_era(gateway, "legacy (2025-11-25)")
    press(gateway, "B fails its health check", 2)
    expect_status(gateway, "B", "hidden")
    legacy, modern = era_sides(gateway)
    # This era's side says it (the two eras are a tab of their own), the other era's side does not again.
    notice = "G sent notifications/tools/list_changed"
    expect(legacy).to_contain_text(notice)
    expect(modern).not_to_contain_text(notice)
    expect(log_step(gateway, "Step 2: B fails its health check")).to_contain_text(notice)
    expect(wire(gateway)).to_contain_text("Mcp-Session-Id")


# --- Explicit state handles --------------------------------------------------------------------


@pytest.fixture
def handles(page: Page) -> Locator:
    return open_playground(page, GATEWAYS, "Explicit state handles")


BASKET = re.compile(r"bsk_\w+")
UNKNOWN = re.compile(r"Unknown basket_id 'bsk_\w+': it has expired or this server no longer has it")


def test_handles_durable_store(handles: Locator) -> None:
    expect(handles.get_by_role("radio", name="Baskets in a durable store")).to_be_checked()
    # This panel shows no prompt region.
    expect(prompt(handles)).to_have_count(0)
    press(handles, "create_basket", 1)
    step = log_step(handles, "Step 1: The model calls create_basket")
    expect(step).to_contain_text("durable store")
    expect(step).to_contain_text(BASKET)
    press(handles, "add_item", 2)
    expect(log_step(handles, "Step 2: The model calls add_item")).to_contain_text('"items": ["A-100"]')

    press(handles, "Restart the shop server", 3)
    expect(log_step(handles, "Step 3: S restarts")).to_contain_text("S restarted")
    expect_status(handles, "S", "connected")
    press(handles, "add_item", 4)
    step = log_step(handles, "Step 4: The model calls add_item")
    expect(step).to_contain_text('"items": ["A-100", "A-100"]')
    expect(step).not_to_contain_text("Unknown basket_id")

    # Replica 2 reads the same durable store.
    press(handles, "Next call lands on replica 2", 5)
    press(handles, "add_item", 6)
    expect(log_step(handles, "Step 6: The model calls add_item")).to_contain_text('"A-100", "A-100", "A-100"')


def test_handles_in_process_memory(handles: Locator) -> None:
    handles.get_by_role("radio", name="Baskets in process memory").check()
    expect(handles.get_by_role("radio", name="Baskets in process memory")).to_be_checked()
    expect(log_labels(handles)).to_have_text(["Start"])

    press(handles, "create_basket", 1)
    expect(log_step(handles, "Step 1: The model calls create_basket")).to_contain_text("the memory of replica 1")
    press(handles, "Restart the shop server", 2)
    press(handles, "add_item", 3)
    step = log_step(handles, "Step 3: The model calls add_item")
    expect(step).to_contain_text(UNKNOWN)
    expect(step).to_contain_text("create_basket")

    # A new basket lives in replica 1's memory; replica 2 has never heard of it.
    press(handles, "create_basket", 4)
    press(handles, "Next call lands on replica 2", 5)
    expect(log_step(handles, "Step 5: Calls land on replica 2")).to_contain_text("replica 2")
    press(handles, "add_item", 6)
    expect(log_step(handles, "Step 6: The model calls add_item")).to_contain_text(UNKNOWN)
    press(handles, "Back to replica 1", 7)
    press(handles, "add_item", 8)
    step = log_step(handles, "Step 8: The model calls add_item")
    expect(step).to_contain_text('"items": ["A-100"]')
    expect(step).to_contain_text("the memory of replica 1")

    # Reset keeps the chosen variant, and says the presses so far are set aside.
    handles.get_by_role("button", name="Reset").click()
    expect(log_labels(handles)).to_have_text(["Start"])
    expect(handles.get_by_role("radio", name="Baskets in process memory")).to_be_checked()
    expect(handles.get_by_role("status")).to_contain_text(message("count.press.many", n=8))

    # Another place for the baskets is another start: the status names it and what was set aside.
    press(handles, "create_basket", 1)
    handles.get_by_role("radio", name="Baskets in a durable store").check()
    expect(log_labels(handles)).to_have_text(["Start"])
    status = handles.get_by_role("status")
    expect(status).to_contain_text("Baskets in a durable store")
    expect(status).to_contain_text(message("count.press.one", n=1))

    # Choosing process memory again brings back the press made under it.
    handles.get_by_role("radio", name="Baskets in process memory").check()
    expect(log_labels(handles)).to_have_text(["Start", "Step 1: The model calls create_basket"])
    expect(status).to_contain_text("Baskets in process memory")
    expect(handles.get_by_role("button", name="Undo")).to_be_enabled()


def test_arrowing_through_the_storage_choices_loses_no_presses(handles: Locator) -> None:
    """Arrow keys in a radio group choose each option they pass: down and back up again used to
    leave the learner at a fresh start with every press gone."""
    press(handles, "create_basket", 1)
    press(handles, "add_item", 2)
    durable = handles.get_by_role("radio", name="Baskets in a durable store")
    durable.focus()
    durable.press("ArrowDown")
    expect(handles.get_by_role("radio", name="Baskets in process memory")).to_be_checked()
    expect(log_labels(handles)).to_have_text(["Start"])
    handles.get_by_role("radio", name="Baskets in process memory").press("ArrowUp")
    expect(durable).to_be_checked()
    expect(log_labels(handles)).to_have_text(
        ["Start", "Step 1: The model calls create_basket", "Step 2: The model calls add_item"]
    )
    expect(handles.get_by_role("status")).to_contain_text(message("count.press.many", n=2))
    press(handles, "add_item", 3)  # and it carries on from there
    expect(log_step(handles, "Step 3: The model calls add_item")).to_contain_text('"items": ["A-100", "A-100"]')


def test_handles_add_item_before_any_basket(handles: Locator) -> None:
    press(handles, "add_item", 1)
    expect(log_step(handles, "Step 1: The model calls add_item")).to_contain_text(
        "The model has no basket_id yet: create a basket first."
    )


def test_handles_wire_shows_the_handle(handles: Locator) -> None:
    press(handles, "create_basket", 1)
    press(handles, "add_item", 2)
    messages = wire(handles)
    expect(messages).to_contain_text('"name": "add_item"')
    expect(messages).to_contain_text('"basket_id"')


# --- Misbehaving servers (lesson 2) --------------------------------------------------------------


@pytest.fixture
def guide(page: Page) -> Locator:
    return open_playground(page, LESSON_2, "Misbehaving servers")


def test_undeclared_list_changed_modern(guide: Locator) -> None:
    before = ["create_ticket from P", "assign_ticket from P", "query from Q", "list_tables from Q"]
    press(guide, "Q sends list_changed without declaring it", 1)
    step = log_step(guide, "Step 1: Q sends list_changed without declaring it")
    expect(step).to_contain_text("nothing reaches the host")
    expect(step).not_to_contain_text("invalidated")
    # Nothing changed on screen: the status line gives the step's note, not only that.
    said = guide.get_by_role("status").filter(has_text="After press 1")
    expect(said).to_contain_text(message("changes.none"))
    expect(said).to_contain_text("nothing reaches the host")
    expect(prompt(guide).get_by_role("listitem")).to_have_text(before)
    expect(prompt(guide)).to_contain_text("Prompt cache invalidations: 0")
    expect(wire(guide)).to_contain_text(message("wire.none"))


def test_undeclared_list_changed_legacy(guide: Locator) -> None:
    guide.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_era(guide, "legacy (2025-11-25)")
    press(guide, "Q sends list_changed without declaring it", 2)
    step = log_step(guide, "Step 2: Q sends list_changed without declaring it")
    expect(step).to_contain_text("tools.listChanged")
    expect(step).to_contain_text("ignores it")
    expect(prompt(guide)).to_contain_text("Ignored notifications: 1")
    messages = wire(guide)
    expect(messages).to_contain_text("notifications/tools/list_changed")
    expect(messages).to_contain_text("Q → host")


def test_timer_wastes_refetches(guide: Locator) -> None:
    press(guide, "P's timer fires list_changed", 1)
    expect(log_step(guide, "Step 1: P's timer fires list_changed")).to_contain_text("(1 wasted re-fetch so far)")
    press(guide, "P's timer fires list_changed", 2)
    expect(log_step(guide, "Step 2: P's timer fires list_changed")).to_contain_text("(2 wasted re-fetches so far)")
    expect(prompt(guide)).to_contain_text("Wasted re-fetches: 2")
    expect(prompt(guide)).to_contain_text("Prompt cache invalidations: 0")
    expect(wire(guide)).to_contain_text("Fired by a timer: nothing changed.")


def test_sign_in_as_admin_and_back(guide: Locator) -> None:
    expect(prompt_tool(guide, "delete_workspace", "P")).to_have_count(0)
    press(guide, "Sign in to P as an admin", 1)
    expect(prompt_tool(guide, "delete_workspace", "P")).to_be_visible()
    expect(server_cell(guide, "P", "Tools")).to_contain_text("delete_workspace")
    step = log_step(guide, "Step 1: The user signs in to P as admin")
    expect(step).to_contain_text("authorization")
    # Nothing changed on the server: the client re-lists by itself, with no list_changed.
    expect(step).to_contain_text("cacheScope: private")
    messages = wire(guide)
    expect(messages).to_contain_text('"method": "tools/list"')
    expect(messages).not_to_contain_text("notifications/tools/list_changed")

    press(guide, "Take a model turn", 2)
    step = log_step(guide, "Step 2: The model takes a turn")
    expect(step).to_contain_text("delete_workspace")
    # A destructive tool is not called the moment it appears: a careful host asks the user first.
    expect(step).to_contain_text("asks the user")
    expect(wire(guide)).not_to_contain_text('"name": "delete_workspace"')
    press(guide, "Sign in to P as a member", 3)
    expect(prompt_tool(guide, "delete_workspace", "P")).to_have_count(0)
    expect(prompt(guide).get_by_role("list", name="Gone since the last turn")).to_contain_text("delete_workspace")
    press(guide, "Sign in to P as a member", 4)
    expect(log_step(guide, "Step 4: The user signs in to P as member")).to_contain_text(
        "already signed in to P as member"
    )


def test_guide_undo(guide: Locator) -> None:
    press(guide, "Sign in to P as an admin", 1)
    guide.get_by_role("button", name="Undo").click()
    expect(log_labels(guide)).to_have_text(["Start"])
    expect(prompt_tool(guide, "delete_workspace", "P")).to_have_count(0)
    expect(log(guide)).to_contain_text("declares listChanged")


def test_server_that_never_announces_is_relisted_before_a_turn(guide: Locator) -> None:
    # list_changed is a SHOULD: Q never declared it, so its change arrives silently...
    press(guide, "Q deploys a new tool", 1)
    expect(wire(guide)).not_to_contain_text("notifications/tools/list_changed")
    expect(prompt_tool(guide, "explain_query", "Q")).to_have_count(0)
    # ...and the host re-lists Q on its own before the next turn, so the model still sees it.
    press(guide, "Take a model turn", 2)
    expect(prompt_tool(guide, "explain_query", "Q")).to_be_visible()
    expect(wire(guide)).to_contain_text('"method": "tools/list"')
