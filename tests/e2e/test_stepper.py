"""The churn stepper ("A session with churn"): six moments, with buttons, arrow keys and the era switch."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .helpers import (
    CHURN,
    expect_era,
    expect_status,
    moment_title,
    panel,
    refuse_first,
    region,
    server_cell,
    server_row,
    servers,
    takes_room,
)

pytestmark = pytest.mark.e2e

MOMENTS = [
    "A and B are connected",
    "B deploys a new tool",
    "The next prompt has it",
    "An admin adds C",
    "A dies",
    "A is back",
]


@pytest.fixture
def stepper(page: Page) -> Locator:
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()  # its moments are fetched when it comes near the screen
    expect(moment_heading(section)).to_have_text(moment_title(1))
    return section


def moment_heading(section: Locator) -> Locator:
    return section.get_by_role("heading", level=4)


def moment(section: Locator) -> Locator:
    """The card of the moment on show: an article named by its heading."""
    return section.get_by_role("article", name=re.compile(r"^Moment \d of 6: "))


def model_saw(section: Locator, turn: int) -> Locator:
    return region(moment(section), f"What the model saw on turn {turn}")


def expect_moment(section: Locator, number: int) -> None:
    """The heading, the live status and the card's name all say which moment is on show."""
    title = f"Moment {number} of 6: {MOMENTS[number - 1]}"
    expect(moment_heading(section)).to_have_text(title)
    # After an era choice the status names the era first, so the same moment is announced again.
    expect(section.get_by_role("status")).to_have_text(re.compile(f"(^|: ){re.escape(title)}$"))
    assert not takes_room(section.get_by_role("status"))  # announced; the heading shows it already
    expect(moment(section)).to_have_accessible_name(title)


def happened(section: Locator) -> Locator:
    return region(moment(section), "What happened")


def test_forward_with_the_buttons(stepper: Locator) -> None:
    prev = stepper.get_by_role("button", name="Previous moment")
    nxt = stepper.get_by_role("button", name="Next moment")
    # Moment 1: A and B, the model's first turn sees their four tools.
    expect_moment(stepper, 1)
    expect(prev).to_be_disabled()
    expect(nxt).to_be_enabled()
    card = moment(stepper)
    expect(servers(card).get_by_role("rowheader")).to_have_text([re.compile(r"^A "), re.compile(r"^B ")])
    expect(model_saw(stepper, 1).get_by_role("listitem")).to_have_count(4)

    # Moment 2: B deploys close_ticket; the model has not seen it yet.
    nxt.click()
    expect_moment(stepper, 2)
    expect(prev).to_be_enabled()
    expect(server_cell(card, "B", "Tools")).to_contain_text("close_ticket")
    expect(region(card, "What the model will see next")).to_contain_text("close_ticket")
    expect(happened(stepper)).to_contain_text("notifications/tools/list_changed")

    # Moment 3: the next turn has close_ticket, marked new, and the model uses it.
    nxt.click()
    expect_moment(stepper, 3)
    saw = model_saw(stepper, 2)
    expect(saw.get_by_role("listitem").filter(has_text="close_ticket")).to_contain_text("new since the last turn")
    expect(saw.get_by_role("listitem").filter(has_text="new since the last turn")).to_have_count(1)
    expect(happened(stepper)).to_contain_text("The model called close_ticket on B")

    # Moment 4: an admin adds C; the turn sees C's tools.
    nxt.click()
    expect_moment(stepper, 4)
    expect(server_row(card, "C")).to_have_count(1)
    saw = model_saw(stepper, 3)
    for tool in ("find_slot", "book_meeting"):
        expect(saw.get_by_role("listitem").filter(has_text=tool)).to_contain_text("from C")
    expect(happened(stepper)).to_contain_text("An admin added C")

    # Moment 5: A is down; the model no longer sees A's tools and gets a host-made error.
    nxt.click()
    expect_moment(stepper, 5)
    expect_status(card, "A", "down")
    expect_status(card, "B", "connected")
    saw = model_saw(stepper, 4)
    expect(saw.get_by_role("listitem")).to_have_count(5)
    expect(saw).not_to_contain_text("search_docs")
    expect(happened(stepper)).to_contain_text("is not reachable")

    # Moment 6: A is back; modern costs a re-listen, not a new session.
    nxt.click()
    expect_moment(stepper, 6)
    expect_status(card, "A", "connected")
    expect(nxt).to_be_disabled()
    expect(happened(stepper)).to_contain_text("re-sends subscriptions/listen")
    expect(happened(stepper)).not_to_contain_text("404")
    expect(model_saw(stepper, 5).get_by_role("listitem").filter(has_text="search_docs")).to_contain_text(
        "new since the last turn"
    )


