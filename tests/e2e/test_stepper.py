"""The churn stepper ("A session with churn"): six moments, with buttons, arrow keys and the era switch."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root
from lesson.content.scenarios import presses
from tests.scenarios import load_scenarios

from .helpers import (
    CHURN,
    NEW,
    STEP_NUMBER,
    choose_era,
    expect_era,
    expect_status,
    message,
    narrated,
    narrated_lead,
    panel,
    refuse_first,
    region,
    server_cell,
    server_row,
    servers,
    takes_room,
)

pytestmark = pytest.mark.e2e

# The churn scenario's moments, by their titles in the content (an author may rename or add them).
MOMENTS = [step.title for step in load_scenarios(default_root())["churn"].steps]


@pytest.fixture
def stepper(page: Page) -> Locator:
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()  # its moments are fetched when it comes near the screen
    expect(moment_heading(section)).to_have_text(title(1))
    return section


def title(number: int) -> str:
    """Moment ``number``'s heading, as the page words it."""
    return message("moment", n=number, total=len(MOMENTS), title=MOMENTS[number - 1])


def moment_heading(section: Locator) -> Locator:
    return section.get_by_role("heading", level=4)


def moment(section: Locator) -> Locator:
    """The card of the moment on show: an article named by its heading."""
    headings = "|".join(re.escape(title(n)) for n in range(1, len(MOMENTS) + 1))
    # Playwright hands a pattern to the page between slashes: a slash in a heading must be escaped.
    return section.get_by_role("article", name=re.compile(f"^({headings})$".replace("/", r"\/")))


def model_saw(section: Locator, turn: int) -> Locator:
    return region(moment(section), f"What the model saw on turn {turn}")


def expect_moment(section: Locator, number: int) -> None:
    """The heading, the live status and the card's name all say which moment is on show."""
    heading = title(number)
    expect(moment_heading(section)).to_have_text(heading)
    # After an era choice the status names the era first, so the same moment is announced again.
    expect(section.get_by_role("status")).to_have_text(re.compile(f"(^|: ){re.escape(heading)}$"))
    assert not takes_room(section.get_by_role("status"))  # announced; the heading shows it already
    expect(moment(section)).to_have_accessible_name(heading)


def happened(section: Locator) -> Locator:
    return region(moment(section), "What happened")


def test_buttons_step_through_the_moments_and_the_era_switch_keeps_the_moment(stepper: Locator) -> None:
    """Forward and back with the buttons, what each moment's card draws, and the era switch. What
    each moment holds is tested fast in tests/web/test_stepper_moments.py."""
    prev = stepper.get_by_role("button", name="Previous moment")
    nxt = stepper.get_by_role("button", name="Next moment")
    expect_moment(stepper, 1)
    expect(prev).to_be_disabled()
    expect(nxt).to_be_enabled()
    card = moment(stepper)
    expect(servers(card).get_by_role("rowheader")).to_have_text([re.compile(r"^A "), re.compile(r"^B ")])
    expect(model_saw(stepper, 1).get_by_role("listitem")).to_have_count(4)

    nxt.click()
    expect_moment(stepper, 2)
    expect(prev).to_be_enabled()
    expect(server_cell(card, "B", "Tools")).to_contain_text("close_ticket")
    expect(region(card, "What the model will see next")).to_contain_text("close_ticket")
    expect(happened(stepper)).to_contain_text("notifications/tools/list_changed")

    nxt.click()
    expect_moment(stepper, 3)
    saw = model_saw(stepper, 2)
    expect(saw.get_by_role("listitem").filter(has_text="close_ticket")).to_contain_text(NEW)
    expect(saw.get_by_role("listitem").filter(has_text=NEW)).to_have_count(1)

    nxt.click()
    expect_moment(stepper, 4)
    expect(server_row(card, "C")).to_have_count(1)
    for tool in ("find_slot", "book_meeting"):
        expect(model_saw(stepper, 3).get_by_role("listitem").filter(has_text=tool)).to_contain_text("from C")

    nxt.click()
    expect_moment(stepper, 5)
    expect_status(card, "A", "down")
    expect_status(card, "B", "connected")
    expect(model_saw(stepper, 4).get_by_role("listitem")).to_have_count(5)
    # One count on the card: the table's "last change" names this moment, and no step number shows.
    expect(server_cell(card, "A", "Last change")).to_contain_text(
        narrated("narration.table.change_in_moment", moment=5, what="\0").split("\0")[0]
    )
    assert not STEP_NUMBER.search(card.inner_text()), card.inner_text()

    nxt.click()
    expect_moment(stepper, 6)
    expect_status(card, "A", "connected")
    expect(nxt).to_be_disabled()
    expect(happened(stepper)).not_to_contain_text("404")
    expect(model_saw(stepper, 5).get_by_role("listitem").filter(has_text="search_docs")).to_contain_text(NEW)

    # The era switch keeps the moment and draws the other era's account of it.
    choose_era(stepper, "legacy")
    expect_moment(stepper, 6)
    expect(stepper.get_by_role("status")).to_contain_text("Legacy (2025-11-25)")
    expect_era(card, "legacy")
    expect(happened(stepper)).to_contain_text("404")
    expect(happened(stepper)).not_to_contain_text("subscriptions/listen")
    choose_era(stepper, "modern")
    expect_moment(stepper, 6)
    expect_era(card, "modern")
    expect(happened(stepper)).not_to_contain_text("404")

    prev.click()
    expect_moment(stepper, 5)
    choose_era(stepper, "legacy")
    expect_moment(stepper, 5)
    expect_status(card, "A", "down")
    expect(nxt).to_be_enabled()
    for number in (4, 3, 2, 1):
        prev.click()
        expect_moment(stepper, number)
    expect(prev).to_be_disabled()
    expect(server_row(moment(stepper), "C")).to_have_count(0)
    expect(server_cell(card, "A", "Stream")).to_contain_text(narrated_lead("narration.table.listen.session"))


