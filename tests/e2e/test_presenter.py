"""Presenter mode (?present=1): the lesson a screen at a time, moved with the keys a clicker sends
(Page Down, Page Up, the arrows, Space) wherever the focus is, and never pressing what has the focus; the
same keys start and step through a walk-through and a stepper; every screen fits a 1280x720 window."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root, load_content
from lesson.content.scenarios import Scenario, load_scenario

from .helpers import (
    CHURN,
    OUTAGE,
    STEP_NUMBER,
    go_to_screen_of,
    heading,
    log_labels,
    message,
    panel,
    position,
    scenario_box,
    screen_number,
    step_label,
)

pytestmark = pytest.mark.e2e


# Scrolled to its end (at once: the page scrolls smoothly otherwise), where the screen's last line ends and
# where the presenter's bar starts and how tall it is; null while the presenter is still fitting the screen.
SCREEN_END = """() => {
  if (document.querySelector(".present-fitting")) return null;
  window.scrollTo({ top: document.documentElement.scrollHeight, behavior: "instant" });
  const last = [...document.querySelectorAll("article > :not(.present-off):not(.present-title-only)")].pop();
  const bar = document.querySelector("nav.presenter-bar").getBoundingClientRect();
  return [last.getBoundingClientRect().bottom, bar.top, bar.height];
}"""


@pytest.mark.parametrize("width", [375, 1280])
def test_each_screen_shows_its_section_above_the_bar_and_next_stays_where_it_is(page: Page, width: int) -> None:
    """Screen by screen through the lesson: the screen's last line clears the bar, the progress tools are
    never on a screen, and the presenter clicks Next without looking: the bar keeps its shape on every
    screen, whatever the position's number ("Screen 9 of 12", "Screen 10 of 12") or the screen's height."""
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
        if n <= 2:
            # The lesson's progress tools (download, load, start over) are not a section: never on a screen.
            expect(page.get_by_role("heading", name="Your progress")).to_be_hidden()
            expect(page.get_by_role("button", name="Start over")).to_be_hidden()
            # Scrolled to its end, the screen's last line clears the bar, which takes at most a sixth of it.
            # Measured in one go once the screen is fitted (a fit runs over a few frames after a move).
            last_bottom, bar_top, bar_height = page.wait_for_function(SCREEN_END).json_value()
            assert last_bottom <= bar_top + 1
            assert bar_height <= 800 / 6
        if n < total:
            next_.click()
    expect(next_).to_be_disabled()
    assert len(places) == 1, places


def test_the_quick_checks_link_to_a_playground_shows_its_screen_and_the_way_back(page: Page) -> None:
    """The task question's link leads to the playground on an earlier screen, and its way back returns."""
    page.goto(OUTAGE + "?present=1")
    quiz = page.get_by_role("region", name="Quick check questions")
    go_to_screen_of(page, quiz.get_by_role("link", name="Play out an outage"))
    total = screen_number(page)[1]
    at_quiz = screen_number(page)[0]
    quiz.get_by_role("link", name="Play out an outage").click()
    outage = panel(page, "Play out an outage")
    first = outage.get_by_role("group", name="Events").get_by_role("button").first
    expect(first).to_be_focused()
    expect(first).to_be_in_viewport()
    assert screen_number(page)[0] < at_quiz
    outage.get_by_role("link", name=re.compile("question")).click()
    expect(quiz.get_by_role("button", name=re.compile("^Check my playground"))).to_be_focused()
    expect(position(page)).to_have_text(f"Screen {at_quiz} of {total}")


def test_a_quick_check_choice_is_chosen_by_keyboard_and_the_page_keys_still_move_on(page: Page) -> None:
    """A keyboard is a presenter's only way to answer a question: on a focused choice the arrows and Space
    choose, as on any radio, and the clicker's Page Up and Page Down still move a screen."""
    page.set_viewport_size(WINDOW)
    page.goto(OUTAGE + "?present=1")
    quiz = page.get_by_role("region", name="Quick check questions")
    choices = quiz.get_by_role("radio")
    go_to_screen_of(page, choices.first)
    at = screen_number(page)
    choices.first.focus()
    page.keyboard.press("Space")
    expect(choices.first).to_be_checked()
    page.keyboard.press("ArrowDown")
    expect(choices.nth(1)).to_be_checked()
    expect(choices.nth(1)).to_be_focused()
    assert screen_number(page) == at
    page.keyboard.press("PageUp")  # the quick check may be the last screen
    expect(position(page)).to_have_text(f"Screen {at[0] - 1} of {at[1]}")


