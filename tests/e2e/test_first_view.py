"""What a lesson page fetches at load, and what it leaves for later: a page on its own does not fetch the
code for a portal's frame (embed.js), progress files or Start over until they are used, and each still
works when used; a framed page fetches embed.js and reports to its portal; a press leaves the wire's
diagrams, off view in their tab, until the tab is chosen, and they then show the step on view."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ..embed.conftest import static_origin  # noqa: F401, F811 - a fixture: a second loopback origin
from .helpers import OUTAGE, narrated, open_playground, press, show_tab, wire_region

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"
LATER = ("embed.js", "progress-file.js", "startover.js")


def fetched(page: Page) -> list[str]:
    """The file name of every script the page asks for from now on."""
    names: list[str] = []
    page.on("request", lambda r: names.append(r.url.rsplit("/", 1)[-1].split("?")[0]))
    return names


def test_a_page_on_its_own_leaves_code_and_views_until_used(page: Page) -> None:
    """The frame and progress code is fetched when used; then a press leaves the tabs off view until
    they are chosen."""
    names = fetched(page)
    outage = open_playground(page, OUTAGE, TITLE)
    page.wait_for_load_state("networkidle")
    assert "app.js" in names and "playground.js" in names
    for name in LATER:
        assert name not in names, f"{name} fetched at load"
    # Used, each comes and does its part: Start over asks first, a download says it is on its way.
    page.get_by_role("button", name="Start over", exact=True).click()
    dialog = page.get_by_role("dialog", name="Start this lesson over?")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Keep my progress")).to_be_focused()
    dialog.get_by_role("button", name="Keep my progress").click()
    expect(dialog).to_be_hidden()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download my progress").click()
    assert download.value.suggested_filename == "an-outage-progress.json"
    expect(page.get_by_role("status").filter(has_text="downloading")).to_be_visible()
    assert "startover.js" in names and "progress-file.js" in names
    assert "embed.js" not in names

    press(outage, "Take a model turn", 1)
    press(outage, "A dies", 2)
    # The two eras and the wire were not on view: chosen now, they show the step on view.
    show_tab(outage, "Both eras")
    expect(outage.get_by_role("tabpanel", name="Both eras")).to_contain_text(
        narrated("narration.process_died", server="A")
    )
    wire = wire_region(outage)
    expect(wire.get_by_role("figure")).to_have_count(2)
    # With the wire on view, the next press redraws it at once: A's return crosses the wire.
    press(outage, "A is back", 3)
    expect(wire.get_by_role("figure").first).to_contain_text("initialize")


@pytest.fixture
def portal(
    page: Page,
    serve_app: Callable[..., str],
    static_origin: Callable[[Path], str],  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> str:
    """A portal's page on a second loopback origin, framing the lesson; gives its URL."""
    origin = static_origin(tmp_path)
    app = serve_app(EMBED_ORIGINS=origin)
    (tmp_path / "portal.html").write_text(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title>
<script>window.received = []; addEventListener("message", (e) => window.received.push(e.data));</script>
</head><body><h1>Portal</h1>
<iframe id="lesson" title="Lesson" src="{app}/embed/an-outage" style="width: 100%; height: 600px"></iframe>
</body></html>"""
    )
    return f"{origin}/portal.html"


def test_a_framed_page_fetches_embed_js_and_reports_to_its_portal(page: Page, portal: str) -> None:
    names = fetched(page)
    page.goto(portal)
    lesson = page.frame_locator("#lesson")
    expect(lesson.get_by_role("heading", level=1)).to_be_visible()
    # The lesson asks its portal for saved progress and for a frame as tall as itself (embed.js's work).
    page.wait_for_function("window.received.some((m) => m.context === 'lesson' && m.action === 'ready')")
    page.wait_for_function("window.received.some((m) => m.context === 'h5p' && m.action === 'hello')")
    assert "embed.js" in names