def test_back_with_the_buttons(stepper: Locator) -> None:
    prev = stepper.get_by_role("button", name="Previous moment")
    nxt = stepper.get_by_role("button", name="Next moment")
    for _ in range(5):
        nxt.click()
    expect_moment(stepper, 6)
    expect(nxt).to_be_disabled()
    prev.click()
    expect_moment(stepper, 5)
    expect_status(moment(stepper), "A", "down")
    expect(nxt).to_be_enabled()
    for number in (4, 3, 2, 1):
        prev.click()
        expect_moment(stepper, number)
    expect(prev).to_be_disabled()
    expect(server_row(moment(stepper), "C")).to_have_count(0)


def test_arrow_keys(stepper: Locator) -> None:
    page = stepper.page
    stepper.get_by_role("button", name="Next moment").focus()
    page.keyboard.press("ArrowRight")
    expect_moment(stepper, 2)
    page.keyboard.press("ArrowRight")
    expect_moment(stepper, 3)
    page.keyboard.press("ArrowLeft")
    expect_moment(stepper, 2)
    page.keyboard.press("ArrowLeft")
    expect_moment(stepper, 1)
    # At the first moment, ArrowLeft does nothing.
    stepper.get_by_role("button", name="Next moment").focus()
    page.keyboard.press("ArrowLeft")
    expect_moment(stepper, 1)
    for number in (2, 3, 4, 5):
        page.keyboard.press("ArrowRight")
        expect_moment(stepper, number)
    expect_status(moment(stepper), "A", "down")


