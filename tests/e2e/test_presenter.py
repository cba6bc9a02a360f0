"""Presenter mode (?present=1): one section per screen, moved with the keyboard alone; while a scenario
is replayed the same keys step through it, its narration on screen; the playground stays live."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root
from lesson.content.scripts import load_script

from .helpers import CHURN, OUTAGE, expect_status, log_labels, panel

pytestmark = pytest.mark.e2e


def position(page: Page):
    return page.get_by_role("navigation", name="Presenter controls").get_by_role("status")


def screen_number(page: Page) -> tuple[int, int]:
    found = re.search(r"Screen (\d+) of (\d+)", position(page).inner_text())
    assert found, position(page).inner_text()
    return int(found.group(1)), int(found.group(2))


def go_to_screen_of(page: Page, part: Locator) -> None:
    """Next, screen by screen, until ``part`` shows (once presenter mode has split the lesson)."""
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    for _ in range(screen_number(page)[1]):
        if part.is_visible():
            return
        page.get_by_role("button", name="Next", exact=True).click()
    expect(part).to_be_visible()


def test_keyboard_moves_between_screens(page: Page) -> None:
    page.goto(CHURN + "?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    _, total = screen_number(page)
    assert total > 3
    # Only the lesson's title shows on the first screen; no section heading yet.
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.locator("article h2:visible")).to_have_count(0)

    page.keyboard.press("ArrowRight")
    expect(position(page)).to_have_text(f"Screen 2 of {total}")
    shown = page.locator("article h2:visible")
    expect(shown).to_have_count(1)
    expect(shown).to_be_focused()
    first = shown.inner_text()

    page.keyboard.press("ArrowRight")
    expect(position(page)).to_have_text(f"Screen 3 of {total}")
    page.keyboard.press("ArrowRight")
    expect(position(page)).to_have_text(f"Screen 4 of {total}")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(position(page)).to_have_text(f"Screen 2 of {total}")
    expect(page.locator("article h2:visible")).to_have_text(first)
    expect(page.get_by_role("link", name="Leave presenter mode")).to_have_attribute("href", CHURN)


def test_page_down_reads_a_tall_screen_to_its_end_before_moving_on(page: Page) -> None:
    """A playground's screen is taller than the window: Page Down and Space scroll it while more of it
    lies below (the class sees the results, not just the buttons), then move to the next screen;
    Page Up goes back up it the same way. The right arrow moves a whole screen at once."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.emulate_media(reduced_motion="reduce")  # the page jumps rather than glides: where it is can be read at once
    page.goto(OUTAGE + "?present=1")
    _, total = screen_number(page)
    tall = None
    for n in range(1, total):  # the first screen taller than the window
        if page.evaluate("document.scrollingElement.scrollHeight") > 900 + 100:
            tall = n
            break
        page.keyboard.press("ArrowRight")
        expect(position(page)).to_have_text(f"Screen {n + 1} of {total}")
    assert tall is not None, "no screen is taller than the window: the test covers nothing"
    reads = 0
    while screen_number(page)[0] == tall:
        before = page.evaluate("window.scrollY")
        page.keyboard.press("PageDown" if reads % 2 else "Space")
        reads += 1
        assert reads < 20, "Page Down never reached the next screen"
        if screen_number(page)[0] == tall:
            assert page.evaluate("window.scrollY") > before, "a key neither scrolled nor moved on"
    assert reads > 1, "the tall screen moved on at the first Page Down"
    expect(position(page)).to_have_text(f"Screen {tall + 1} of {total}")
    expect(page.locator("article h2:visible")).to_be_focused()
    page.keyboard.press("PageUp")  # at the top of this screen: back to the tall one, at its top
    expect(position(page)).to_have_text(f"Screen {tall} of {total}")
    page.keyboard.press("PageDown")
    assert page.evaluate("window.scrollY") > 0
    page.keyboard.press("PageUp")  # back up the tall screen first
    expect(position(page)).to_have_text(f"Screen {tall} of {total}")
    assert page.evaluate("window.scrollY") == 0
    page.keyboard.press("PageUp")
    expect(position(page)).to_have_text(f"Screen {tall - 1} of {total}")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # a whole screen at once, tall or not
    expect(position(page)).to_have_text(f"Screen {tall + 1} of {total}")

    # Scrolling smoothly, keys pressed while the page still glides count from where it is going.
    page.emulate_media(reduced_motion="no-preference")
    page.keyboard.press("ArrowLeft")
    expect(position(page)).to_have_text(f"Screen {tall} of {total}")
    for _ in range(reads):
        page.keyboard.press("Space")
    expect(position(page)).to_have_text(f"Screen {tall + 1} of {total}")


