"""The wire as a sequence diagram per era: an arrow per frame, host-built items drawn
apart and labelled, the full JSON on demand, usable from the keyboard and at 375 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from .helpers import (
    GATEWAYS,
    LESSON_2,
    OUTAGE,
    OUTAGE_COMPARISON,
    choose_era,
    comparison,
    log_labels,
    message,
    open_playground,
    press,
    step_label,
    wire,
    wire_region,
)

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"
ARROW = re.compile(r": frame \d+ of \d+, ")


@pytest.fixture
def outage(page: Page) -> Locator:
    page.set_viewport_size({"width": 1280, "height": 800})
    return open_playground(page, OUTAGE, TITLE)


def diagram(section: Locator, era: str) -> Locator:
    """One era's diagram: a figure named by its caption ("Modern (2026-07-28): this playground · …")."""
    return wire_region(section).get_by_role("figure", name=re.compile("^" + re.escape(era)))


def arrows(figure: Locator) -> Locator:
    return figure.get_by_role("button", name=ARROW)


def opened(figure: Locator) -> Locator:
    """The frame opened from an arrow: the box the arrows control."""
    return figure.locator(".seq-detail")


def test_the_wire_list_and_one_arrow_per_frame_in_both_eras_read_by_keyboard(outage: Locator) -> None:
    """The list under the diagram is drawn when it is opened: opened after some presses it shows the
    last press's frames, and while it is open each press redraws it. Then, back on B's deploy (two
    presses undone), an arrow per frame in both eras, and the keyboard reads every frame."""
    press(outage, "B deploys a new tool", 1)
    press(outage, "Take a model turn", 2)
    listed = wire(outage).get_by_role("group").get_by_role("listitem")
    modern = diagram(outage, "Modern (2026-07-28): this playground")
    expect(listed).to_have_count(arrows(modern).count())
    expect(listed.first).to_contain_text("tools/call")
    # Pressed with the wire's tab on view (the helper would read the log's tab).
    outage.get_by_role("button", name="A dies", exact=True).click()
    expect(listed.first).not_to_contain_text("tools/call")
    expect(listed).to_have_count(arrows(modern).count())
    for steps in (3, 2):  # back to B's deploy: the start and step 1
        outage.get_by_role("button", name="Undo").click()
        expect(log_labels(outage)).to_have_count(steps)
    # The comparison's count of each era's wire messages (its tab, then the wire's).
    cmp = comparison(outage, OUTAGE_COMPARISON)
    said = [
        int(cmp.get_by_text(re.compile(r"^\d+ wire messages?$")).nth(side).inner_text().split()[0]) for side in (0, 1)
    ]
    modern = diagram(outage, "Modern (2026-07-28): this playground")
    legacy = diagram(outage, "Legacy (2025-11-25): the same step")
    # This era: as many arrows as messages in the text list of the wire.
    frames = wire(outage).get_by_role("group").get_by_role("listitem")
    n = frames.count()
    assert n > 0
    expect(arrows(modern)).to_have_count(n)
    # Each era's arrows match the comparison's count of that era's wire messages.
    for figure, side in ((legacy, 0), (modern, 1)):
        expect(arrows(figure)).to_have_count(said[side])
    # The arrows read as methods and statuses, and HTTP and SSE are visible as such.
    expect(modern).to_contain_text("notifications/tools/list_changed")
    expect(legacy).to_contain_text(re.compile(r"POST .*tools/list"))
    expect(legacy).to_contain_text(re.compile(r"HTTP 200"))
    expect(modern.get_by_role("button", name=re.compile("SSE event"))).not_to_have_count(0)
    # Each arrow's name starts with the words it shows (WCAG 2.5.3), so "click 2 POST tools/list" works.
    for figure in (modern, legacy):
        for i in range(arrows(figure).count()):
            arrow = arrows(figure).nth(i)
            shown = " ".join(arrow.inner_text().split())
            expect(arrow).to_have_accessible_name(re.compile("^" + re.escape(shown) + ": "))
    # The keyboard reads every frame of the same step.
    page = outage.page
    first = arrows(modern).first
    first.focus()
    expect(first).to_be_focused()
    page.keyboard.press("ArrowDown")
    second = arrows(modern).nth(1)
    expect(second).to_be_focused()
    page.keyboard.press("Enter")
    expect(second).to_have_attribute("aria-expanded", "true")
    expect(modern).to_contain_text('"jsonrpc": "2.0"')
    page.keyboard.press("End")
    expect(arrows(modern).last).to_be_focused()
    page.keyboard.press("Home")
    expect(first).to_be_focused()
    # Space works on an arrow as on any button.
    page.keyboard.press("Space")
    expect(first).to_have_attribute("aria-expanded", "true")
    # The text alternative lists the same frames, in order.
    modern.get_by_role("button", name="Frames as a list").click()
    items = modern.get_by_role("list").get_by_role("listitem")
    expect(items).to_have_count(arrows(modern).count())
    expect(items.first).to_contain_text(" to ")


