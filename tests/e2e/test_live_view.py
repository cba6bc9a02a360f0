"""The playground's live view: every change is in view near the button and marked in words, the log
grows by appending, and the timeline lets a learner look back and continue from an earlier press."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root
from lesson.content.scenarios import load_scenario

from .helpers import (
    OUTAGE,
    OUTAGE_COMPARISON,
    START,
    expect_step,
    heading,
    lead,
    log_labels,
    message,
    narrated,
    open_playground,
    press,
    prompt,
    region,
    server_row,
    show_tab,
    step_label,
)

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"


@pytest.fixture
def outage(page: Page) -> Locator:
    page.set_viewport_size({"width": 1280, "height": 800})
    return open_playground(page, OUTAGE, TITLE)


def badge(el: Locator) -> str:
    """The word a mark shows beside an element (drawn by CSS, so read from its ::after box)."""
    content = el.evaluate("e => getComputedStyle(e, '::after').content")
    found = re.match(r'^"([^"]*)"', content)
    return found.group(1) if found else content


def expect_marked(el: Locator, word: str) -> None:
    expect(el).to_have_attribute("data-mark", word)
    assert badge(el) == word
    expect(el).to_be_in_viewport()


def rowheader(section: Locator, name: str) -> Locator:
    return server_row(section, name).get_by_role("rowheader")


def status(section: Locator) -> Locator:
    return section.get_by_role("status")


def timeline(section: Locator) -> Locator:
    return section.get_by_role("slider", name="Timeline of presses")


def open_playground_again(page: Page) -> Locator:
    section = page.get_by_role("region", name=TITLE, exact=True)
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    return section


def state(k: int, total: int | None = None) -> str:
    """The name the timeline gives a state ("after press 1 of 3"), from the catalogue."""
    return message("step.after.of", k=k, total=total) if total else message("step.after", k=k)


def viewing(section: Locator, k: int, total: int) -> Locator:
    return section.get_by_text(message("timeline.viewing", name=state(k, total)), exact=True)


def now(section: Locator, k: int) -> Locator:
    return section.get_by_text(message("timeline.now", name=state(k)), exact=True)


def past_note(section: Locator) -> Locator:
    """The note shown while an earlier state is on view, found by its catalogue text's opening."""
    return section.get_by_text(re.compile("^" + re.escape(lead("timeline.past.many"))))


def a_status(section: Locator) -> Locator:
    """A's Status cell, as a screen reader reads it."""
    return server_row(section, "A").get_by_role("cell").first


def test_a_press_marks_its_changes_an_undo_says_it_is_one_and_a_refused_press_says_why(outage: Locator) -> None:
    # Landmark lists read every region's name: the view's heading and the panel's title, with a pause
    # between them rather than run together.
    expect(region(outage, "What happened")).to_have_accessible_name(
        re.compile(r"^What happened\s*, Play out an outage$")
    )

    # A server that dies is marked in view.
    press(outage, "A dies", 1)
    expect_marked(rowheader(outage, "A"), "changed")
    expect(outage.get_by_role("button", name="A dies")).to_be_in_viewport()
    # Its tools leave the next prompt: said in words, beside the list.
    left = prompt(outage).get_by_text(re.compile("^" + re.escape(lead("playground.left"))))
    expect(left).to_contain_text("search_docs from A")
    expect_marked(left, "gone")
    said = status(outage)
    expect(said).to_contain_text(lead("playground.after", k=1))
    # "server A: status (now down), stream, … changed": A's change names its new status first.
    down = message("changes.changed", server="A", fields="\0").split("\0")[0]
    down += message("changes.status_now", status="down")
    expect(said, "the status names what changed").to_contain_text(down)
    # A server dying is news, not a tool call that failed.
    expect(said).not_to_contain_text(message("changes.failed", text=""))
    expect(said).to_contain_text(message("changes.left", tools="search_docs, read_page"))
    # B did not change, so it carries no mark.
    expect(rowheader(outage, "B")).not_to_have_attribute("data-mark", re.compile("."))

    # The log scrolls in its own box: a keyboard user can reach it, and a screen reader names it.
    box = region(outage, "What happened").get_by_role("group", name="What happened, newest last")
    box.focus()
    expect(box).to_be_focused()
    expect(box).to_contain_text(heading(1, "server_dies", server="A"))

    # What an undo changes is marked like a press's changes, but in words that say it was an undo and
    # what it took back, not as if the step on view had just made them.
    press(outage, "A is back", 2)
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_count(2)
    expect(said).to_contain_text(lead("playground.undone", label=narrated("narration.event.server_back", server="A")))
    expect(said).to_contain_text(state(1))
    expect(said).not_to_contain_text(lead("playground.after", k=2))
    left = prompt(outage).get_by_text(re.compile("^" + re.escape(lead("playground.left_undo"))))
    expect(left).to_contain_text("search_docs from A")
    outage.get_by_role("button", name="Undo").click()
    expect(said).to_contain_text(lead("playground.undone", label=narrated("narration.event.server_dies", server="A")))
    expect(said).to_contain_text(message("playground.now_start"))

    # A press the simulation refuses says why: the log's reason, not only "nothing changed".
    press(outage, "A dies", 1)
    press(outage, "A dies", 2)
    expect(said).to_contain_text(lead("playground.after", k=2))
    reason = region(outage, "What happened").locator("li.step").last.locator(".tone-rejected")
    expect(reason).to_have_count(1)
    expect(said).to_contain_text(reason.locator("[data-content]").inner_text())


