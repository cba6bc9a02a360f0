"""Every page, on one load each: nothing loaded from another origin, no console or page errors while a
learner uses it, one h1 and a main landmark, no sideways scroll on a phone (its widest state, at 375 px and
narrowed to 320 px), and no axe violations (in the light and the dark theme where the theme matters most).
Full-page screenshots go to $LESSON_SCREENSHOTS."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import ConsoleMessage, Page, expect

from lesson.content.course import default_root, load_content, load_panels
from lesson.i18n import translate

from .helpers import (
    ANSWERING,
    CHURN,
    GATEWAYS,
    LESSON_2,
    OUTAGE,
    RESTARTS,
    button_label,
    choose_era,
    lead,
    message,
    moment_title,
    open_playground,
    panel,
    press,
    restart_lab,
    step_label,
    wire,
)

pytestmark = pytest.mark.e2e

COURSE = [CHURN, LESSON_2, OUTAGE, RESTARTS, ANSWERING, GATEWAYS]


def use_index(page: Page) -> None:
    # The course as a path: every lesson in order, each with its quick check's progress.
    links = page.get_by_role("main").get_by_role("listitem").get_by_role("link")
    expect(links).to_have_count(len(COURSE))
    for n, path in enumerate(COURSE):
        expect(links.nth(n)).to_have_attribute("href", path)
    # Each says how many questions wait; a bar comes with the first answer (an empty one reads as failed).
    unanswered = [
        re.escape(translate("en", f"index.check.unanswered.{n}", total=0)).replace("0", r"\d+") for n in ("one", "many")
    ]
    expect(page.get_by_text(re.compile("|".join(unanswered)))).to_have_count(len(COURSE))
    expect(page.get_by_role("progressbar")).to_have_count(0)
    expect(page.get_by_role("link", name="the glossary")).to_have_attribute("href", "/glossary")
    expect(page.get_by_role("link", name="the reference page")).to_have_attribute("href", "/reference")


def check_first(page: Page) -> None:
    quiz = page.get_by_role("region", name="Quick check questions")
    quiz.get_by_role("button", name="Check answer").first.click()
    expect(quiz.get_by_text(message("quiz.missing"))).to_be_visible()


def use_churn(page: Page) -> None:
    stepper = panel(page, "A session with churn")
    stepper.scroll_into_view_if_needed()
    expect(stepper.get_by_role("heading", level=4)).to_have_text(moment_title(1))
    stepper.get_by_role("button", name="Next moment").click()
    expect(stepper.get_by_role("heading", level=4)).to_have_text(moment_title(2))
    check_first(page)


def use_outage(page: Page) -> None:
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "B deploys a new tool", 1)
    press(outage, "Take a model turn", 2)
    press(outage, "A dies", 3)
    press(outage, "Take a model turn", 4)
    # The widest the page gets: A's death on view (the last turn undone), the wire messages (JSON) open.
    outage.get_by_role("button", name="Undo").click()
    expect(outage.locator('[data-region="log"] li.step > p.step-label').last).to_have_text(step_label(3))
    wire(outage)
    check_first(page)


def use_restarts(page: Page) -> None:
    lab = restart_lab(page)
    lab.get_by_role("radio", name="a call is in flight").check()
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(re.compile("a call is in flight"))
    # The lab's question about this set-up, opened under the result.
    in_flight = load_panels(default_root())["restarts"].question_for("in-flight", [])
    assert in_flight is not None
    lab.get_by_text(message("lab.check", question=in_flight.question)).click()
    check_first(page)
    # The widest the lab gets: a restart with a listen stream open, its wire messages open; then a
    # stale result and a disabled option, which are part of what the lab shows.
    lab.get_by_role("radio", name="a listen stream is open").check()
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(re.compile("^Restarted while .*listen stream"))
    summaries = lab.get_by_text(re.compile(r"^Wire messages \(\d+\)"))
    expect(summaries.first).to_be_visible()
    for summary in summaries.all():
        summary.click()
    lab.get_by_role("radio", name="idle").check()
    expect(lab.get_by_text(translate("en", "lab.stale"))).to_be_visible()


def use_answering(page: Page) -> None:
    answering = panel(page, "A restart while the user is answering")
    expect(answering.get_by_role("button", name="Reset")).to_be_enabled()
    # Where W keeps its requestState key matters in the modern era only: in legacy the choice is off,
    # and says so.
    keys = answering.get_by_role("group", name=re.compile("requestState"))
    expect(keys.get_by_role("radio").first).to_be_enabled()
    answering.get_by_role("radio", name=translate("en", "js.era.legacy")).check()
    expect(keys.get_by_role("radio").first).to_be_disabled()
    expect(keys).to_have_accessible_description(
        translate("en", "playground.variants_era", era=translate("en", "js.era.modern"))
    )
    answering.get_by_role("radio", name=translate("en", "js.era.modern")).check()
    expect(keys.get_by_role("radio").first).to_be_enabled()
    check_first(page)


def use_gateways(page: Page) -> None:
    gateway = panel(page, "A gateway in front")
    expect(gateway.get_by_role("button", name="Reset")).to_be_enabled()
    press(gateway, "B fails its health check", 1)
    handles = panel(page, "Explicit state handles")
    handles.scroll_into_view_if_needed()  # its code is fetched as it nears the screen
    expect(handles.get_by_role("button", name="Reset")).to_be_enabled()
    press(handles, "create_basket", 1)
    check_first(page)


def use_reference(page: Page) -> None:
    expect(page.get_by_role("heading", level=2, name="The messages, era by era")).to_be_visible()
    # On a phone its tables fit the screen: the end of a column is not hidden in a sideways scroll.
    size = page.viewport_size
    resize(page, 375, 812)
    tables = page.get_by_role("main").get_by_role("table").all()
    assert tables, "the reference page has no table: the check covers nothing"
    for table in tables:
        assert table.evaluate("t => t.scrollWidth - t.clientWidth") <= 0, "a table scrolls sideways at 375 px"
    resize(page, size["width"], size["height"])


def use_moved(page: Page) -> None:
    # The former lesson's address says where each part went, and the links lead there.
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    # (Read from the link, not followed: following it would load the lesson and this page again.)
    link = page.get_by_role("row", name=re.compile("Play out an outage")).get_by_role("link")
    expect(link).to_have_attribute("href", re.compile("^" + re.escape(OUTAGE) + "#play-out-an-outage$"))


def use_lesson_2(page: Page) -> None:
    guide = open_playground(page, LESSON_2, "Misbehaving servers")
    press(guide, button_label("guide", "timer"), 1)
    press(guide, button_label("guide", "admin"), 2)
    choose_era(guide, "legacy")
    expect(guide.get_by_role("status")).to_contain_text(lead("playground.after", k=3))
    press(guide, button_label("guide", "undeclared"), 4)
    quiz = page.get_by_role("region", name="Quick check questions")
    quiz.get_by_role("radio").first.check()
    quiz.get_by_role("button", name="Check answer").first.click()
    expect(quiz.get_by_text(message("quiz.wrong"))).to_be_visible()
    # Then the right answer: its explanation, what the first answer was, and the link into the lesson.
    quiz.get_by_role("radio").nth(1).check()
    quiz.get_by_role("button", name="Check answer").first.click()
    expect(quiz.get_by_role("status").nth(1).get_by_text(re.compile("first answer"))).to_be_visible()
    expect(quiz.get_by_role("link", name="Before a server sends it")).to_be_visible()
    wire(guide)  # the widest the page gets: the wire messages (JSON) open


def use_glossary(page: Page) -> None:
    entries = page.get_by_role("definition")
    assert entries.count() >= 20
    expect(page.get_by_role("term").filter(has_text="listen stream")).to_be_visible()
    page.locator("dt#listen-stream + dd").get_by_role("link", name="acknowledgement").click()
    expect(page).to_have_url(re.compile("#acknowledgement$"))
    expect(page.locator("dt#acknowledgement")).to_be_in_viewport()
    expect(page.locator("dt#listen-stream")).to_be_attached()


def use_not_found(page: Page) -> None:
    expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    expect(page.get_by_role("link", name="course index")).to_have_attribute("href", "/")


# The pages checked at phone widths and in both themes: each kind of page, the lessons with the widest
# content. (The others are lessons of the same template, checked in the theme the system asks for.)
BOTH_THEMES = {"index", "list-changed", "an-outage", "restarts", "glossary", "not-found"}


def sideways_overflow(page: Page) -> int:
    """How far the document scrolls sideways, in CSS pixels (0: it does not)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def resize(page: Page, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("(w) => window.innerWidth === w", arg=width)


def theme_radio(page: Page, name: str):
    return page.get_by_role("group", name="Theme").get_by_role("radio", name=name, exact=True)


def expect_no_axe_violations(page: Page, theme: str | None = None) -> None:
    """Axe finds nothing; in the theme named, when one is (the stylesheet has no colour transitions: a
    theme applies at once)."""
    if theme:
        theme_radio(page, theme.capitalize()).check()
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
    results = Axe().run(page)
    assert results.violations_count == 0, f"{theme or 'system'} theme: {results.generate_report()}"


def stand_alone_targets_are_24_px_tall(page: Page, name: str) -> None:
    """WCAG 2.2 target size: links and toggles that are not part of a sentence are 24 px or taller, on a
    desktop's window and on a phone's (the same page, narrowed)."""
    if name != "an-outage":
        return
    targets = {
        "All lessons": page.get_by_role("navigation").get_by_role("link", name="All lessons"),
        "Show a hint": panel(page, "Play out an outage").get_by_text("Show a hint"),
    }
    width = page.viewport_size["width"]
    for label, target in targets.items():
        expect(target).to_be_visible()
        height = target.bounding_box()["height"]
        assert height >= 24, f"{label} is {height} px tall at {width} px"


PAGES: dict[str, tuple[str, int, Callable[[Page], None]]] = {
    "index": ("/", 200, use_index),
    "servers-come-and-go": (CHURN, 200, use_churn),
    "list-changed": (LESSON_2, 200, use_lesson_2),
    "an-outage": (OUTAGE, 200, use_outage),
    "restarts": (RESTARTS, 200, use_restarts),
    "a-question-across-a-restart": (ANSWERING, 200, use_answering),
    "gateways-and-handles": (GATEWAYS, 200, use_gateways),
    "reference": ("/reference", 200, use_reference),
    "former-lesson": ("/lessons/hot-swapping", 200, use_moved),
    "glossary": ("/glossary", 200, use_glossary),
    "not-found": ("/lessons/no-such-lesson", 404, use_not_found),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_page(page: Page, base_url: str, name: str) -> None:
    path, status, use = PAGES[name]
    requests: list[str] = []
    sockets: list[str] = []
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type != "error":
            return
        # The 404 page's own document is answered 404 on purpose, and Chromium logs that as an error.
        if status == 404 and msg.location.get("url") == base_url + path and "404" in msg.text:
            return
        errors.append(f"console: {msg.text} ({msg.location.get('url')})")

    page.on("request", lambda r: requests.append(r.url))
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))

    response = page.goto(path)
    assert response is not None and response.status == status
    use(page)

    # Structure: one h1, one main landmark holding it.
    expect(page.get_by_role("heading", level=1)).to_have_count(1)
    expect(page.get_by_role("main")).to_have_count(1)
    expect(page.get_by_role("main").get_by_role("heading", level=1)).to_have_count(1)
    # The skip link names where it goes: the lesson on a lesson's page, the main content elsewhere.
    skip = "Skip to the lesson" if path in COURSE else "Skip to the main content"
    expect(page.get_by_role("link", name=skip)).to_have_attribute("href", "#main")

    folder = os.environ.get("LESSON_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)

    if name in BOTH_THEMES or path in COURSE:
        # The page in its widest state, at 375 px, then narrowed to 320 px as a window is: the page
        # follows a resize (its stylesheet, and the scripts that place the controls bar).
        size = page.viewport_size
        if name in BOTH_THEMES:
            stand_alone_targets_are_24_px_tall(page, name)
        for width in (375, 320):
            resize(page, width, 800)
            assert sideways_overflow(page) == 0, f"{sideways_overflow(page)} px sideways at {width} px"
            if width == 375 and name in BOTH_THEMES:
                stand_alone_targets_are_24_px_tall(page, name)
                expect_no_axe_violations(page)  # a phone's layout has its own (a row that scrolls sideways)
        resize(page, size["width"], size["height"])
    if name in BOTH_THEMES:
        for theme in ("light", "dark"):
            expect_no_axe_violations(page, theme)
    else:
        expect_no_axe_violations(page)

    assert errors == [], errors
    assert requests and all(url.startswith(base_url + "/") for url in requests), requests
    ws_origin = base_url.replace("http://", "ws://", 1) + "/"
    assert all(url.startswith(ws_origin) for url in sockets), sockets


def test_a_link_to_a_section_still_lands_on_it_once_the_playgrounds_above_are_drawn(page: Page) -> None:
    """The page's panels draw their first view after the browser has begun scrolling (smoothly, with motion
    on) to the link's section; once it has settled, the section is on screen (it was 1,985 px below when
    every playground drew at load and grew above it)."""
    page.emulate_media(reduced_motion="no-preference")
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(f"{GATEWAYS}#quick-check")
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("heading", name="Quick check", level=2)).to_be_in_viewport()