def test_the_tab_chosen_stays_where_it_was_on_the_screen(outage: Locator) -> None:
    """The wire's panel takes the full width, below the prompt, so the tab strip moves down the page when
    it is chosen: the page follows it, and the tab (and the focus on it) stays under the learner's eye."""
    press(outage, "The model calls a tool on A", 1)
    tabs = [outage.get_by_role("tab", name=name) for name in ("What happened", "Both eras", "Wire")]
    tabs[0].click()
    for before, after in zip(tabs, tabs[1:], strict=False):
        y = before.bounding_box()["y"]
        before.press("ArrowRight")
        expect(after).to_be_focused()
        assert abs(after.bounding_box()["y"] - y) < 2
    tabs[2].press("Home")
    expect(tabs[0]).to_be_focused()
    assert abs(tabs[0].bounding_box()["y"] - y) < 2


def test_a_chosen_frame_opens_under_its_arrow_and_the_host_built_error_is_apart(outage: Locator) -> None:
    """The ends of A's stream are marked when A dies. After the model's next turn a chosen frame is read
    where it was chosen: between its arrow and the next one, not under the whole diagram; choosing the
    same arrow again puts it away. The error the host builds for the model is drawn apart, labelled."""
    press(outage, "Take a model turn", 1)
    press(outage, "A dies", 2)
    modern = diagram(outage, "Modern (2026-07-28): this playground")
    expect(modern.get_by_role("button", name=re.compile("stream (closed|dropped|eof)"))).not_to_have_count(0)
    expect(modern).to_contain_text(message("wire.stream_end"))
    press(outage, "Take a model turn", 3)
    chosen, after = arrows(modern).nth(1), arrows(modern).nth(2)
    chosen.click()
    detail = opened(modern).get_by_text(re.compile(r"^Frame 2 of \d+: host → B"))
    expect(detail).to_be_visible()
    top, below, next_top = detail.bounding_box()["y"], chosen.bounding_box(), after.bounding_box()["y"]
    assert below["y"] + below["height"] <= top < next_top, (below, top, next_top)
    expect(modern).to_contain_text('"method": "tools/call"')
    # Said where a screen reader hears it: a live region that stays put (the detail itself moves).
    live = modern.locator("[aria-live]")
    expect(live).to_have_count(1)
    expect(live).to_have_text(re.compile(r"^Frame 2 of \d+: host → B"))
    assert not live.evaluate("(el) => el.closest('.seq-grid')")
    chosen.click()
    expect(chosen).to_have_attribute("aria-expanded", "false")
    expect(detail).to_have_count(0)
    expect(modern).not_to_contain_text('"jsonrpc"')
    expect(modern).to_contain_text("Choose an arrow")
    # The host-built error of the same step is drawn apart and labelled.
    built = modern.get_by_role("button", name=re.compile(re.escape(message("wire.host_built"))))
    expect(built).to_have_count(1)
    expect(built).to_contain_text(message("wire.host_built"))
    expect(built).to_contain_text("isError")
    # It is for the model: the box reaches the model's lane, as an arrow to it would.
    model = modern.locator(".seq-lane-head").filter(has_text=re.compile("^model$"))
    box, lane = built.bounding_box(), model.bounding_box()
    assert box and lane and box["x"] + box["width"] >= lane["x"] + lane["width"] / 2, (box, lane)
    built.click()
    head = message(
        "diagram.frame_head", n=0, total=0, sender="host", receiver="model", kind=message("diagram.kind.host_built")
    )
    words = [re.escape(part) for part in head.split("0")]  # the frame's numbers vary; the rest is the catalogue's
    detail = opened(modern).get_by_text(re.compile("^" + r"\d+".join(words)))
    expect(detail).to_be_visible()
    expect(modern).to_contain_text('"isError": true')


