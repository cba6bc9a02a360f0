"""Panels show what they teach: the era said once, not on every row; counts with the right plural; no
counter or setting that nothing on the panel can move. (The handles panel, which offers no era
choice, shows no era comparison: tests/e2e/test_panels.py.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import (
    OUTAGE,
    OUTAGE_COMPARISON,
    choose_era,
    message,
    open_playground,
    press,
    prompt,
    region,
    servers,
    show_tab,
)

pytestmark = pytest.mark.e2e


def test_the_outage_panel_says_each_thing_once_and_counts_right(page: Page) -> None:
    outage = open_playground(page, OUTAGE, "Play out an outage")
    # Nothing on this panel turns batching on or off, and nothing here can waste a re-fetch or ignore
    # a notice: those counters are not shown.
    for absent in ("Batching", message("counter.wasted", n=0), message("counter.ignored", n=0)):
        expect(prompt(outage), f"{absent!r} has no control here").not_to_contain_text(absent)
    expect(prompt(outage)).to_contain_text(message("prompt.turns", turns=0, invalidations=0))
    # One message, singular.
    one = message("counter.conversation", messages=message("count.message.one", n=1))
    expect(prompt(outage)).to_contain_text(one + " ·")

    # The era is a property of the host: said once, in the table's name, not in a column.
    table = servers(outage)
    expect(table).to_have_accessible_name(message("servers.era_once", era=message("era.modern")))
    expect(table.get_by_role("columnheader", name="Era")).to_have_count(0)
    expect(table.get_by_text(message("era.modern"))).to_have_count(1)

    press(outage, "Take a model turn", 1)
    many = message("counter.conversation", messages=message("count.message.many", n=0)).replace("0", r"\d+")
    expect(prompt(outage)).to_contain_text(re.compile(many))
    show_tab(outage, "Both eras")
    cmp = region(outage, OUTAGE_COMPARISON)
    expect(cmp).to_contain_text(re.compile(r"\b(1 wire message|\d+ wire messages)\b"))
    expect(cmp).not_to_contain_text(re.compile(r"\b1 wire messages\b"))

    choose_era(outage, "legacy")
    expect(table).to_have_accessible_name(message("servers.era_once", era=message("era.legacy")))