def test_a_keyboard_press_keeps_its_button_focused_on_screen_and_unlike_a_mark(outage: Locator) -> None:
    """Where the first change fits on screen with the button pressed, bringing the changes into view
    keeps that button (and a keyboard user's focus) on screen too, even when the rest of the changes
    reach further down than the screen does (the comparison, after a deploy). The focus ring and the
    marks beside it must not look alike. With motion, as most learners have it: the page scrolls smoothly
    (keys, not clicks, press the buttons, so no click is aimed while it moves)."""
    page = outage.page
    page.emulate_media(reduced_motion="no-preference")
    for n, label in enumerate(["B deploys a new tool", "Take a model turn", "A dies"], start=1):
        button = outage.get_by_role("button", name=label)
        button.focus()
        page.keyboard.press("Enter")
        expect(log_labels(outage)).to_have_count(n + 1)  # Start, then a step a press
        expect(button).to_be_focused()
        expect(button).to_be_in_viewport()
        expect(outage.locator("[data-mark]").first).to_be_in_viewport()
    expect_marked(rowheader(outage, "A"), "changed")
    ring = "e => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineColor, s.outlineWidth]; }"
    focus, mark = button.evaluate(ring), rowheader(outage, "A").evaluate(ring)
    assert focus[0] == "solid" and mark[0] == "dashed", (focus, mark)
    assert focus[1] != mark[1], (focus, mark)


def test_reduced_motion_and_the_focused_control_that_was_not_pressed(outage: Locator) -> None:
    """Reduced motion keeps the words and drops the flash. Scrubbing the timeline with the arrow keys,
    or stepping a scenario with Next moment, changes the view without the focused control being
    pressed: it stays on screen with the first change."""
    page = outage.page
    page.emulate_media(reduced_motion="reduce")  # the page scrolls at once: no smooth scroll to wait out
    press(outage, "A dies", 1)
    expect_marked(rowheader(outage, "A"), "changed")
    expect(rowheader(outage, "A")).not_to_have_class(re.compile(r"\bflash\b"))
    page.emulate_media(reduced_motion="no-preference")
    press(outage, "A is back", 2)
    expect(rowheader(outage, "A")).to_have_class(re.compile(r"\bflash\b"))
    page.emulate_media(reduced_motion="reduce")

    for n, label in enumerate(["B deploys a new tool", "The model calls a tool on A"], start=3):
        outage.get_by_role("button", name=label).focus()
        page.keyboard.press("Enter")
        expect(log_labels(outage)).to_have_count(n + 1)
    slider = timeline(outage)
    slider.focus()
    # As a Tab reaches it: at the foot of the screen, the changes it will show further down.
    slider.evaluate("el => window.scrollBy(0, el.getBoundingClientRect().bottom - window.innerHeight + 8)")
    for value in ("3", "2"):
        page.keyboard.press("ArrowLeft")
        expect(slider).to_have_value(value)
        expect(slider).to_be_focused()
        expect(slider).to_be_in_viewport()
    s = load_scenario(default_root() / "scenarios" / "outage.yaml")[0]
    outage.get_by_role("button", name=f"Walk me through it: {s.title}").click()
    # Each moment is played out before the next Enter: a press of Next while a moment still plays (its
    # code fetched on first use, its presses on their way; slow on a busy machine) is not a new moment.
    expect_step(outage, s, 1)
    step = outage.get_by_role("button", name="Next moment")
    for n in (2, 3):
        step.focus()
        page.keyboard.press("Enter")
        expect_step(outage, s, n)
        expect(step).to_be_focused()
        expect(step).to_be_in_viewport()
        expect(outage.locator("[data-mark]").first).to_be_in_viewport()


