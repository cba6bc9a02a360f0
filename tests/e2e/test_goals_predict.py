"""Goals, predictions and the handles panel's baskets, as a learner meets them."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root, load_panels
from lesson.i18n import translate
from lesson.narration import sentence
from lesson.playground.protocol import ViewAnswer

from .helpers import (
    GATEWAYS,
    OUTAGE,
    lead,
    lesson_holding,
    log_labels,
    log_step,
    message,
    open_playground,
    press,
    region,
    server_row,
    servers,
    show_tab,
    step_label,
    wire,
)

pytestmark = pytest.mark.e2e


def message_py(key: str) -> str:
    """A page string rendered by the server, from the catalogue."""
    return translate("en", key)


PANELS = load_panels(default_root())
OUTAGE_GOAL = PANELS["outage"].goal.text
# The outage's first question, about what "A dies" hands the model.
A_DIES = next(q for q in PANELS["outage"].predictions if q.button == "a-dies")


@pytest.fixture
def outage(page: Page) -> Locator:
    return open_playground(page, OUTAGE, "Play out an outage")


def goal_block(section: Locator) -> Locator:
    return section.locator('[data-role="goal"]')


# --- goals -----------------------------------------------------------------------------------


def test_a_goals_hints_open_one_stage_per_press(outage: Locator) -> None:
    """One stage per press: a nudge, then more, and the solution only when asked for last. (The goal's
    text, state and hidden stages as served: tests/web/test_goal_block.py, for each playground's goal.)"""
    section = outage
    stages = goal_block(section).get_by_role("listitem", include_hidden=True)
    expect(stages).to_have_count(3)
    expect(stages.first).to_be_hidden()
    status = section.get_by_role("status").first
    section.get_by_role("button", name=message_py("playground.hint")).click()
    expect(stages.nth(0)).to_be_visible()
    expect(stages.nth(1)).to_be_hidden()
    # The focus stays on the button, below the stage it opened: the status line says the stage.
    expect(status).to_have_text(stages.nth(0).inner_text())
    section.get_by_role("button", name=message_py("playground.hint.more")).click()
    expect(stages.nth(1)).to_be_visible()
    expect(stages.nth(2)).to_be_hidden()
    expect(status).to_have_text(stages.nth(1).inner_text())
    section.get_by_role("button", name=message_py("playground.hint.solution")).click()
    expect(stages.nth(2)).to_be_visible()
    expect(stages.nth(2)).to_be_focused()
    expect(goal_block(section).get_by_role("button")).to_have_count(0)


def test_the_goal_block_follows_the_answers(outage: Locator) -> None:
    """goals.js reads the answer's `goal` field; here the answers are dispatched by hand, in the shape
    the server sends, so the page's side is checked whatever the server does."""
    page = outage.page
    page.evaluate(
        """() => { window.goalEvents = [];
                   document.addEventListener("lesson:goal", (e) => window.goalEvents.push(e.detail)); }"""
    )
    send = (
        'met => document.querySelector("[data-panel-id=outage]")'
        '.dispatchEvent(new CustomEvent("playground:answer", {detail: {goal: {met}}}))'
    )
    hint = goal_block(outage).get_by_role("button", name=message_py("playground.hint"))
    page.evaluate(f"({send})(false)")
    expect(goal_block(outage)).to_contain_text(message("goal.open"))
    expect(hint).to_be_visible()
    page.evaluate(f"({send})(true)")
    expect(goal_block(outage)).to_contain_text(message("goal.done"))
    expect(hint).to_be_hidden()  # no hint is offered for a goal reached
    expect(outage.get_by_role("status")).to_contain_text(message("goal.reached", goal=OUTAGE_GOAL))
    events = page.evaluate("window.goalEvents")
    assert len(events) == 1 and events[0]["panel"] == "outage" and events[0]["goal"].startswith(OUTAGE_GOAL)
    page.evaluate(f"({send})(false)")
    expect(goal_block(outage)).to_contain_text(message("goal.before"))
    expect(hint).to_be_visible()  # short of it again: the hints are back
    page.evaluate(f"({send})(true)")
    assert len(page.evaluate("window.goalEvents")) == 2


@pytest.mark.skipif("goal" not in ViewAnswer.model_fields, reason="answers do not carry the goal field yet")
def test_a_goal_is_reached_shown_done_and_still_said_after_a_reload(outage: Locator) -> None:
    """The page's progress remembers the goal: a playground reloaded in a state short of it says it was
    reached earlier, not that it never was."""
    # A turn taken before A dies is not the turn the goal asks for.
    press(outage, "Take a model turn", 1)
    press(outage, "A dies", 2)
    expect(goal_block(outage)).to_contain_text(message("goal.open"))
    press(outage, "Take a model turn", 3)
    expect(goal_block(outage)).to_contain_text(message("goal.done"))
    expect(outage.get_by_role("status")).to_contain_text(message("goal.reached", goal=OUTAGE_GOAL))
    # Said in view beside the buttons too, where the goal block may be scrolled away by now.
    expect(outage.get_by_text(message("goal.done")).filter(visible=True)).to_have_count(2)
    outage.get_by_role("button", name="Undo", exact=True).click()
    expect(goal_block(outage)).to_contain_text(message("goal.before"))
    outage.page.reload()
    expect(log_labels(outage).last).to_have_text(step_label(2))  # the playground came back
    expect(goal_block(outage)).to_contain_text(message("goal.before"))
    expect(goal_block(outage)).not_to_contain_text(message("goal.open"))


def test_on_a_phone_the_controls_bar_says_the_goal_is_reached(page: Page) -> None:
    """On a phone the goal block and the short line lie above the screen once a press's changes are
    in view: the controls' bar, stuck to the foot of the screen, says the goal is reached, until Undo."""
    page.set_viewport_size({"width": 375, "height": 740})
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "Take a model turn", 1)
    press(outage, "A dies", 2)
    flag = outage.get_by_text(message("goal.done"), exact=True).last
    expect(flag).to_be_hidden()
    press(outage, "Take a model turn", 3)
    expect(flag).to_be_visible()
    expect(flag).to_be_in_viewport()
    outage.get_by_role("button", name="Undo", exact=True).click()
    expect(flag).to_be_hidden()