def test_a_contents_link_lands_on_its_section_once_the_stepper_above_is_drawn(page: Page) -> None:
    """Lesson 1's stepper mounts as it nears the screen, so a jump past it makes it grow above the section."""
    page.emulate_media(reduced_motion="no-preference")
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(CHURN)
    contents = page.get_by_role("navigation", name=translate("en", "lesson.toc"))
    contents.locator("summary").click()
    contents.get_by_role("link", name="Three rules").click()
    expect(page.get_by_role("heading", name=moment_title(1))).to_be_visible()
    expect(page.get_by_role("heading", name="Three rules", level=2)).to_be_in_viewport()


@pytest.mark.parametrize("path", [CHURN, OUTAGE])
def test_a_skip_link_takes_the_keyboard_past_the_prose_to_the_lessons_first_panel(page: Page, path: str) -> None:
    """The prose before a lesson's first panel links each glossary word: a second skip link, one Tab after
    the first, takes the keyboard to the panel, whose own controls are the next Tab stops."""
    lesson = next(x for x in load_content(default_root()).lessons if path.endswith(x.meta.slug))
    panels = load_panels(default_root())
    first = next(panels[b.name] for b in lesson.blocks if b.kind != "html" and b.name in panels)
    page.goto(path)
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    link = page.get_by_role("link", name=translate("en", "site.skip_panel", title=first.title))
    expect(link).to_be_focused()
    expect(link).to_be_in_viewport()  # shown while it has the focus
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(panel(page, first.title).locator(":focus")).to_have_count(1)


def test_a_playground_not_yet_come_passes_axe_on_a_phone(page: Page) -> None:
    """A playground far below the first screen gets its code as it nears it, and until then its buttons
    are disabled. On a phone its row of events scrolls sideways: a box that scrolls must hold something
    the keyboard can reach, so the row does not scroll until a button in it is enabled."""
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(RESTARTS)
    eras = panel(page, "Host and server in different eras")
    expect(eras.get_by_role("group", name="Events").get_by_role("button").first).to_be_disabled()
    expect_no_axe_violations(page)