def test_new_servers_counters_and_the_comparison_are_marked(outage: Locator) -> None:
    press(outage, "Add server C", 1)
    expect_marked(rowheader(outage, "C"), "new")
    joined = prompt(outage).get_by_role("listitem").filter(has_text=re.compile("^find_slot from C"))
    expect_marked(joined, "joined")
    expect(status(outage)).to_contain_text(message("changes.added", server="C"))

    press(outage, "Take a model turn", 2)
    counters = prompt(outage).get_by_text(re.compile("^Conversation: "))
    expect_marked(counters, "changed")
    expect(status(outage)).to_contain_text(message("changes.was", now=message("changes.turns", n=1), was=0))

    # After a turn, a tool that joins is new since that turn: outlined, and said once, by its badge.
    press(outage, "B deploys a new tool", 3)
    close = prompt(outage).get_by_role("listitem").filter(has_text=re.compile("^close_ticket from B"))
    expect(close).to_have_attribute("data-mark", "")
    expect(close).to_contain_text(message("prompt.new"))
    # The comparison sits beside the prompt.
    show_tab(outage, "Both eras")
    cmp = region(outage, OUTAGE_COMPARISON)
    next_prompt = region(outage, "Tools in the model's next prompt")
    expect(cmp).to_be_in_viewport()
    box, pbox = cmp.bounding_box(), next_prompt.bounding_box()
    assert box and pbox and box["x"] > pbox["x"] + pbox["width"] - 1, "the comparison is beside the prompt"
    assert box["y"] < pbox["y"] + pbox["height"], "the comparison starts level with the prompt"
    expect(cmp.get_by_role("heading", level=5).first).to_be_in_viewport()
    expect_marked(cmp.locator("[data-mark]"), "new step")
    # The next press clears the marks of the last one where nothing changed.
    press(outage, "A is back", 4)
    expect(rowheader(outage, "B")).not_to_have_attribute("data-mark", re.compile("."))


def test_the_log_grows_by_appending_and_shows_the_step_on_view(outage: Locator) -> None:
    press(outage, "Take a model turn", 1)
    first = log_labels(outage).first
    # A property set on the first entry survives later presses only if the entry is never rebuilt.
    first.evaluate("e => { e.closest('li').keep = 'same node'; }")
    press(outage, "A dies", 2)
    press(outage, "Take a model turn", 3)
    assert first.evaluate("e => e.closest('li').keep") == "same node"
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_count(3)
    expect(log_labels(outage).last).to_have_text(heading(2, "server_dies", server="A"))
    assert first.evaluate("e => e.closest('li').keep") == "same node"
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text([START])

    # Back to the latest, from the keyboard.
    press(outage, "A dies", 1)
    press(outage, "A is back", 2)
    timeline(outage).fill("1")
    expect(a_status(outage)).to_have_accessible_name("down")
    latest = outage.get_by_role("button", name="Back to the latest")
    latest.focus()
    outage.page.keyboard.press("Enter")
    expect(now(outage, 2)).to_be_visible()
    expect(a_status(outage)).to_have_accessible_name("connected")
    expect(log_labels(outage)).to_have_count(3)
    # The button hides itself: the focus goes to the slider, not back to the top of the page.
    expect(latest).to_be_hidden()
    expect(timeline(outage)).to_be_focused()

    # The log box scrolls by itself: viewing an earlier step brings that step's entry into it.
    for n in range(3, 9):
        press(outage, "A dies" if n % 2 else "A is back", n)
    log = region(outage, "What happened").locator('[data-region="log"]')
    assert log.evaluate("e => e.scrollHeight > e.clientHeight + 100"), "the log fits its box: nothing to scroll"

    def shows(step: int) -> bool:
        return log.evaluate(
            """(box, step) => {
                 const e = box.querySelector(`li[data-step="${step}"]`).getBoundingClientRect();
                 const b = box.getBoundingClientRect();
                 return e.top >= b.top && e.top < b.bottom - 10; }""",
            step,
        )

    assert not shows(1)
    timeline(outage).fill("1")
    expect(log.locator('li[aria-current="step"]')).to_have_attribute("data-step", "1")
    assert shows(1)
    outage.get_by_role("button", name="Back to the latest").click()
    expect(log.locator('li[aria-current="step"]')).to_have_attribute("data-step", "8")
    assert shows(8)


def test_an_earlier_press_on_view_is_marked_with_what_that_press_did(outage: Locator) -> None:
    """Scrubbing back to press 1 marks press 1's own changes (B's new tool), not the difference from the
    screen left behind (C, added by press 2, is not "gone" from press 1's table)."""
    press(outage, "B deploys a new tool", 1)
    press(outage, "Add server C", 2)
    press(outage, "Take a model turn", 3)
    timeline(outage).fill("1")
    expect(viewing(outage, 1, 3)).to_be_visible()
    expect(server_row(outage, "C")).to_have_count(0)
    expect(outage.get_by_text(lead("playground.gone"))).to_have_count(0)
    close = prompt(outage).get_by_role("listitem").filter(has_text=re.compile("^close_ticket from B"))
    expect_marked(close, "joined")
    expect(outage.locator("[data-mark]")).not_to_have_count(0)
    expect(rowheader(outage, "A")).not_to_have_attribute("data-mark", re.compile("."))