@pytest.mark.parametrize("width", [1280, 375])
def test_the_presenter_bar_never_covers_the_focus(page: Page, width: int) -> None:
    """Tabbing through a playground's screen, every control the focus reaches shows above the bar."""
    page.set_viewport_size({"width": width, "height": 740})
    page.goto(OUTAGE + "?present=1")
    bar = page.get_by_role("navigation", name="Presenter controls")
    outage = panel(page, "Play out an outage")
    go_to_screen_of(page, outage)
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    outage.get_by_role("radio", name="Modern (2026-07-28)").focus()  # tab on from the era choice
    covered = []
    for _ in range(25):
        page.keyboard.press("Tab")
        # Measured in one go with the check that the screen is fitted: a wide window's screen is fitted
        # again as the focus shows things, and a size read between two fits would be one being tried.
        box = page.wait_for_function(
            """(wide) => { const e = document.activeElement, r = e.getBoundingClientRect();
                       if (wide && (document.scrollingElement.scrollHeight > window.innerHeight
                                    || document.querySelector('.present-fitting'))) return null;
                       return { text: e.textContent.trim().slice(0, 30), bottom: r.bottom,
                                bar: !!e.closest('.presenter-bar') }; }""",
            arg=width >= 1000,
        ).json_value()
        if box["bar"]:
            break  # reached the bar itself
        box = [box["text"], box["bottom"]]
        if box[1] > bar.bounding_box()["y"] + 1:
            covered.append(box)
    assert covered == [], covered


WINDOW = {"width": 1280, "height": 720}


def presses(press: str | list[str]) -> int:
    """How many buttons a scenario's step presses (one may be written without a list)."""
    return 1 if isinstance(press, str) else len(press)


def last_step(section: Locator) -> int:
    """The number of the log's newest step ("Step 7: A dies" is 7; "Start" is 0)."""
    found = STEP_NUMBER.match(log_labels(section).last.inner_text())
    return int(found.group(1)) if found else 0


# The outage's screens are fitted in the clicker's walk of it, the churn lesson's in its stepper's test.
OTHER_LESSONS = [
    lesson.meta.slug
    for lesson in load_content(default_root()).lessons
    if f"/lessons/{lesson.meta.slug}" not in (OUTAGE, CHURN)
]


def expect_screen_fits(page: Page) -> None:
    """Nothing on the screen needs a scroll: the page is no taller than the window, once presenter mode
    has sized the screen (it hides the screen while it tries sizes)."""
    page.wait_for_function(
        "() => document.scrollingElement.scrollHeight <= window.innerHeight"
        " && !document.querySelector('.present-fitting')"
    )