def test_a_diagram_whose_code_fails_to_load_says_so_and_comes_at_the_next_press(page: Page) -> None:
    tries: list[str] = []
    refusing = [True]

    def refuse_until_told(route) -> None:
        tries.append(route.request.url)
        if refusing[0]:
            route.abort()
        else:
            route.continue_()

    page.route("**/js/diagram.js*", refuse_until_told)
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "A dies", 1)
    expect(wire_region(outage)).to_contain_text(message("wire.diagram_failed"))
    refusing[0] = False
    press(outage, "A is back", 2)
    expect(arrows(diagram(outage, "Modern (2026-07-28): this playground"))).not_to_have_count(0)
    assert len(set(tries)) == len(tries) >= 2, tries  # each try under an address of its own


# A run of text without a space or a slash that is drawn on more than one line was broken mid-word.
BROKEN_WORDS = """f => [...f.querySelectorAll('.seq-words')].flatMap(label => [...label.childNodes]
    .filter(n => n.nodeType === Node.TEXT_NODE)
    .flatMap(n => [...n.textContent.matchAll(/[^\\s\\/]+\\/?/g)].filter(m => {
        const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1; })
      .map(m => m[0])))"""


def scroll_box(figure: Locator) -> list[int]:
    """The scroll and client width of the box the diagram's grid scrolls in."""
    return figure.evaluate(
        "f => { const s = f.querySelector('.seq-grid').parentElement; return [s.scrollWidth, s.clientWidth]; }"
    )


def labels_break_between_words(section: Locator) -> None:
    """In both eras the arrows have long labels (a slash or isError in them), and none of their words
    is broken across lines."""
    for era in ("Legacy (2025-11-25)", "Modern (2026-07-28)"):
        figure = diagram(section, era)
        expect(arrows(figure).first).to_be_attached()
        labels = figure.evaluate("f => [...f.querySelectorAll('.seq-label')].map(l => l.textContent)")
        assert any("/" in label or "isError" in label for label in labels), labels
        assert figure.evaluate(BROKEN_WORDS) == [], era


def reset(section: Locator) -> None:
    section.get_by_role("button", name="Reset").click()
    expect(log_labels(section)).to_have_count(1)


def test_the_first_lessons_diagram_on_a_phone(browser: Browser, base_url: str) -> None:
    """At 375 px: arrow labels break between words, never inside one, for
    notifications/tools/list_changed then tools/list, and for the host-built error one lane wide; with
    four lanes (C added) the diagram scrolls inside its own box, the page does not."""
    # Reduced motion: several presses in a row on a phone, each answer scrolling its changes into view; a
    # click aimed while a smooth scroll runs can land beside its button.
    page = browser.new_page(viewport={"width": 375, "height": 800}, base_url=base_url, reduced_motion="reduce")
    section = open_playground(page, OUTAGE, TITLE)
    press(section, "B deploys a new tool", 1)
    labels_break_between_words(section)
    reset(section)
    press(section, "The model calls a tool on A", 1)
    # The press asks what "A dies" will do: a learner answers before pressing it.
    section.get_by_role("group", name=re.compile("^Predict first: ")).get_by_role("radio").first.check()
    press(section, "A dies", 2)
    labels_break_between_words(section)
    reset(section)
    press(section, "Add server C", 1)
    press(section, "Take a model turn", 2)
    modern = diagram(section, "Modern (2026-07-28): this playground")
    expect(arrows(modern).first).to_be_attached()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    wide = scroll_box(modern)
    assert wide[0] > wide[1], "four lanes do not fit 375 px: the diagram scrolls inside its own box"
    page.close()