def test_scrub_back_then_press_continues_from_there_and_undo_brings_the_later_presses_back(outage: Locator) -> None:
    page = outage.page
    press(outage, "A dies", 1)
    press(outage, "A is back", 2)
    press(outage, "Take a model turn", 3)
    slider = timeline(outage)
    expect(slider).to_have_attribute("aria-valuetext", state(3))
    expect(slider).to_have_value("3")  # the value follows the newest press, not the previous maximum

    # Undo right after a press made from an earlier state brings the later presses back.
    slider.fill("1")
    expect(viewing(outage, 1, 3)).to_be_visible()
    press(outage, "A dies", 2)  # refused (A is already down), and still it dropped presses 2 and 3
    expect(log_labels(outage)).to_have_text(
        [START, heading(1, "server_dies", server="A"), heading(2, "server_dies", server="A")]
    )
    outage.get_by_role("button", name="Undo").click()
    # The playground as it was: three presses, the state the press was made from on view.
    expect(log_labels(outage)).to_have_count(4)
    expect(viewing(outage, 1, 3)).to_be_visible()
    # Marked against what was on screen before Undo (A was down there too), not against press 3.
    expect(rowheader(outage, "A")).not_to_have_attribute("data-mark", re.compile("."))
    expect(log_labels(outage).last).to_have_text(step_label(3))
    said = outage.get_by_role("status").filter(has_text=lead("playground.viewing"))
    expect(said).to_contain_text(message("count.press.many", n=2))
    expect(a_status(outage)).to_have_accessible_name("down")
    outage.get_by_role("button", name="Back to the latest").click()
    expect(now(outage, 3)).to_be_visible()
    # A second Undo is an ordinary one: it takes back press 3.
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_text(
        [START, heading(1, "server_dies", server="A"), heading(2, "server_back", server="A")]
    )

    # Scrub back, then a press continues from there.
    press(outage, "Take a model turn", 3)
    expect(slider).to_have_value("3")
    slider.fill("1")
    expect(viewing(outage, 1, 3)).to_be_visible()
    expect(slider).to_have_attribute("aria-valuetext", state(1, 3))
    # The table shows the state after press 1, and the learner is told what a press will do.
    expect(a_status(outage)).to_have_accessible_name("down")
    expect(past_note(outage)).to_be_visible()
    expect(past_note(outage)).to_contain_text(message("timeline.past.many", name=state(1), n=2))
    # The start, the earliest state, can be viewed too.
    slider.fill("0")
    start = message("step.start.of", total=3)
    expect(outage.get_by_text(message("timeline.viewing", name=start), exact=True)).to_be_visible()
    expect(past_note(outage)).to_contain_text(message("timeline.past.many", name=message("step.start"), n=3))
    expect(a_status(outage)).to_have_accessible_name("connected")
    slider.fill("1")
    expect(a_status(outage)).to_have_accessible_name("down")

    press(outage, "Take a model turn", 2)
    expect(log_labels(outage)).to_have_text([START, heading(1, "server_dies", server="A"), heading(2, "take_turn")])
    # The status says the later presses went.
    expect(outage.get_by_role("status").filter(has_text=lead("playground.after", k=2))).to_contain_text(
        message("playground.dropped", presses="2 presses")
    )
    expect(now(outage, 2)).to_be_visible()
    expect(past_note(outage)).to_be_hidden()
    # A reset made while looking back clears every press, and says how many: none is set aside.
    slider.fill("1")
    outage.get_by_role("button", name="Reset").click()
    cleared = message("playground.restarted", presses=message("count.press.many", n=2))
    expect(outage.get_by_role("status")).to_have_text(cleared)  # and nothing of presses set aside
    expect(outage.get_by_role("button", name="Undo")).to_be_disabled()
    press(outage, "A dies", 1)
    press(outage, "Take a model turn", 2)
    # The shortened history is the playground now: it survives a reload.
    page.reload()
    section = open_playground_again(page)
    expect(log_labels(section)).to_have_text([START, heading(1, "server_dies", server="A"), heading(2, "take_turn")])


def test_axe_after_presses_in_both_themes(page: Page) -> None:
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "Take a model turn", 1)
    press(outage, "Add server C", 2)
    press(outage, "A dies", 3)
    press(outage, "Take a model turn", 4)
    timeline(outage).fill("2")
    expect(viewing(outage, 2, 4)).to_be_visible()
    show_tab(outage, "Wire")
    wire = region(outage, "Wire")
    wire.get_by_role("button", name=re.compile("frame 1 of")).first.click()
    wire.get_by_role("button", name="Frames as a list").first.click()
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        results = Axe().run(page)
        assert results.violations_count == 0, results.generate_report()