@pytest.mark.parametrize("slug", OTHER_LESSONS)
def test_each_screen_of_each_lesson_fits_the_window(page: Page, slug: str) -> None:
    page.set_viewport_size(WINDOW)
    page.goto(f"/lessons/{slug}?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    total = screen_number(page)[1]
    next_ = page.get_by_role("navigation", name="Presenter controls").get_by_role("button", name="Next", exact=True)
    for n in range(1, total + 1):
        expect(position(page)).to_have_text(f"Screen {n} of {total}")
        expect_screen_fits(page)
        if n < total:
            next_.click()


def test_a_playgrounds_screen_cuts_none_of_its_controls_off(page: Page) -> None:
    """The outage playground's screen, fitted to the window: the stage beside the views shows all of its
    controls, Undo, Reset and Share link below the events too, none cut off by the stage's own scrolling
    (it scrolls only while a question or a walk-through makes it long)."""
    page.set_viewport_size(WINDOW)
    page.goto(f"{OUTAGE}?present=1")
    section = panel(page, "Play out an outage")
    go_to_screen_of(page, section)
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    expect_screen_fits(page)
    for name in ("Undo", "Reset", "Share link"):
        expect(section.get_by_role("button", name=name)).to_be_in_viewport(ratio=0.99)


def first_walk_through(section: Locator) -> Scenario:
    """The walk-through the clicker's keys start: the playground's first."""
    first = section.get_by_role("group", name="Prepared runs").get_by_role("button").first
    scripts = [load_scenario(f)[0] for f in sorted((default_root() / "scenarios").glob("*.yaml"))]
    return next(s for s in scripts if first.inner_text() == message("scenario.play", title=s.title))


def moment_shown(box: Locator, n: int, s: Scenario) -> Locator:
    return box.get_by_text(message("moment", n=n, total=len(s.steps), title=s.steps[n - 1].title), exact=True)


def test_a_clicker_walks_the_lesson_and_its_walk_through_without_pressing_the_playground(page: Page) -> None:
    """Only the clicker's keys (Page Down, Page Up), the focus left on a playground's event button
    throughout (as after a click on it): the keys move screen by screen, each screen fitting the window,
    start the playground's walk-through and step through it, then move on to the lesson's end and back. No
    key presses the focused button: the log holds only the walk-through's own presses. Each moment's
    narration is in the window, beside what changed. (The other keys: the next test.)"""
    forward, back = "PageDown", "PageUp"
    page.set_viewport_size(WINDOW)
    page.goto(OUTAGE + "?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    total = screen_number(page)[1]
    outage = panel(page, "Play out an outage")
    target = outage.get_by_role("button", name="A dies", exact=True)

    def key(name: str) -> None:
        if target.is_visible():
            target.focus()  # left there, as a click on it leaves it
        page.keyboard.press(name)

    expect_screen_fits(page)
    for n in range(2, total + 1):  # on to the playground's screen
        if outage.is_visible():
            break
        key(forward)
        expect(position(page)).to_have_text(f"Screen {n} of {total}")
        expect_screen_fits(page)
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    at = screen_number(page)[0]
    expect(log_labels(outage)).to_have_count(1)  # "Start": nothing pressed yet
    s = first_walk_through(outage)
    box = scenario_box(outage, s)

    key(forward)  # starts the walk-through, the screen's next step
    pressed = None
    for n, step in enumerate(s.steps, start=1):
        if n > 1:
            key(forward)
        expect(moment_shown(box, n, s)).to_be_visible()
        narration = box.get_by_text(step.narration).first
        expect(narration).to_be_in_viewport()
        expect(box.get_by_role("status")).to_contain_text(step.narration)  # the moment's presses are answered
        expect_screen_fits(page)
        expect(narration).to_be_in_viewport()
        # The log's newest step is the walk-through's own: after the first moment, each later moment
        # adds exactly its presses, and no key adds one.
        if pressed is None:
            pressed = last_step(outage)
        else:
            pressed += presses(step.press)
        expect(log_labels(outage).last).to_have_text(step_label(pressed))
        if n == 2:
            result = Axe().run(page)  # presenter mode with a walk-through on screen
            assert result.violations_count == 0, result.generate_report()
        assert screen_number(page)[0] == at

    key(forward)  # after the last moment: the next screen
    expect(position(page)).to_have_text(f"Screen {at + 1} of {total}")
    expect_screen_fits(page)
    for n in range(at + 2, total + 1):
        key(forward)
        expect(position(page)).to_have_text(f"Screen {n} of {total}")
        expect_screen_fits(page)
    key(forward)  # at the end, a key does nothing
    expect(position(page)).to_have_text(f"Screen {total} of {total}")

    for n in range(total - 1, at - 1, -1):  # back to the playground, at the walk-through's last moment
        key(back)
        expect(position(page)).to_have_text(f"Screen {n} of {total}")
    expect(moment_shown(box, len(s.steps), s)).to_be_visible()
    key(back)  # back one moment: its presses undone, by the walk-through's own Previous
    expect(moment_shown(box, len(s.steps) - 1, s)).to_be_visible()
    expect(box.get_by_text(s.steps[-2].narration).first).to_be_in_viewport()
    expect(box.get_by_role("status")).to_contain_text(s.steps[-2].narration)  # its presses undone
    assert screen_number(page)[0] == at

    # A deliberate Enter still presses the focused button: the playground stays live, and the new step
    # follows the walk-through's (its last moment undone): no key pressed anything on the way.
    outage.get_by_role("button", name="Take a model turn", exact=True).focus()
    page.keyboard.press("Enter")
    expect(log_labels(outage).last).to_have_text(heading(pressed - presses(s.steps[-1].press) + 1, "take_turn"))


# The clicker's keys, forward and back, as pairs.
KEYS = [("PageDown", "PageUp"), ("ArrowRight", "ArrowLeft"), ("Space", "ArrowUp"), ("ArrowDown", "PageUp")]


def test_every_clicker_key_moves_a_screen_and_a_moment_without_pressing_the_playground(page: Page) -> None:
    """Each of the clicker's keys moves one screen, showing the screen's one section heading with the
    focus on it; on the playground's screen, the focus left on its event button, each steps the
    walk-through a moment and none presses the button (Space would, were it let through)."""
    page.set_viewport_size(WINDOW)
    page.goto(OUTAGE + "?present=1")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    total = screen_number(page)[1]
    assert total > 3
    # Only the lesson's title shows on the first screen; no section heading yet.
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    shown = page.locator("article h2:visible")
    expect(shown).to_have_count(0)
    first = None
    for forward, back in KEYS:
        page.keyboard.press(forward)
        expect(position(page), forward).to_have_text(f"Screen 2 of {total}")
        expect(shown).to_have_count(1)
        expect(shown).to_be_focused()
        first = first or shown.inner_text()
        expect(shown).to_have_text(first)
        page.keyboard.press(back)
        expect(position(page), back).to_have_text(f"Screen 1 of {total}")
    expect(page.get_by_role("link", name="Leave presenter mode")).to_have_attribute("href", OUTAGE)

    outage = panel(page, "Play out an outage")
    go_to_screen_of(page, outage)
    at = screen_number(page)[0]
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    target = outage.get_by_role("button", name="A dies", exact=True)
    s = first_walk_through(outage)
    box = scenario_box(outage, s)
    forwards = [forward for forward, _ in KEYS]
    backs = list(dict.fromkeys(back for _, back in KEYS))
    assert len(s.steps) > len(backs), "the walk-through is too short to step back with each key"
    newest = []
    for n, forward in enumerate(forwards, start=1):  # the first starts the walk-through
        target.focus()
        page.keyboard.press(forward)
        expect(moment_shown(box, n, s), forward).to_be_visible()
        expect(box.get_by_role("status")).to_contain_text(s.steps[n - 1].narration)
        newest.append(last_step(outage))
        if n > 1:  # the moment's own presses, and none by the key
            assert newest[-1] == newest[-2] + presses(s.steps[n - 1].press), (forward, newest)
    for n, back in zip(range(len(forwards) - 1, 0, -1), backs, strict=False):
        target.focus()
        page.keyboard.press(back)
        expect(moment_shown(box, n, s), back).to_be_visible()
        expect(box.get_by_role("status")).to_contain_text(s.steps[n - 1].narration)
        expect(log_labels(outage).last).to_have_text(step_label(newest[n - 1]))
    assert screen_number(page)[0] == at


def test_the_clickers_keys_step_the_stepper_wherever_the_focus_is(page: Page) -> None:
    """On a stepper's screen the keys show its moments one by one, then move on, wherever the focus is:
    outside the stepper, or on its era choice (whose arrows would change the era): the era stays. Every
    screen of the lesson fits the window."""
    page.set_viewport_size(WINDOW)
    page.goto(CHURN + "?present=1")
    stepper = panel(page, "A session with churn")
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    screens = screen_number(page)[1]
    next_ = page.get_by_role("navigation", name="Presenter controls").get_by_role("button", name="Next", exact=True)
    for n in range(1, screens + 1):  # Next, screen by screen, until the stepper shows
        expect(position(page)).to_have_text(f"Screen {n} of {screens}")
        expect_screen_fits(page)
        if stepper.is_visible():
            break
        next_.click()
    here = screen_number(page)
    moment = stepper.get_by_role("heading", level=4)
    expect(moment).to_have_text(re.compile(r"^Moment 1 of (\d+)"))
    total = int(re.match(r"^Moment 1 of (\d+)", moment.inner_text()).group(1))
    era = stepper.get_by_role("radio", checked=True)
    chosen = era.get_attribute("value")
    keys = ["ArrowRight", "Space", "PageDown", "ArrowDown"]
    for n in range(2, total + 1):
        if n > 2:  # the first key with the focus where the screen put it, on its heading, outside the stepper
            era.focus()
        page.keyboard.press(keys[n % len(keys)])
        expect(moment).to_have_text(re.compile(rf"^Moment {n} of {total}"))
        expect(moment).to_be_in_viewport()
        expect_screen_fits(page)
    expect(stepper.get_by_role("radio", checked=True)).to_have_attribute("value", chosen or "")
    era.focus()
    page.keyboard.press("PageUp")
    expect(moment).to_have_text(re.compile(rf"^Moment {total - 1} of {total}"))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # past the last moment: the next screen
    expect(position(page)).to_have_text(f"Screen {here[0] + 1} of {here[1]}")
    for n in range(here[0] + 1, screens + 1):  # the rest of the lesson's screens fit too
        expect(position(page)).to_have_text(f"Screen {n} of {screens}")
        expect_screen_fits(page)
        if n < screens:
            next_.click()


def test_the_text_size_buttons_are_remembered_and_screens_still_fit(page: Page) -> None:
    page.set_viewport_size(WINDOW)
    page.goto(CHURN + "?present=1")
    bar = page.get_by_role("navigation", name="Presenter controls")
    larger = bar.get_by_role("button", name="Larger text")
    heading = page.get_by_role("heading", level=1)
    expect_screen_fits(page)
    size = heading.evaluate("h => parseFloat(getComputedStyle(h).fontSize)")
    larger.click()
    larger.click()
    page.wait_for_function(f"() => parseFloat(getComputedStyle(document.querySelector('h1')).fontSize) > {size}")
    expect_screen_fits(page)
    page.reload()
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of "))
    page.wait_for_function(f"() => parseFloat(getComputedStyle(document.querySelector('h1')).fontSize) > {size}")
    smaller = bar.get_by_role("button", name="Smaller text")
    while smaller.is_enabled():
        smaller.click()
    expect(smaller).to_be_disabled()
    expect(larger).to_be_enabled()
    page.wait_for_function(f"() => parseFloat(getComputedStyle(document.querySelector('h1')).fontSize) < {size}")