def three_lanes_fit(figure: Locator) -> None:
    expect(arrows(figure).first).to_be_attached()
    lanes = figure.evaluate("f => f.querySelectorAll('.seq-lane-head').length")
    assert lanes == 3, lanes
    wide = scroll_box(figure)
    assert wide[0] <= wide[1], wide
    assert figure.evaluate(BROKEN_WORDS) == []


def test_three_lanes_fit_across_a_phone(browser: Browser, base_url: str) -> None:
    """The host and two servers (lesson 2's playground) fit 375 px: every lane's name is read whole,
    and so is every word, after a model turn (calls on both servers) and in the legacy era's handshake
    ("notifications/initialized" included)."""
    # Reduced motion: a press scrolls a phone's page to its changes; Reset must not be aimed mid-scroll.
    page = browser.new_page(viewport={"width": 375, "height": 800}, base_url=base_url, reduced_motion="reduce")
    section = open_playground(page, LESSON_2, "Misbehaving servers")
    press(section, "Take a model turn", 1)  # calls on both servers
    three_lanes_fit(diagram(section, "Modern (2026-07-28): this playground"))
    reset(section)
    # The switch re-connects both servers: initialize, notifications/initialized, ...
    choose_era(section, "legacy")
    expect(log_labels(section).last).to_have_text(step_label(1))
    three_lanes_fit(diagram(section, "Legacy (2025-11-25): this playground"))
    page.close()


# The boxes of an arrow's words that a lane's line passes through (the words reach a quarter lane past
# the arrow's ends, over the lines of the lanes it starts and ends in).
CROSSED_WORDS = """f => {
    const lanes = [...f.querySelectorAll('.seq-lane')].map(l => l.getBoundingClientRect().left + 1);
    return [...f.querySelectorAll('.seq-words')].flatMap(w => [...w.getClientRects()])
        .filter(r => lanes.some(x => x > r.left && x < r.right))
        .map(r => ({x: r.left, y: r.top, width: r.width, height: r.height}));  // as the viewport shows them
}"""


def test_the_gateways_diagram_at_375_and_1280(browser: Browser, base_url: str) -> None:
    """Four lanes, list_changed between neighbours (B fails its health check): at 375 px and, the window
    widened, at 1280 px, arrow labels break between words, never inside one; at 1280 px four lanes fit
    half the screen (no sideways scroll needed for the words) and no lane's line runs through an arrow's
    words, whose words reach over both lanes' lines (the two-lane diagrams of the other lessons fit
    their words between their lanes at this width)."""
    page = browser.new_page(viewport={"width": 375, "height": 800}, base_url=base_url, reduced_motion="reduce")
    section = open_playground(page, GATEWAYS, "A gateway in front")
    press(section, "B fails its health check", 1)
    labels_break_between_words(section)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_function("() => window.innerWidth === 1280")
    labels_break_between_words(section)
    wide = scroll_box(diagram(section, "Modern (2026-07-28)"))
    assert wide[0] <= wide[1], wide

    figures = wire_region(section).get_by_role("figure")
    expect(arrows(figures.first).or_(arrows(figures.last)).first).to_be_visible()
    page.mouse.move(0, 0)  # no arrow hovered
    crossed, shown, hidden = [], [], []
    for i in range(figures.count()):  # each figure in view in turn: a box is where the viewport shows it
        figure = figures.nth(i)
        figure.scroll_into_view_if_needed()
        boxes = figure.evaluate(CROSSED_WORDS)
        crossed += boxes
        shown += [page.screenshot(clip=box, animations="disabled") for box in boxes]
        figure.evaluate("f => f.querySelectorAll('.seq-lane').forEach(l => { l.style.visibility = 'hidden'; })")
        hidden += [page.screenshot(clip=box, animations="disabled") for box in boxes]
        figure.evaluate("f => f.querySelectorAll('.seq-lane').forEach(l => { l.style.visibility = ''; })")
    assert crossed, "no arrow's words reach over a lane's line here; the test would prove nothing"
    assert [a == b for a, b in zip(shown, hidden, strict=True)] == [True] * len(crossed)
    page.close()