# --- predict, then see -------------------------------------------------------------------------


def question_before(button: str) -> str:
    """The start of the question the outage playground asks before that button's press."""
    return next(q.question for q in PANELS["outage"].predictions if q.button == button)[:40]


def prediction(section: Locator, about: str = question_before("a-dies")) -> Locator:
    """A prediction by words of its question (the outage playground asks two, one at a time)."""
    return section.get_by_role("group", name=re.compile("^Predict first: .*" + re.escape(about)))


RESTART_COST = question_before("a-back")


def test_predict_then_see_the_host_built_error(outage: Locator) -> None:
    expect(prediction(outage)).to_be_hidden()
    press(outage, "The model calls a tool on A", 1)
    question = prediction(outage)
    expect(question).to_be_visible()
    expect(question).to_contain_text(A_DIES.question)
    expect(question.get_by_text(translate("en", "predict.how", button="A dies"))).to_be_visible()  # press to see
    # The press's status says a question is waiting, for whoever does not see it appear.
    expect(outage.get_by_role("status")).to_contain_text(message("predict.asked", button="A dies"))
    wrong = next(c for c in A_DIES.choices if c.id != A_DIES.answer)
    question.get_by_role("radio", name=wrong.text, exact=True).check()
    press(outage, "A dies", 2)
    expect(question).to_contain_text("Not quite")
    # The explanation follows the verdict (its first sentence, as the content words it).
    expect(question).to_contain_text(" ".join(A_DIES.explanation.split(". ")[0].split()))
    expect(outage.get_by_role("status")).to_contain_text("Not quite")
    # The right choice is marked in words (not colour alone), after its label.
    right = question.locator("label.right-answer")
    expect(right).to_have_count(1)
    assert right.evaluate("el => getComputedStyle(el, '::after').content") not in ("none", "normal", "")
    # The reveal agrees with what the simulation did: the model got a result the host built.
    expect(wire(outage)).to_contain_text(message("wire.host_built"))
    # Answered once, it is not asked again when its moment comes round; a reset asks it afresh.
    press(outage, "A is back", 3)
    press(outage, "The model calls a tool on A", 4)
    expect(question).to_be_hidden()
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_count(1)
    press(outage, "The model calls a tool on A", 1)
    expect(question).to_be_visible()
    expect(question.get_by_role("radio", checked=True)).to_have_count(0)


