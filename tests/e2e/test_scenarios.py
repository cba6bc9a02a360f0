"""Scripted scenarios replayed in the page: each step presses the panel's own buttons and shows its
narration; Previous undoes a step; the learner can leave at any step and keep playing from there.

Titles and narration are read from the scenario files, so an instructor's rewrite keeps this green."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root
from lesson.content.scenarios import Scenario, load_scenario
from lesson.i18n import translate

from .helpers import (
    GATEWAYS,
    OUTAGE,
    choose_era,
    expect_status,
    expect_step,
    heading,
    lead,
    log_labels,
    message,
    narrated,
    open_playground,
    press,
    scenario_box,
    step_label,
)

pytestmark = pytest.mark.e2e


def script(name: str) -> Scenario:
    return load_scenario(default_root() / "scenarios" / f"{name}.yaml")[0]


def offer(s: Scenario) -> str:
    """The button that plays a scenario beside its playground."""
    return message("scenario.play", title=s.title)


def test_outage_scenario_replays_with_narration_and_can_be_left_mid_way(page: Page) -> None:
    s = script("outage")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    # Scenarios are offered only beside their own panel (the gateway's: test_gateway_scenario_…).
    offers = outage.get_by_role("button", name=re.compile("^" + re.escape(message("scenario.play", title=""))))
    expect(offers).to_have_text([offer(script(n)) for n in ("outage", "churn")])  # the panel's own first
    press(outage, "B deploys a new tool", 1)  # the replay starts from a fresh playground
    outage.get_by_role("button", name=offer(s)).click()
    expect_step(outage, s, 1)
    expect(log_labels(outage).last).to_have_text(step_label(1))
    # The learner's own press is gone, and the moment says so, in the one region that speaks: the
    # playground's own status line shows each press but stays quiet while the scenario plays.
    scenario = scenario_box(outage, s)
    said = scenario.get_by_role("status")
    expect(said).to_contain_text(message("scenario.cleared", presses="1 press"))
    expect(said).to_contain_text(lead("playground.after", k=1))
    line = outage.get_by_role("status").filter(has_text=lead("playground.after", k=1)).and_(outage.locator(".announce"))
    expect(line).to_have_attribute("aria-live", "off")
    expect(scenario.get_by_role("button", name="Previous moment")).to_be_disabled()
    expect(scenario.get_by_role("button", name="Next moment")).to_be_focused()

    scenario.get_by_role("button", name="Next moment").click()
    expect_step(outage, s, 2)
    expect_status(outage, "A", "down")
    result = Axe().run(page)
    assert result.violations_count == 0, result.generate_report()

    scenario.get_by_role("button", name="Previous moment").click()
    expect_step(outage, s, 1)
    expect_status(outage, "A", "connected")
    expect(log_labels(outage).last).to_have_text(step_label(1))

    scenario.get_by_role("button", name="Next moment").click()
    expect_step(outage, s, 2)
    scenario.get_by_role("button", name="Next moment").click()
    expect_step(outage, s, 3)
    expect(log_labels(outage).last).to_have_text(step_label(3))

    scenario.get_by_role("button", name="Leave the scenario").click()
    expect(scenario).to_have_count(0)
    expect(outage.get_by_role("status")).to_have_text(message("scenario.left", n=3))
    expect(outage.get_by_role("status")).to_have_attribute("aria-live", "polite")  # it speaks again
    # The playground is the learner's from here: the next press is step 4 of the same run. The goal
    # holds by the walk-through's presses, so a press of the learner's that keeps it holding does not
    # reach it, and the goal says how they can; once it stops holding, it is theirs to reach again.
    goal = outage.locator('[data-role="goal"]')
    press(outage, "Take a model turn", 4)
    expect(goal).to_contain_text(message("goal.walked"))
    press(outage, "A is back", 5)
    expect_status(outage, "A", "connected")
    expect(log_labels(outage).nth(3)).to_have_text(step_label(3))
    expect(goal).to_contain_text(message("goal.open"))


def test_the_learner_s_own_presses_come_back_after_a_scenario(page: Page) -> None:
    """Playing a scenario starts afresh but sets the learner's presses aside: a button beside Undo and
    Reset brings them back (ending the scenario), once; a second scenario keeps the same ones aside."""
    s, other = script("outage"), script("churn")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "Add server C", 1)
    press(outage, "A dies", 2)
    history = outage.get_by_role("group", name="History")  # Undo and Reset
    bring_back = history.get_by_role("button", name=message("playground.bring_back", presses="2 presses"))
    expect(bring_back).to_have_count(0)  # nothing set aside yet
    outage.get_by_role("button", name=offer(s)).click()
    expect_step(outage, s, 1)
    expect(scenario_box(outage, s).get_by_role("status")).to_contain_text(
        message("scenario.cleared", presses="2 presses")
    )
    expect(bring_back).to_be_visible()
    # Another scenario replaces the first one's presses, not the learner's: the same two stay aside.
    outage.get_by_role("button", name=offer(other)).click()
    expect_step(outage, other, 1)
    expect(bring_back).to_be_visible()

    bring_back.focus()
    page.keyboard.press("Enter")
    expect(scenario_box(outage, other)).to_have_count(0)  # touching the playground ends the scenario
    expect(log_labels(outage)).to_have_count(3)  # Start and the learner's two steps
    expect(log_labels(outage).last).to_have_text(heading(2, "server_dies", server="A"))
    expect_status(outage, "A", "down")
    expect(outage.get_by_role("status")).to_contain_text(message("playground.aside_back", presses="2 presses"))
    expect(bring_back).to_have_count(0)  # once
    expect(outage.get_by_role("group", name="Events").get_by_role("button").first).to_be_focused()
    press(outage, "A is back", 3)  # the playground goes on from the learner's own state


def left_a_scenario_after_one_press(page: Page) -> Locator:
    """The outage playground after one press of the learner's, a scenario played from it, and left at
    its first moment: that press is set aside."""
    s = script("outage")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "Add server C", 1)
    outage.get_by_role("button", name=offer(s)).click()
    expect_step(outage, s, 1)
    scenario_box(outage, s).get_by_role("button", name="Leave the scenario").click()
    return outage


def test_bringing_presses_back_keeps_what_the_learner_did_after_the_scenario(page: Page) -> None:
    """What the learner pressed on the scenario's playground is set aside in turn (the button offers
    it back), and what is set aside survives a reload of the page."""
    outage = left_a_scenario_after_one_press(page)
    entries = log_labels(outage).count()  # the scenario's first moment, drawn before the learner left it
    page.reload()
    outage = outage.page.get_by_role("region", name="Play out an outage", exact=True)
    one = outage.get_by_role("button", name=message("playground.bring_back", presses="1 press"))
    expect(one).to_be_visible()  # kept in this tab's storage
    expect(log_labels(outage)).to_have_count(entries)  # the playground is back as it was left
    steps = entries - 1
    press(outage, "Take a model turn", steps + 1)  # the learner's own work on the scenario's playground
    one.click()
    expect(log_labels(outage)).to_have_count(2)
    expect(log_labels(outage).last).to_have_text(step_label(1))
    swapped = message("playground.bring_back", presses=f"{steps + 1} presses")
    expect(outage.get_by_role("button", name=swapped)).to_be_visible()


def test_work_done_after_a_scenario_is_still_the_learner_s_after_a_reload(page: Page) -> None:
    """Presses the learner made on a scenario's playground are theirs: after a reload, the next
    scenario sets them aside (one set is kept aside: the newest of the learner's own)."""
    s = script("outage")
    outage = left_a_scenario_after_one_press(page)
    steps = log_labels(outage).count() - 1
    press(outage, "Take a model turn", steps + 1)
    page.reload()
    outage = page.get_by_role("region", name="Play out an outage", exact=True)
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    outage.get_by_role("button", name=offer(s)).click()
    expect_step(outage, s, 1)
    mine = f"{steps + 1} presses"
    expect(scenario_box(outage, s).get_by_role("status")).to_contain_text(message("scenario.cleared", presses=mine))
    # Shown in the box too, in view while the walk-through plays (a phone's status line is off screen).
    expect(scenario_box(outage, s).get_by_text(message("scenario.cleared", presses=mine), exact=True)).to_be_visible()
    expect(outage.get_by_role("button", name=message("playground.bring_back", presses=mine))).to_be_visible()


def test_a_scenario_steps_by_keyboard_in_view_and_a_press_of_the_learner_ends_it(page: Page) -> None:
    """A press brings its changes into view; while a scenario plays, its box (the moment and its
    narration, not only Next) stays on screen with them. A moment may be several presses; Previous
    takes a whole moment back; a press of the learner's ends the replay where it stands."""
    page.set_viewport_size({"width": 1280, "height": 800})
    s = script("churn")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    outage.get_by_role("button", name=offer(s)).click()
    box = scenario_box(outage, s)
    expect_step(outage, s, 1)
    expect(box.get_by_role("button", name="Next moment")).to_be_focused()
    for n in range(2, len(s.steps) + 1):
        page.keyboard.press("Enter")  # the focus is on Next moment, as a keyboard user goes on
        expect_step(outage, s, n)
        moment = message("moment", n=n, total=len(s.steps), title=s.steps[n - 1].title)
        expect(box.get_by_text(moment, exact=True)).to_be_in_viewport(ratio=1)
        narration = box.get_by_role("paragraph").filter(has_text=s.steps[n - 1].narration[:40]).first
        expect(narration).to_be_in_viewport()
        if n == 4:  # the fourth moment is two presses: steps 4 and 5 of the log
            expect(box.get_by_text(message("log.steps.many", first=4, last=5), exact=True)).to_be_visible()
    for n in range(len(s.steps) - 1, 1, -1):
        box.get_by_role("button", name="Previous moment").click()
        expect_step(outage, s, n)
    expect(log_labels(outage)).to_have_count(3)  # the start and steps 1 and 2
    press(outage, "A dies", 3)  # step 1 was a turn, step 2 the deploy
    expect(box).to_have_count(0)
    # The press's status says the replay ended, as well as what the press did.
    status = outage.get_by_role("status")
    expect(status).to_contain_text(message("scenario.left", n=2))
    expect(status).to_contain_text(lead("playground.after", k=3))
    expect(status).to_contain_text(narrated("narration.event.server_dies", server="A"))
    expect_status(outage, "A", "down")


def test_gateway_scenario_plays_to_its_last_step(page: Page) -> None:
    s = script("gateway")
    gateway = open_playground(page, GATEWAYS, "A gateway in front")
    offers = gateway.get_by_role("button", name=re.compile("^" + re.escape(message("scenario.play", title=""))))
    expect(offers, "only the gateway's own scenario is offered").to_have_text([offer(s)])
    gateway.get_by_role("button", name=offer(s)).click()
    scenario = scenario_box(gateway, s)
    for n in range(1, len(s.steps)):
        expect_step(gateway, s, n)
        scenario.get_by_role("button", name="Next moment").click()
    expect_step(gateway, s, len(s.steps))
    # A moment's number is not the log's: the box says which steps of the log it made.
    done = sum(1 if isinstance(step.press, str) else len(step.press or []) for step in s.steps)
    expect(scenario.get_by_text(message("log.steps.one", first=done), exact=True)).to_be_visible()
    expect(scenario.get_by_role("button", name="Next moment")).to_be_disabled()
    # The focus was on Next, which is now disabled: it moves to Leave rather than to the page.
    expect(scenario.get_by_role("button", name="Leave the scenario")).to_be_focused()
    expect(log_labels(gateway).last).to_have_text(step_label(done))


def test_a_walk_through_from_the_other_era_starts_from_its_own_start(page: Page) -> None:
    """From the legacy era, a modern scenario begins afresh in its own era: no era change in its log, and
    its first moment is step 1."""
    s = script("churn")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    choose_era(outage, "legacy")
    expect(log_labels(outage)).to_have_count(2)
    outage.get_by_role("button", name=offer(s)).click()
    expect_step(outage, s, 1)
    expect(scenario_box(outage, s).get_by_text(message("log.steps.one", first=1), exact=True)).to_be_visible()
    expect(log_labels(outage)).to_have_count(2)  # the start, then the first moment's press
    expect(log_labels(outage).last).to_have_text(step_label(1))
    expect(outage.get_by_role("radio", name=message("era.modern"))).to_be_checked()
    # Said in view in the box: the radio buttons it switched may be out of sight (a phone's bar).
    expect(scenario_box(outage, s)).to_contain_text(message("scenario.era_switched", era=message("era.modern")))


def test_a_scenario_asks_for_a_guess_and_its_press_reveals_the_answer_but_not_the_goal(page: Page) -> None:
    """The outage scenario's first moment asks the question about "A dies" and says so in its box; its
    next press answers it (picked or not), in view beside the outcome, so no question is left asking
    about a moment already past. Its third moment is a turn without A, what the goal asks for: the
    goal is still the learner's to reach."""
    s = script("outage")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    question = outage.get_by_role("group", name=re.compile("^Predict first: "))
    outage.get_by_role("button", name=offer(s)).click()
    expect_step(outage, s, 1)
    expect(question).to_be_visible()
    # The walk-through's box says how to go on: the question does not also ask for a button's press.
    expect(question.get_by_text(translate("en", "predict.how", button="A dies"))).to_be_hidden()
    scenario = scenario_box(outage, s)
    asks = message("scenario.predict_first", question=message("scenario.the_question"))
    expect(scenario.get_by_role("status")).to_contain_text(asks)
    to_question = scenario.get_by_role("button", name=message("scenario.the_question"))
    to_question.click()
    expect(question.get_by_role("radio").first).to_be_focused()
    # The question lies far from the box in the page's order: the next Tab stop after its choices is
    # the way back to the walk-through's Next.
    page.keyboard.press("Tab")
    back = question.get_by_role("button", name=message("scenario.back"))
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    expect(scenario.get_by_role("button", name="Next moment")).to_be_focused()
    expect(back).to_be_hidden()
    scenario.get_by_role("button", name="Next moment").click()
    expect_step(outage, s, 2)
    expect(to_question).to_be_hidden()  # nothing asked before the next moment
    expect(question.get_by_role("radio", checked=True)).to_have_count(0)
    verdict = question.get_by_text(lead("predict.none"))
    expect(verdict).to_be_in_viewport()  # beside the outcome it predicts
    expect(scenario.get_by_role("status")).not_to_contain_text(asks)

    scenario.get_by_role("button", name="Next moment").click()
    expect_step(outage, s, 3)
    expect(outage.locator('[data-role="goal"]')).to_contain_text(message("goal.open"))
    said = outage.get_by_role("status").filter(has_text=lead("playground.after"))
    expect(said).to_have_count(2)
    reached = lead("goal.reached")
    for n in range(2):
        expect(said.nth(n)).not_to_contain_text(reached)

    # Played again, with a choice picked this time: the press answers the learner's own prediction.
    outage.get_by_role("button", name=offer(s)).click()
    expect(log_labels(outage)).to_have_count(2)
    expect_step(outage, s, 1)
    question.get_by_role("radio", name=re.compile("^A tool result marked isError")).check()
    scenario.get_by_role("button", name="Next moment").click()
    expect_step(outage, s, 2)
    expect(question).to_contain_text(lead("predict.right"))


def test_on_a_phone_the_walk_through_brings_its_question_into_view(browser, base_url: str) -> None:
    """The box sits at the foot of a phone's screen and the question it asks about may be far above:
    "Show the question" brings it into view, clear of the box, its first choice focused. The page may
    still be scrolling to the moment's changes as it is pressed (a slow phone): the question's scroll takes
    that one's place, and it ends clear of the box."""
    context = browser.new_context(base_url=base_url, viewport={"width": 375, "height": 667}, has_touch=True)
    try:
        page = context.new_page()
        s = script("outage")
        outage = open_playground(page, OUTAGE, "Play out an outage")
        outage.get_by_role("button", name=offer(s)).click()
        expect_step(outage, s, 1)
        box = scenario_box(outage, s)
        # The box docks where the controls bar was: the bar steps aside rather than stay under it.
        events = outage.get_by_role("group", name="Events")
        assert events.evaluate("g => getComputedStyle(g.closest('.controls')).position") == "static"
        box.get_by_role("button", name=message("scenario.the_question")).click()
        first = outage.get_by_role("group", name=re.compile("^Predict first: ")).get_by_role("radio").first
        expect(first).to_be_focused()
        expect(first).to_be_in_viewport()
        clear = "([q, b]) => q.getBoundingClientRect().bottom <= b.getBoundingClientRect().top"
        page.wait_for_function(clear, arg=[first.element_handle(), box.element_handle()])
    finally:
        context.close()
