"""Panels show what they teach: the era said once, not on every row; counts with the right plural; no
counter or setting that nothing on the panel can move."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .helpers import (
    GATEWAYS,
    OUTAGE,
    OUTAGE_COMPARISON,
    message,
    open_playground,
    press,
    prompt,
    region,
    servers,
    show_tab,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def outage(page: Page) -> Locator:
    return open_playground(page, OUTAGE, "Play out an outage")


def test_the_era_is_said_once(outage: Locator) -> None:
    table = servers(outage)
    expect(table).to_have_accessible_name(message("servers.era_once", era="modern (2026-07-28)"))
    expect(table.get_by_role("columnheader", name="Era")).to_have_count(0)
    expect(table.get_by_text("modern (2026-07-28)")).to_have_count(1)
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect(table).to_have_accessible_name(message("servers.era_once", era="legacy (2025-11-25)"))


def test_counts_use_the_right_plural(outage: Locator) -> None:
    expect(prompt(outage)).to_contain_text("Conversation: 1 message ·")
    press(outage, "Take a model turn", 1)
    expect(prompt(outage)).to_contain_text(re.compile(r"Conversation: \d+ messages"))
    show_tab(outage, "Both eras")
    cmp = region(outage, OUTAGE_COMPARISON)
    expect(cmp).to_contain_text(re.compile(r"\b(1 wire message|\d+ wire messages)\b"))
    expect(cmp).not_to_contain_text(re.compile(r"\b1 wire messages\b"))


def test_no_setting_without_a_control(outage: Locator) -> None:
    # Nothing on this panel turns batching on or off, and nothing here can waste a re-fetch.
    expect(prompt(outage)).not_to_contain_text("Batching")
    expect(prompt(outage)).not_to_contain_text("Wasted re-fetches")
    expect(prompt(outage)).not_to_contain_text("Ignored notifications")
    expect(prompt(outage)).to_contain_text("Prompt cache invalidations: 0")


def test_the_handles_panel_has_no_era_comparison(page: Page) -> None:
    """Handles work alike in both eras and the panel offers no era choice: it shows no era comparison."""
    handles = open_playground(page, GATEWAYS, "Explicit state handles")
    expect(region(handles, "The same step, era by era")).to_have_count(0)
    press(handles, "create_basket", 1)
    expect(handles.get_by_role("heading", name=re.compile("^(Legacy|Modern)"))).to_have_count(0)