def axe_in_both_themes(page: Page) -> None:
    """The page as it stands, checked in the light theme and then the dark one (applied at once)."""
    for theme in ("light", "dark"):
        page.get_by_role("group", name="Theme").get_by_role("radio", name=theme.capitalize()).check()
        expect(page.locator("html")).to_have_attribute("data-theme", theme)
        results = Axe().run(page)
        assert results.violations_count == 0, f"{theme} theme: {results.generate_report()}"


def test_revealed_prediction_open_hint_and_baskets_pass_axe(outage: Locator) -> None:
    page = outage.page
    outage.get_by_text("Show a hint").click()
    press(outage, "The model calls a tool on A", 1)
    press(outage, "A dies", 2)
    expect(prediction(outage)).to_contain_text("You did not pick")
    axe_in_both_themes(page)
    # The baskets live in the handles playground, on the gateways lesson.
    handles = open_playground(page, GATEWAYS, "Explicit state handles")
    press(handles, "create_basket", 1)
    expect(baskets(handles)).to_contain_text(message("handles.held.one") + "bsk_")
    axe_in_both_themes(page)


def test_the_question_waits_for_its_moment(outage: Locator) -> None:
    """A question is asked right after the press it follows, and only while its premise holds: what
    A's return costs waits for a turn taken with A down."""
    press(outage, "A dies", 1)
    expect(prediction(outage)).to_be_hidden()
    press(outage, "A is back", 2)
    press(outage, "The model calls a tool on A", 3)
    expect(prediction(outage)).to_be_visible()
    # Refused while the call runs (the model waits for its result): the question's premise still holds.
    press(outage, "Take a model turn", 4)
    expect(prediction(outage)).to_be_visible()
    expect(prediction(outage, RESTART_COST)).to_be_hidden()  # A is up: there is no return to ask about
    press(outage, "A dies", 5)
    press(outage, "Take a model turn", 6)
    expect(prediction(outage, RESTART_COST)).to_be_visible()
    press(outage, "B deploys a new tool", 7)
    expect(prediction(outage, RESTART_COST)).to_be_hidden()


def test_a_refused_press_answers_no_question_and_asks_none(outage: Locator) -> None:
    """A press the simulation refuses changes nothing: "A dies" while A is down leaves the question about
    A's return asked, the learner's pick with it, nothing revealed; "The model calls a tool on A" while
    A is down asks nothing about a call that never started."""
    press(outage, "A dies", 1)
    press(outage, "Take a model turn", 2)
    question = prediction(outage, RESTART_COST)
    pick = question.get_by_role("radio").first
    pick.check()
    outage.get_by_role("button", name="A dies").click()
    expect(log_labels(outage)).to_have_count(4)  # the refused press is logged as refused
    expect(question).to_be_visible()
    expect(pick).to_be_checked()
    expect(question.locator('[data-role="predict-result"]')).to_be_hidden()
    outage.get_by_role("button", name="The model calls a tool on A").click()
    expect(log_labels(outage)).to_have_count(5)
    expect(prediction(outage)).to_be_hidden()