def test_arrow_keys_and_enter_step_and_the_focus_stays_at_the_ends(stepper: Locator) -> None:
    """Arrow keys step; at an end the focused button says it can do nothing but keeps the focus, so one
    Enter too many stays at the last moment instead of stepping back; Enter presses the focused button."""
    page = stepper.page
    prev = stepper.get_by_role("button", name="Previous moment")
    nxt = stepper.get_by_role("button", name="Next moment")
    nxt.focus()
    page.keyboard.press("ArrowLeft")  # at the first moment, ArrowLeft does nothing
    expect_moment(stepper, 1)
    for number in (2, 3, 4, 5, 6):
        page.keyboard.press("ArrowRight")
        expect_moment(stepper, number)
    expect(nxt).to_be_disabled()
    expect(nxt).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect_moment(stepper, 6)
    for number in (5, 4, 3, 2, 1):
        page.keyboard.press("ArrowLeft")
        expect_moment(stepper, number)
    expect(prev).to_be_disabled()
    expect(nxt).to_be_focused()
    for number in (2, 3, 4, 5, 6):
        page.keyboard.press("Enter")
        expect_moment(stepper, number)
    page.keyboard.press("Enter")  # one Enter too many
    expect_moment(stepper, 6)
    expect(nxt).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect_moment(stepper, 5)
    expect_status(moment(stepper), "A", "down")
    prev.focus()
    page.keyboard.press("Enter")
    expect_moment(stepper, 4)


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
    expect(moment_heading(section)).to_have_text(title(1))
    page.mouse.wheel(0, 3000)
    page.mouse.wheel(0, -3000)
    expect(moment_heading(section)).to_have_text(title(1))
    assert len(fetched) == 1


@pytest.fixture
def held(page: Page) -> list:
    """The stepper's moments held back: each request for them waits in the list. The test opens lesson 1
    inside ``page.expect_request``, so the request is caught whether the page asks as it loads or later."""
    routes: list = []
    page.route("**/churn.json", lambda route: routes.append(route))
    return routes


def test_a_press_before_the_steppers_code_arrives_is_not_lost(page: Page) -> None:
    """The stepper's code is fetched as it nears the screen; a click on Next that comes first is held
    and, once the stepper is mounted, brings the moments: the first one, which the learner has not seen."""
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
    expect_moment(section, 1)


def test_a_stepper_whose_code_fails_to_load_says_so_and_tries_again(page: Page) -> None:
    tries: list[str] = []
    page.route("**/js/stepper.js*", refuse_first(1, tries))
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    expect(section.get_by_role("status").filter(has_text=message("panel.failed"))).to_be_visible()
    section.get_by_role("button", name="Try again").click()
    expect_moment(section, 1)
    expect(section.get_by_role("button", name="Try again")).to_have_count(0)
    assert len(tries) == 2 and tries[0] != tries[1], tries  # asked again under a new address


def test_while_the_moments_load_the_stepper_says_so_and_a_press_shows_the_first(page: Page, held: list) -> None:
    """Next pressed while the moments are on their way shows moment 1 when they come: the learner
    never skips a moment that was never on the screen."""
    section = panel(page, "A session with churn")
    with page.expect_request("**/churn.json"):
        page.goto(CHURN)
        section.scroll_into_view_if_needed()
    expect(section.get_by_role("status")).to_have_text(message("stepper.loading"))
    assert takes_room(note(section, message("stepper.loading")))
    section.get_by_role("button", name="Next moment").click()
    expect(moment_heading(section)).to_have_count(0)
    assert len(held) == 1
    held[0].continue_()
    expect_moment(section, 1)
    section.get_by_role("button", name="Next moment").click()
    expect_moment(section, 2)
    expect(note(section, message("stepper.loading"))).to_have_count(0)


def note(section: Locator, words: str) -> Locator:
    """The stepper's own words on how its moments are coming, shown where the moment will be."""
    return section.get_by_role("paragraph").filter(has_text=words)


