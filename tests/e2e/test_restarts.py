"""The restart lab as the page draws it: a situation chosen, the server restarted, both eras side by
side, their wire messages behind a summary, and each era's servers table afterwards. What each era
does after each restart (codes, statuses, methods) is tested fast against the service, in
tests/web/test_restart_outcomes.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root, load_panels

from .helpers import RESTARTS, lead, message, narrated, narrated_lead, region, restart_lab

pytestmark = pytest.mark.e2e

SITUATIONS = {
    "idle": "idle",
    "in-flight": "a call is in flight",
    "listen": "a listen stream is open",
    "token": "the user's token is valid",
}
NOT_IDEMPOTENT = "The call in flight is not idempotent (send_alert)"


def restart(lab: Locator, situation: str) -> tuple[Locator, Locator]:
    """Choose the situation as a person would, restart, return both sides (only that result shows)."""
    lab.get_by_role("radio", name=SITUATIONS[situation], exact=True).check()
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation=SITUATIONS[situation]))
    # One side per era, then what both eras say (every restart starts the same way); nothing older.
    names = [re.compile("^" + re.escape(message(key))) for key in ("lab.both", "era.legacy", "era.modern")]
    expect(lab.get_by_role("region"), f"{situation}: each era, then both eras, nothing else").to_have_count(3)
    for name in names:
        expect(lab.get_by_role("region", name=name)).to_have_count(1)
    return region(lab, "Legacy (2025-11-25)"), region(lab, "Modern (2026-07-28)")


def open_wire(side: Locator) -> Locator:
    """Expand every "Wire messages (n)" of one side."""
    summaries = side.get_by_text(re.compile(r"^Wire messages \(\d+\)"))
    for i in range(summaries.count()):
        summaries.nth(i).click()
    return side


def test_the_lab_draws_each_restart_in_both_eras(page: Page) -> None:
    """One page, one restart after another, as a learner goes through the situations."""
    page.goto(RESTARTS)
    lab = restart_lab(page)
    expect(lab.get_by_role("button", name="Restart the server")).to_be_enabled()
    # Nothing is shown before a restart.
    expect(lab.get_by_role("radio", name="idle", exact=True)).to_be_checked()
    expect(lab.get_by_role("region")).to_have_count(0)
    expect(lab.get_by_role("status")).to_have_text("")

    # Each step's wire messages sit behind a summary: the status line, the headers, the JSON body.
    legacy, modern = restart(lab, "idle")
    # Told apart when tabbed to: each summary names its era and step (two eras may both send none).
    names = [s.inner_text() for s in lab.get_by_text(re.compile(r"^Wire messages \(\d+\)")).all()]
    assert len(names) > 1 and len(set(names)) == len(names), names
    open_wire(legacy)
    open_wire(modern)
    expect(legacy, "legacy: 404 to the old session").to_contain_text("HTTP 404 Not Found")
    expect(legacy, "legacy: a new session").to_contain_text('"method": "initialize"')
    expect(modern).not_to_contain_text("404")

    # A message's headers are drawn as "Name: value".
    _, modern = restart(lab, "in-flight")
    expect(open_wire(modern)).to_contain_text("Mcp-Name: get_forecast")
    # The restart is step 2: the step before it, which set the call going, is named above the result.
    expect(lab.get_by_text(lead("lab.setup"))).to_contain_text(lead("lab.setup_step", step=1))

    # What crossed no wire is marked as the host's own, in words, not only by its look.
    lab.get_by_role("checkbox", name=NOT_IDEMPOTENT).check()
    lab.get_by_role("button", name="Run again").click()
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation=SITUATIONS["in-flight"]))
    for side in (region(lab, "Legacy (2025-11-25)"), region(lab, "Modern (2026-07-28)")):
        open_wire(side)
        expect(side.get_by_text(message("wire.host_built"), exact=True)).to_be_visible()
        expect(side.get_by_text(message("wire.stream_end"), exact=True)).to_be_visible()

    # Each side ends with its servers table: the stream each era holds after the restart.
    legacy, modern = restart(lab, "listen")
    # A summary counts what crossed the wire; what the host saw itself (the stream's end) is counted apart.
    for side in (legacy, modern):
        summary = side.get_by_text(re.compile(r"^Wire messages \(\d+\), and "))
        text = summary.inner_text()
        counted = int(re.search(r"\((\d+)\)", text).group(1))
        summary.click()
        items = side.get_by_role("group").filter(has_text=text).get_by_role("listitem")
        local = items.filter(has_text=message("wire.stream_end"))
        expect(local).to_have_count(1)
        expect(items).to_have_count(counted + 1)
    expect(modern.get_by_role("table")).to_contain_text(narrated("narration.table.listen.acknowledged", id="listen-2"))
    expect(legacy.get_by_role("table")).to_contain_text(narrated_lead("narration.table.listen.session"))
    _, modern = restart(lab, "token")
    expect(modern).not_to_contain_text(narrated_lead("narration.call_lost_not_idempotent"))  # in-flight's is gone
    # A situation's note, from the content, comes with its result.
    token = next(s for s in load_panels(default_root())["restarts"].situations if s.id == "token")
    expect(lab.get_by_text(token.note, exact=True)).to_be_visible()