def test_a_question_asked_from_the_start_is_asked_again_after_a_reset(page: Page) -> None:
    """The eras playground asks about M from the start; once its answer is shown, Reset asks it afresh.
    Coming back from another choice of the eras the host speaks brings back that choice's presses, M's
    addition among them, so the question waits for a Reset. A dual-era host, which can use M, is not
    asked it at all: the question's premise does not hold there. Nor does it offer an era to choose,
    which would change nothing."""
    eras = open_playground(page, lesson_holding("eras"), PANELS["eras"].title)
    question = eras.get_by_role("group", name=re.compile("^Predict first: "))
    result = question.locator('[data-role="predict-result"]')
    for begin_again in ("reset", "variant"):
        question.get_by_role("radio").first.check()
        eras.get_by_role("button", name=PANELS["eras"].button("add-m").label).click()
        expect(result).to_be_visible()
        if begin_again == "reset":
            # M shares no era with this legacy-only host: its row says so, in an Era column, not a caption
            # claiming that every server speaks one era.
            table = servers(eras)
            expect(table.get_by_role("columnheader", name=message("column.era"))).to_be_visible()
            expect(server_row(eras, "M")).to_contain_text(message("servers.no_era"))
            expect(table).not_to_have_accessible_name(re.compile("."))
            # The legacy era sends fewer messages only because it failed: its count says it ended in an error.
            rows = {
                era: eras.get_by_role("listitem").filter(has_text=re.compile("^" + re.escape(message(f"era.{era}"))))
                for era in ("legacy", "modern")
            }
            expect(rows["legacy"]).to_contain_text(message("cost.error").strip(", "))
            expect(rows["modern"]).not_to_contain_text(message("cost.error").strip(", "))
            eras.get_by_role("button", name="Reset").click()
        else:
            choices = eras.locator('[data-role="variant"]').get_by_role("radio")
            era_choice = eras.locator('[data-role="era"]').get_by_role("radio")
            choices.last.check()
            expect(question).to_be_hidden()
            # A host of both eras has no era to choose: the choice is gone, not left greyed and blank.
            expect(eras.locator('[data-role="era"]')).to_be_hidden()
            for era in era_choice.all():
                expect(era).to_be_disabled()
                expect(era).not_to_be_checked()
            # Nor are two eras compared, or drawn: both would be this one host.
            show_tab(eras, "Both eras")
            expect(region(eras, PANELS["eras"].titles["comparison"])).to_contain_text(message("comparison.dual"))
            eras.get_by_role("button", name=PANELS["eras"].button("add-l").label).click()
            show_tab(eras, "Wire")
            expect(region(eras, "Wire").get_by_role("figure")).to_have_count(1)
            show_tab(eras, "What happened")
            choices.first.check()
            expect(eras.locator('[data-role="era"]')).to_be_visible()
            for era in era_choice.all():
                expect(era).to_be_enabled()
            # Back come this choice's presses, M's addition among them: nothing to predict until a Reset.
            expect(question).to_be_hidden()
            eras.get_by_role("button", name="Reset").click()
        expect(question).to_be_visible()
        expect(result).to_be_hidden()
        expect(question.get_by_role("radio", checked=True)).to_have_count(0)


# --- the handles panel: baskets and replicas ----------------------------------------------------


def baskets(section: Locator) -> Locator:
    return region(section, "Baskets and replicas")


def store_label(kind: str, **values: object) -> str:
    """The name of one of S's stores as the page shows it in English (``narration.store.<kind>``)."""
    return sentence(f"narration.store.{kind}", {"server": "S", **values})


def store(section: Locator, label: str) -> Locator:
    return baskets(section).get_by_role("region", name=label, exact=True)


def expect_marked(el: Locator, word: str) -> None:
    expect(el).to_have_attribute("data-mark", word)
    expect(el).to_be_in_viewport()