def test_a_scenario_steps_with_the_same_keys_and_the_playground_stays_live(page: Page) -> None:
    s = load_script(default_root() / "scenarios" / "outage.yaml")[0]
    page.goto(OUTAGE + "?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of "))
    _, total = screen_number(page)
    outage = panel(page, "Play out an outage")
    for _ in range(total):  # forward until the outage playground is on screen
        if outage.is_visible():
            break
        page.keyboard.press("ArrowRight")
    expect(outage).to_be_visible()
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    at = screen_number(page)[0]

    play = outage.get_by_role("button", name=f"Walk me through it: {s.title}")
    for _ in range(40):  # Tab to the scenario's button, as a keyboard user would
        if play.evaluate("b => b === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(play).to_be_focused()
    page.keyboard.press("Enter")
    narration = outage.get_by_role("region", name=f"Scenario: {s.title}").get_by_role("status")
    expect(narration).to_contain_text(f"Moment 1 of {len(s.steps)}")
    expect(narration).to_contain_text(s.steps[0].narration)

    page.keyboard.press("ArrowRight")  # the next scenario step, not the next screen
    expect(narration).to_contain_text(f"Moment 2 of {len(s.steps)}")
    expect(narration).to_contain_text(s.steps[1].narration)
    expect_status(outage, "A", "down")
    result = Axe().run(page)  # presenter mode with a scenario on screen
    assert result.violations_count == 0, result.generate_report()
    page.keyboard.press("PageUp")
    expect(narration).to_contain_text(f"Moment 1 of {len(s.steps)}")
    expect_status(outage, "A", "connected")
    assert screen_number(page)[0] == at

    # Leave the scenario (Tab to its button) and play on: the playground is live in presenter mode.
    leave = outage.get_by_role("button", name="Leave the scenario")
    for _ in range(5):
        if leave.evaluate("b => b === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(leave).to_be_focused()
    page.keyboard.press("Enter")
    expect(narration).to_have_count(0)
    outage.get_by_role("button", name="A dies", exact=True).focus()
    page.keyboard.press("Enter")
    expect(log_labels(outage).last).to_have_text(re.compile(r"^Step 2: "))
    page.keyboard.press("ArrowRight")
    expect(position(page)).to_have_text(f"Screen {at + 1} of {total}")


@pytest.mark.parametrize("width", [375, 1280])
def test_each_screen_shows_only_its_section_above_the_bar(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(OUTAGE + "?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of "))
    bar = page.get_by_role("navigation", name="Presenter controls")
    for _ in range(2):
        # The lesson's progress tools (download, load, start over) are not a section: never on a screen.
        expect(page.get_by_role("heading", name="Your progress")).to_be_hidden()
        expect(page.get_by_role("button", name="Start over")).to_be_hidden()
        # Scrolled to its end, the screen's last line clears the bar, which takes at most a sixth of it.
        last = page.locator("article > :not(.present-off):not(.present-title-only)").last
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        box, bar_box = last.bounding_box(), bar.bounding_box()
        assert box and bar_box
        assert box["y"] + box["height"] <= bar_box["y"] + 1
        assert bar_box["height"] <= 800 / 6
        page.keyboard.press("ArrowRight")


def test_the_quick_checks_link_to_a_playground_shows_its_screen_and_the_way_back(page: Page) -> None:
    """The task question's link leads to the playground on an earlier screen, and its way back returns."""
    page.goto(OUTAGE + "?present=1")
    quiz = page.get_by_role("region", name="Quick check questions")
    go_to_screen_of(page, quiz)
    total = screen_number(page)[1]
    at_quiz = screen_number(page)[0]
    quiz.get_by_role("link", name="Play out an outage").click()
    outage = panel(page, "Play out an outage")
    first = outage.get_by_role("button", name="B deploys a new tool")
    expect(first).to_be_focused()
    expect(first).to_be_in_viewport()
    assert screen_number(page)[0] < at_quiz
    outage.get_by_role("link", name=re.compile("question")).click()
    expect(quiz.get_by_role("button", name=re.compile("^Check my playground"))).to_be_focused()
    expect(position(page)).to_have_text(f"Screen {at_quiz} of {total}")


@pytest.mark.parametrize("width", [1280, 375])
def test_the_presenter_bar_never_covers_the_focus(page: Page, width: int) -> None:
    """Tabbing through a playground's screen, every control the focus reaches shows above the bar."""
    page.set_viewport_size({"width": width, "height": 740})
    page.emulate_media(reduced_motion="reduce")  # focus scrolls at once, not smoothly: measured after each Tab
    page.goto(OUTAGE + "?present=1")
    bar = page.get_by_role("navigation", name="Presenter controls")
    outage = panel(page, "Play out an outage")
    go_to_screen_of(page, outage)
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    outage.get_by_role("radio", name="Modern (2026-07-28)").focus()  # tab on from the era choice
    covered = []
    for _ in range(25):
        page.keyboard.press("Tab")
        box = page.evaluate(
            """() => { const e = document.activeElement, r = e.getBoundingClientRect();
                       return e.closest('.presenter-bar') ? null : [e.textContent.trim().slice(0, 30), r.bottom]; }"""
        )
        if box is None:
            break  # reached the bar itself
        if box[1] > bar.bounding_box()["y"] + 1:
            covered.append(box)
    assert covered == [], covered


def test_arrow_keys_past_the_steppers_last_moment_stay_in_the_stepper(page: Page) -> None:
    """While the focus is in the stepper the arrows move its moments; at either end they do nothing,
    and the presenter's screen stays where it is."""
    page.goto(CHURN + "?present=1")
    stepper = panel(page, "A session with churn")
    go_to_screen_of(page, stepper)
    here = screen_number(page)
    moment = stepper.get_by_role("heading", level=4)
    expect(moment).to_have_text(re.compile(r"^Moment 1 of (\d+)"))
    total = int(re.match(r"^Moment 1 of (\d+)", moment.inner_text()).group(1))
    stepper.get_by_role("button", name="Next moment").focus()
    for n in range(2, total + 1):
        page.keyboard.press("ArrowRight")
        expect(moment).to_have_text(re.compile(rf"^Moment {n} of {total}"))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(moment).to_have_text(re.compile(rf"^Moment {total} of {total}"))
    expect(position(page)).to_have_text(f"Screen {here[0]} of {here[1]}")
    for n in range(total - 1, 0, -1):
        page.keyboard.press("ArrowLeft")
        expect(moment).to_have_text(re.compile(rf"^Moment {n} of {total}"))
    page.keyboard.press("ArrowLeft")
    expect(moment).to_have_text(re.compile(rf"^Moment 1 of {total}"))
    expect(position(page)).to_have_text(f"Screen {here[0]} of {here[1]}")


@pytest.mark.parametrize("width", [1280, 375])
def test_next_stays_where_it_is_from_the_first_screen_to_the_last(page: Page, width: int) -> None:
    """The presenter clicks Next without looking: the bar keeps its shape on every screen, whatever the
    position's number ("Screen 9 of 12", "Screen 10 of 12") or the screen's own height."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(OUTAGE + "?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of "))
    bar = page.get_by_role("navigation", name="Presenter controls")
    next_ = bar.get_by_role("button", name="Next", exact=True)
    total = screen_number(page)[1]
    places = set()
    for n in range(1, total + 1):
        expect(position(page)).to_have_text(f"Screen {n} of {total}")
        box = next_.bounding_box()
        assert box
        places.add((round(box["x"]), round(box["y"]), round(bar.bounding_box()["height"])))
        if n < total:
            page.keyboard.press("ArrowRight")
    expect(next_).to_be_disabled()
    assert len(places) == 1, places