def test_moments_that_fail_to_load_say_so_and_try_again_fetches_them(page: Page) -> None:
    """The first request is refused (a network failure), the second answered 500, the third served."""
    tries: list[str] = []

    def handle(route) -> None:
        tries.append(route.request.url)
        if len(tries) == 1:
            route.abort()
        elif len(tries) == 2:
            route.fulfill(status=500, body="no")
        else:
            route.continue_()

    page.route("**/churn.json", handle)
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    failed = re.compile(re.escape(message("stepper.failed")))
    expect(section.get_by_role("status")).to_have_text(failed)
    shown = note(section, message("stepper.failed"))  # in the moment's place, beside the way out
    again = shown.get_by_role("button", name="Try again")
    expect(again).to_be_visible()
    assert takes_room(shown)
    expect(moment_heading(section)).to_have_count(0)
    # Previous and Next can do nothing without the moments: they are off, and the way out is offered.
    expect(section.get_by_role("button", name="Next moment")).to_be_disabled()
    expect(section.get_by_role("button", name="Previous moment")).to_be_disabled()
    again.click()  # answered 500 this time: still offered
    expect(section.get_by_role("status")).to_have_text(failed)
    expect(again).to_be_enabled()
    again.click()
    expect_moment(section, 1)
    expect(section.get_by_role("button", name="Try again")).to_have_count(0)
    expect(section.get_by_role("button", name="Next moment")).to_be_enabled()
    assert len(tries) == 3


def at_moment_5(browser, base_url: str, **context_options) -> tuple:
    """Lesson 1 in a context of its own, the stepper stepped to moment 5 ("A dies", a long one)."""
    context = browser.new_context(base_url=base_url, **context_options)
    page = context.new_page()
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    expect_moment(section, 1)  # a Next before the moments are here would only bring them
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
        page.goto(CHURN)
        # Just past the stepper: near enough to fetch its moments, none of it on screen.
        section.evaluate("(s) => window.scrollTo(0, s.getBoundingClientRect().bottom + window.scrollY + 100)")
    before = reading.bounding_box()["y"]
    grown = section.bounding_box()["height"]
    held[0].continue_()
    expect(moment_heading(section)).to_have_text(title(1))
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


def test_a_moment_marks_what_it_changed_and_a_phone_folds_the_servers_it_left_alone(page: Page) -> None:
    """Each moment marks, in the table, what it changed since the moment before it, as a playground marks
    a press's changes; on a phone a server it left alone folds to its name and status, so the prompt and
    the log come nearer. The first moment has nothing before it, and marks nothing."""
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(CHURN)
    section = panel(page, "A session with churn")
    section.scroll_into_view_if_needed()
    expect(moment_heading(section)).to_have_text(title(1))
    card = moment(section)
    expect(card.locator("[data-mark]")).to_have_count(0)
    expect(server_cell(card, "A", "Tools")).to_be_visible()
    section.get_by_role("button", name="Next moment").click()
    expect(moment_heading(section)).to_have_text(title(2))  # B deploys a new tool
    b = server_row(card, "B")
    expect(b.get_by_role("rowheader")).to_have_attribute("data-mark", message("mark.changed"))
    expect(server_cell(card, "B", "Tools")).to_have_class(re.compile(r"\bcell-changed\b"))
    expect(server_cell(card, "A", "Tools")).to_be_hidden()  # folded: A did not change
    expect(server_cell(card, "A", "Status")).to_be_visible()
    # The learner who wants the rest has it one press away, and can fold it again.
    unfold = card.get_by_role("button", name=message("servers.unfold"))
    unfold.click()
    expect(unfold).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("ArrowRight")  # on the toggle the arrows step nothing: the focus would go with the card
    expect(moment_heading(section)).to_have_text(title(2))
    expect(unfold).to_be_focused()
    expect(server_cell(card, "A", "Tools")).to_be_visible()
    expect(server_cell(card, "B", "Last error")).to_be_visible()
    unfold.click()
    expect(server_cell(card, "A", "Tools")).to_be_hidden()
    section.get_by_role("button", name="Previous moment").click()
    expect(moment_heading(section)).to_have_text(title(1))
    expect(card.locator("[data-mark]")).to_have_count(0)
    expect(server_cell(card, "A", "Tools")).to_be_visible()


def test_a_moment_of_several_steps_tells_each_of_them_by_name(stepper: Locator) -> None:
    """Moments are counted and the log's steps are not shown: a moment that took several steps tells
    each of them, in order, by the event's name alone."""
    steps = load_scenarios(default_root())["churn"].steps
    counts = [len(presses(s)) for s in steps]
    n = next(i for i, c in enumerate(counts) if c > 1)  # the first moment of several steps, 0-based
    for _ in range(n):
        stepper.get_by_role("button", name="Next moment").click()
    expect_moment(stepper, n + 1)
    expect(happened(stepper).get_by_role("heading", level=5)).to_have_text(message("stepper.happened"))
    labels = happened(stepper).locator(".step-label")
    expect(labels).to_have_count(counts[n])
    assert not any(STEP_NUMBER.search(text) for text in labels.all_inner_texts()), labels.all_inner_texts()