def test_arrow_keys_keep_working_at_the_ends(stepper: Locator) -> None:
    """Reaching the last moment disables the focused Next button: the focus moves to Previous."""
    page = stepper.page
    stepper.get_by_role("button", name="Next moment").focus()
    for number in (2, 3, 4, 5, 6):
        page.keyboard.press("ArrowRight")
        expect_moment(stepper, number)
    expect(stepper.get_by_role("button", name="Previous moment")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect_moment(stepper, 6)
    page.keyboard.press("ArrowLeft")
    expect_moment(stepper, 5)
    for number in (4, 3, 2, 1):
        page.keyboard.press("ArrowLeft")
        expect_moment(stepper, number)
    expect(stepper.get_by_role("button", name="Next moment")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect_moment(stepper, 2)


def test_focus_stays_in_the_panel_at_the_last_moment(stepper: Locator) -> None:
    """Enter on Next up to the last moment, then Enter on Previous, where the focus went."""
    stepper.get_by_role("button", name="Next moment").focus()
    for number in (2, 3, 4, 5, 6):
        stepper.page.keyboard.press("Enter")
        expect_moment(stepper, number)
    expect(stepper.get_by_role("button", name="Previous moment")).to_be_focused()
    stepper.page.keyboard.press("Enter")
    expect_moment(stepper, 5)
    stepper.page.keyboard.press("ArrowLeft")
    expect_moment(stepper, 4)


def test_era_switch(stepper: Locator) -> None:
    nxt = stepper.get_by_role("button", name="Next moment")
    stepper.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_moment(stepper, 1)
    expect(stepper.get_by_role("status")).to_contain_text("Legacy (2025-11-25)")
    card = moment(stepper)
    expect_era(card, "legacy (2025-11-25)")
    expect(server_cell(card, "A", "Stream")).to_contain_text("GET SSE stream (session")
    for _ in range(5):
        nxt.click()
    expect_moment(stepper, 6)
    expect_era(card, "legacy (2025-11-25)")
    expect(happened(stepper)).to_contain_text("never heard of the old session: 404")
    expect(happened(stepper)).to_contain_text("The client sends initialize again")
    expect(happened(stepper)).not_to_contain_text("subscriptions/listen")

    # Switching back keeps the moment and shows the modern wording.
    stepper.get_by_role("radio", name="Modern (2026-07-28)").check()
    expect_moment(stepper, 6)
    expect_era(card, "modern (2026-07-28)")
    expect(happened(stepper)).to_contain_text("There is no session to rebuild")
    expect(happened(stepper)).not_to_contain_text("404")

    # The same moment in the middle: the switch keeps the position.
    stepper.get_by_role("button", name="Previous moment").click()
    stepper.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect_moment(stepper, 5)
    expect_status(card, "A", "down")


def test_the_moments_are_fetched_only_when_the_stepper_comes_near(page: Page) -> None:
    """The stepper's data is not part of the first view: it is fetched once, when the learner scrolls
    towards the stepper."""
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.endswith("/churn.json") else None)
    # A short window: the stepper sits below who's who, more than a screen and the observer's margin away.
    page.set_viewport_size({"width": 1280, "height": 400})
    page.goto(CHURN)
    page.wait_for_load_state("networkidle")
    section = panel(page, "A session with churn")
    expect(moment_heading(section)).to_have_count(0)
    assert fetched == []
    section.scroll_into_view_if_needed()
    expect(moment_heading(section)).to_have_text(moment_title(1))
    page.mouse.wheel(0, 3000)
    page.mouse.wheel(0, -3000)
    expect(moment_heading(section)).to_have_text(moment_title(1))
    assert len(fetched) == 1


@pytest.fixture
def held(page: Page) -> list:
    """Lesson 1 with the stepper's moments held back: each request for them waits in the list."""
    routes: list = []
    page.route("**/churn.json", lambda route: routes.append(route))
    page.goto(CHURN)
    return routes


def test_a_press_before_the_moments_arrive_is_not_lost(page: Page, held: list) -> None:
    section = panel(page, "A session with churn")
    with page.expect_request("**/churn.json"):
        section.get_by_role("button", name="Next moment").click()  # the moments are still on their way
    expect(moment_heading(section)).to_have_count(0)
    assert len(held) == 1
    held[0].continue_()
    expect_moment(section, 2)


def test_a_press_before_the_steppers_code_arrives_is_not_lost(page: Page) -> None:
    """The stepper's code is fetched as it nears the screen; a click on Next that comes first is held
    and applied once the stepper is mounted."""
    code: list = []
    page.route("**/js/stepper.js", lambda route: code.append(route))  # held until the test lets it go
    section = panel(page, "A session with churn")
    # The code may be asked for as the page loads (the stepper near the screen) or on the click: either
    # way the request is caught here, and the route holds its answer, so the click comes first.
    with page.expect_request("**/js/stepper.js"):
        page.goto(CHURN)
        section.get_by_role("button", name="Next moment").click()
    expect(moment_heading(section)).to_have_count(0)
    code[0].continue_()
    expect_moment(section, 2)


def test_a_stepper_whose_code_fails_to_load_says_so_and_tries_again(page: Page) -> None:
    tries: list[str] = []
    page.route("**/js/stepper.js*", refuse_first(1, tries))
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    expect(section.get_by_role("status").filter(has_text="could not be loaded")).to_be_visible()
    section.get_by_role("button", name="Try again").click()
    expect_moment(section, 1)
    expect(section.get_by_role("button", name="Try again")).to_have_count(0)
    assert len(tries) == 2 and tries[0] != tries[1], tries  # asked again under a new address


def test_a_stepper_whose_moments_fail_to_load_says_so(page: Page) -> None:
    page.route("**/churn.json", lambda route: route.fulfill(status=500, body="no"))
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    expect(section.get_by_role("status")).to_have_text(re.compile("Could not load the moments"))
    shown = note(section, "Could not load the moments")  # in the moment's place, beside the way out
    expect(shown.get_by_role("button", name="Try again")).to_be_visible()
    assert takes_room(shown)
    expect(moment_heading(section)).to_have_count(0)


def test_while_the_moments_load_the_stepper_says_so(page: Page, held: list) -> None:
    section = panel(page, "A session with churn")
    with page.expect_request("**/churn.json"):
        section.scroll_into_view_if_needed()
    expect(section.get_by_role("status")).to_have_text("Loading the moments…")
    assert takes_room(note(section, "Loading the moments"))
    section.get_by_role("button", name="Next moment").click()  # waits for the moments, then applies
    held[0].continue_()
    expect_moment(section, 2)
    expect(note(section, "Loading the moments")).to_have_count(0)


def note(section: Locator, words: str) -> Locator:
    """The stepper's own words on how its moments are coming, shown where the moment will be."""
    return section.get_by_role("paragraph").filter(has_text=words)


def test_after_a_failed_load_try_again_fetches_the_moments(page: Page) -> None:
    tries: list[str] = []
    page.route("**/churn.json", refuse_first(2, tries))
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    expect(section.get_by_role("status")).to_have_text(re.compile("Could not load the moments"))
    # Previous and Next can do nothing without the moments: they are off, and the way out is offered.
    expect(section.get_by_role("button", name="Next moment")).to_be_disabled()
    expect(section.get_by_role("button", name="Previous moment")).to_be_disabled()
    again = section.get_by_role("button", name="Try again")
    again.click()  # fails once more: still offered
    expect(section.get_by_role("status")).to_have_text(re.compile("Could not load the moments"))
    expect(again).to_be_enabled()
    again.click()
    expect_moment(section, 1)
    expect(again).to_have_count(0)
    expect(section.get_by_role("button", name="Next moment")).to_be_enabled()
    assert len(tries) == 3


def test_what_happened_names_the_steps_the_table_refers_to(stepper: Locator) -> None:
    """A moment may hold several steps; the table's "last change" names one by its number, and the
    moment's account of what happened shows the same numbers."""
    for _ in range(4):
        stepper.get_by_role("button", name="Next moment").click()
    expect_moment(stepper, 5)
    changed = server_cell(moment(stepper), "A", "Last change").inner_text()
    number = re.match(r"step (\d+):", changed)
    assert number, changed
    expect(happened(stepper)).to_contain_text(f"Step {number[1]}:")


def at_moment_5(browser, base_url: str, **context_options) -> tuple:
    """Lesson 1 in a context of its own, the stepper stepped to moment 5 ("A dies", a long one)."""
    context = browser.new_context(base_url=base_url, **context_options)
    page = context.new_page()
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    for _ in range(4):
        section.get_by_role("button", name="Next moment").click()
    expect_moment(section, 5)
    return context, page, section


@pytest.mark.parametrize("width", [375, 320])
def test_on_a_phone_the_moments_buttons_stay_at_hand(browser, base_url: str, width: int) -> None:
    """A moment is longer than a phone's screen: Previous and Next stay on screen while it is read,
    and the next moment is shown from its heading, below the buttons (two rows of them at 320 px)."""
    # Reduced motion: the page jumps rather than scrolls smoothly, so where things land can be read at once.
    phone = {"width": width, "height": 740}
    context, _, section = at_moment_5(browser, base_url, viewport=phone, reduced_motion="reduce")
    card = moment(section)
    assert card.bounding_box()["height"] > 740, "the moment fits the screen: the test covers nothing"
    happened(section).get_by_role("listitem").last.scroll_into_view_if_needed()
    nxt = section.get_by_role("button", name="Next moment")
    expect(nxt).to_be_in_viewport()
    nxt.click()
    expect_moment(section, 6)
    expect(moment_heading(section)).to_be_in_viewport()
    heading = moment_heading(section).bounding_box()
    for name in ("Previous moment", "Next moment"):
        button = section.get_by_role("button", name=name).bounding_box()
        assert heading["y"] >= button["y"] + button["height"], f"the heading is under {name}"
    context.close()


@pytest.mark.parametrize("width", [1280, 375])
def test_moments_that_arrive_while_the_page_is_further_on_leave_it_there(page: Page, held: list, width: int) -> None:
    """The moments are fetched as the stepper nears the screen; drawing them when they come above
    the screen neither pulls the page back to the stepper (only a step the learner takes does) nor
    pushes down what the learner is reading."""
    page.set_viewport_size({"width": width, "height": 740})
    section = panel(page, "A session with churn")
    reading = section.locator("xpath=following-sibling::*[1]")  # what comes right after the stepper
    with page.expect_request("**/churn.json"):
        # Just past the stepper: near enough to fetch its moments, none of it on screen.
        section.evaluate("(s) => window.scrollTo(0, s.getBoundingClientRect().bottom + window.scrollY + 100)")
    before = reading.bounding_box()["y"]
    grown = section.bounding_box()["height"]
    held[0].continue_()
    expect(moment_heading(section)).to_have_text(re.compile("^Moment 1 of 6"))
    assert section.bounding_box()["height"] > grown + 200, "the moments took no room: the test covers nothing"
    expect(moment_heading(section)).not_to_be_in_viewport()
    assert abs(reading.bounding_box()["y"] - before) <= 2, "what the learner was reading moved"


def test_arrow_keys_in_a_table_that_scrolls_sideways_scroll_it(browser, base_url: str) -> None:
    """Where a moment's server table is wider than its box, the box takes the focus and the arrow
    keys scroll it; they do not step the stepper from there."""
    context, page, section = at_moment_5(browser, base_url, viewport={"width": 1280, "height": 800})
    box = moment(section).get_by_role("group", name=re.compile("server", re.I))
    # Tables that would not fit become cards; a table made wider than its box stands for one that does not.
    box.evaluate("e => { e.querySelector('table').style.minWidth = '2000px'; }")
    expect(box).to_have_attribute("tabindex", "0")
    box.focus()
    page.keyboard.press("ArrowRight")
    expect_moment(section, 5)
    expect(box).to_be_focused()
    context.close()