def test_each_press_marks_what_it_did_to_the_baskets(page: Page) -> None:
    """Baskets in process memory live on one replica. A basket made, filled, lost with its replica's
    memory, a call that fails on it: each press marks it where it shows and says it in the status line, not
    only the conversation's length."""
    page.set_viewport_size({"width": 1280, "height": 800})
    handles = open_playground(page, GATEWAYS, "Explicit state handles")
    status = handles.get_by_role("status")
    handles.get_by_role("radio", name="Baskets in process memory").check()
    expect(log_step(handles, "Start")).to_be_visible()
    expect(baskets(handles)).to_contain_text(message("handles.none_yet"))
    expect(store(handles, store_label("durable"))).to_have_count(0)
    first, second = store_label("replica", replica=1), store_label("replica", replica=2)
    one, two = store(handles, first), store(handles, second)
    expect(handles.locator("[data-mark]")).to_have_count(0)
    press(handles, "create_basket", 1)
    expect_marked(one.get_by_role("listitem"), "new")
    expect_marked(baskets(handles).locator("p > code"), "new")
    expect(status).to_contain_text(said("changes.basket_added", store=store_label("replica", replica=1)))
    press(handles, "add_item", 2)
    expect_marked(one.get_by_role("listitem"), "changed")
    expect(one).to_contain_text(re.compile(r"bsk_\w+: A-100"))
    # The replica the next call lands on says so in its heading (words, not only a colour).
    expect(one.get_by_role("heading")).to_have_text(re.compile("^" + re.escape(first) + r" \(.+\)$"))
    expect(two).to_contain_text(message("handles.no_baskets"))
    press(handles, "Send calls to replica 2", 3)
    expect_marked(two.get_by_role("heading"), "changed")
    expect(two.get_by_role("heading")).to_have_text(re.compile("^" + re.escape(second) + r" \(.+\)$"))
    expect(one.get_by_role("heading")).to_have_text(store_label("replica", replica=1))
    expect(status).to_contain_text(message("changes.current", store=store_label("replica", replica=2)))
    expect(status).not_to_contain_text("Nothing")
    press(handles, "Send calls back to replica 1", 4)
    press(handles, "Restart the shop server", 5)
    expect(one).to_contain_text(message("handles.no_baskets"))
    gone = baskets(handles).get_by_text(
        re.compile(
            "^" + re.escape(message("playground.baskets_gone", baskets="basket ")) + r"bsk_\w+ from " + re.escape(first)
        )
    )
    expect_marked(gone, "gone")
    expect(status).to_contain_text(said("changes.basket_removed", store=store_label("replica", replica=1)))
    # The basket is gone, the model still quotes its handle: the call fails, and that is the news.
    press(handles, "add_item", 6)
    expect(status).to_contain_text(message("changes.failed", text=""))
    expect(status).to_contain_text("Unknown basket_id")
    expect_marked(region(handles, "What happened").locator("li.step").last.get_by_role("listitem"), "failed")
    # Undo: the failure is taken back, not announced again.
    handles.get_by_role("button", name="Undo").click()
    expect(status).to_contain_text(lead("playground.undone"))
    expect(status).not_to_contain_text(message("changes.failed", text=""))


def said(key: str, **values: str) -> re.Pattern[str]:
    """A status message about a basket, whatever the basket's handle (bsk_ and a random part)."""
    return re.compile(re.escape(message(key, basket="BASKET", **values)).replace("BASKET", r"bsk_\w+"))


def test_a_durable_basket_outlives_a_restart(page: Page) -> None:
    handles = open_playground(page, GATEWAYS, "Explicit state handles")
    press(handles, "create_basket", 1)
    press(handles, "add_item", 2)
    durable = store(handles, store_label("durable"))
    expect(durable).to_contain_text(re.compile(r"bsk_\w+: A-100"))
    press(handles, "Restart the shop server", 3)
    expect(durable).to_contain_text(re.compile(r"bsk_\w+: A-100"))
    held = baskets(handles).get_by_role("paragraph").first
    expect(held).to_have_text(re.compile(r"^Basket the model holds: bsk_\w+$"))
