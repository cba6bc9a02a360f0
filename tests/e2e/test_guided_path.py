"""The guided path through each playground: its walk-through where it has one (every moment keeps cause and
effect in one view: the control pressed, the rows it changed, the model's next prompt), or the presses its
goal's hints lead to; the predictions are asked before the press that answers them, and each reveal shows
where the eye already is. At a wide screen and at a phone's."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root, load_panels
from lesson.content.panels import PlaygroundPanel
from lesson.content.scenarios import presses
from lesson.i18n import translate
from tests.guided_path import GOAL_PRESSES, WALKS
from tests.scenarios import load_scenarios

from .helpers import choose_era, lesson_holding, message, panel, step_label

pytestmark = pytest.mark.e2e

PANELS = load_panels(default_root())
SCRIPTS = load_scenarios(default_root()).values()
VERDICTS = ("right", "wrong", "none")
# A prediction's verdict, whichever it is: the start of each of the three messages, from the catalogue.
VERDICT = re.compile(
    "^(" + "|".join(re.escape(message(f"predict.{v}", right="", picked="").split(":")[0]) for v in VERDICTS) + ")"
)
SIZES = {"1280": (1280, 800), "375": (375, 812)}
# Each playground is walked once, at one size; the outage (whose marks, reveals and cost carry the most
# colour and the most to keep in view) at both sizes and in both themes. What the walk presses and reaches
# (each prediction asked before its press, the cost reached, a goal's presses meeting it) is checked
# without a browser in tests/web/test_guided_path_facts.py.
CASES = [
    pytest.param(p, size, scheme, id=f"{p}-{size}-{scheme}")
    for p, size, scheme in [
        ("outage", "1280", "light"),
        ("outage", "375", "dark"),
        ("gateway", "375", "light"),
        ("answering", "1280", "light"),
        ("guide", "375", "light"),
        ("handles", "1280", "light"),
    ]
]


def script(panel_id: str):
    return next(s for s in SCRIPTS if s.panel == panel_id and s.title.startswith(WALKS[panel_id]))


# A node the page has since drawn anew (a region redrawn by a later answer) is done with: the check then
# finds the element again rather than wait on one that is off the page.
IN_VIEW = """el => { if (!el.isConnected) return true;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  if (r.top < -1 || r.bottom > innerHeight + 1 || r.left < -1) return false;
  const x = r.left + Math.min(8, r.width / 2), y = r.top + Math.min(8, r.height / 2);
  const top = document.elementFromPoint(x, y);
  return top !== null && (el.contains(top) || top.contains(el)); }"""


def in_view(page: Page, target: Locator) -> bool:
    """Whether the element comes to sit inside the viewport, not cut off by a box that scrolls it: a
    condition waited for (the page aligns the playground after it draws), not read at one instant."""
    for _ in range(3):
        handle = target.element_handle()
        try:
            page.wait_for_function(IN_VIEW, arg=handle, timeout=10_000)
        except Exception:
            return False
        if handle.evaluate("el => el.isConnected"):
            return True
    return False


# A button wholly inside its row (the phone's row of events scrolls sideways and cuts the one at its edge).
WHOLE_IN_ROW = """el => { const b = el.getBoundingClientRect(), r = el.parentElement.getBoundingClientRect();
  return b.left >= r.left - 1 && b.right <= r.right + 1; }"""

# The text a sighted learner sees: text in elements that are rendered and larger than the 1 px box that
# keeps words for screen readers only, and not scrolled out of a box that scrolls.
VISIBLE_TEXT = """el => {
  const out = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || !parent.checkVisibility({ visibilityProperty: true })) continue;
    const r = parent.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;
    // Scrolled out of a box that scrolls (the log, the stage) is out of sight too.
    let clipped = false;
    for (let a = parent.parentElement; a && a !== document.body && !clipped; a = a.parentElement) {
      if (getComputedStyle(a).overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      clipped = r.bottom <= b.top || r.top >= b.bottom;
    }
    if (!clipped) out.push(node.textContent);
  }
  return out.join(" ");
}"""


def repeated_sentences(text: str) -> list[str]:
    """Sentences of 8 or more words that appear more than once in the text."""
    seen: dict[str, int] = {}
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = sentence.split()
        if len(words) >= 8:
            key = " ".join(words).lower()
            seen[key] = seen.get(key, 0) + 1
    return [s for s, n in seen.items() if n > 1]


def prediction(section: Locator, pg: PlaygroundPanel, button_id: str) -> Locator:
    q = next(p for p in pg.predictions if p.button == button_id)
    return section.get_by_role("group", name=re.compile("^Predict first: " + re.escape(q.question[:30])))


class Moment:
    """What one press of the guided path must show: checked after the page has drawn it."""

    def __init__(self, page: Page, section: Locator, pg: PlaygroundPanel) -> None:
        self.page, self.section, self.pg = page, section, pg
        self.asked: set[str] = set()
        self.revealed: set[str] = set()

    def check(self, n: int, pressed: list[str], control: Locator) -> None:
        page, section, pg = self.page, self.section, self.pg
        assert in_view(page, control), f"moment {n}: the control is out of view"
        # What the press changed in the table (and the baskets) and in the model's next prompt.
        wide = page.viewport_size["width"] >= 960
        for name in ("servers", "handles", "prompt"):
            if name not in pg.shows:
                continue
            changed = section.locator(f'[data-region="{name}"] [data-mark]')
            # A phone shows the prompt's first change under the table's; the rest (its counters) are a short
            # scroll away, and the status line says them.
            for i in range(changed.count() if wide or name != "prompt" else min(1, changed.count())):
                assert in_view(page, changed.nth(i)), f"moment {n}: a change in {name} is out of view"
        # On a wide screen the whole prompt stays in view beside the table.
        if "prompt" in pg.shows and wide:
            title = pg.titles.get("prompt", "Tools in the model's next prompt")
            prompt = section.get_by_role("region", name=re.compile("^" + re.escape(title)))
            assert in_view(page, prompt.get_by_role("heading")), f"moment {n}: the prompt is out of view"
        for q in pg.predictions:
            question = prediction(section, pg, q.button)
            result = question.get_by_text(VERDICT)
            if q.button in pressed and q.button in self.asked:
                expect(result).to_be_visible()
                assert in_view(page, result), f"moment {n}: the reveal is out of view"
                self.revealed.add(q.button)
            elif q.button not in self.asked and (q.after in pressed or question.is_visible()):
                # Asked right after the press it follows: wait for it rather than read it at one instant.
                expect(question).to_be_visible()
                # Asked before the press that answers it: pick the right choice, as a learner might.
                self.asked.add(q.button)
                choice = next(c for c in q.choices if c.id == q.answer)
                question.get_by_role("radio", name=choice.text).check()
        if pg.id == "outage" and "a-back" in pressed:
            # The restart's cost, era by era, beside the table and the reveal that predicted it.
            cost = section.get_by_text(message("cost.title"))
            expect(cost).to_be_visible()
            assert in_view(page, cost), f"moment {n}: the cost is out of view"
        visible = section.evaluate(VISIBLE_TEXT)
        assert repeated_sentences(visible) == [], f"moment {n}: said twice: {repeated_sentences(visible)}"
        results = Axe().run(page, context=f'[data-panel-id="{pg.id}"]')
        assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize(("panel_id", "size", "scheme"), CASES)
def test_the_guided_path_keeps_cause_and_effect_in_view(page: Page, panel_id: str, size: str, scheme: str) -> None:
    pg = PANELS[panel_id]
    assert isinstance(pg, PlaygroundPanel)
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    page.goto(lesson_holding(panel_id))
    section = panel(page, pg.title)
    section.scroll_into_view_if_needed()  # its code is fetched as it nears the screen
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    moment = Moment(page, section, pg)
    if panel_id in WALKS:
        walk = script(panel_id)
        section.get_by_role("button", name=message("scenario.play", title=walk.title)).click()
        nxt = section.get_by_role("button", name=message("scenario.next"))
        for n, step in enumerate(walk.steps, start=1):
            if n > 1:
                nxt.click()
            said = message("moment", n=n, total=len(walk.steps), title=step.title)
            expect(section.get_by_text(said, exact=True)).to_be_visible()
            leave = section.get_by_role("button", name=message("scenario.leave"))
            if n < len(walk.steps):
                expect(nxt).to_be_enabled()
            moment.check(n, presses(step), nxt if n < len(walk.steps) else leave)
    else:
        log = section.get_by_role("group", name="What happened, newest last")
        for n, button_id in enumerate(GOAL_PRESSES[panel_id], start=1):
            button = section.get_by_role("button", name=pg.button(button_id).label, exact=True)
            button.click()
            expect(log.get_by_text(step_label(n))).to_have_count(1)
            moment.check(n, [button_id], button)
        # The goal's presses reach it.
        expect(section.locator('[data-role="goal"]')).to_contain_text(message("goal.done"))
    # A walk-through passes the playground's central predictions.
    assert moment.revealed == {p.button for p in pg.predictions}


def open_panel(page: Page, panel_id: str, width: int, height: int) -> tuple[PlaygroundPanel, Locator]:
    """The lesson holding the playground, at this size, the playground ready (its code comes as it nears
    the screen)."""
    pg = PANELS[panel_id]
    assert isinstance(pg, PlaygroundPanel)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(lesson_holding(panel_id))
    section = panel(page, pg.title)
    section.scroll_into_view_if_needed()
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    return pg, section


@pytest.mark.parametrize("size", list(SIZES))
def test_free_play_keeps_the_press_its_change_and_the_reveal_in_one_view(page: Page, size: str) -> None:
    """Off the walk-through: after the learner answers a prediction and presses the button it is about, the
    button, the row it changed and the verdict share the screen, and the press moves the page less than a
    screen."""
    width, height = SIZES[size]
    pg, section = open_panel(page, "outage", width, height)
    section.get_by_role("button", name=pg.button("call-a").label, exact=True).click()
    q = next(p for p in pg.predictions if p.button == "a-dies")
    question = prediction(section, pg, "a-dies")
    question.get_by_role("radio", name=next(c.text for c in q.choices if c.id == q.answer)).check()
    dies = section.get_by_role("button", name=pg.button("a-dies").label, exact=True)
    before = page.evaluate("scrollY")
    dies.click()
    verdict = question.get_by_text(re.compile("^Your prediction was right"))
    expect(verdict).to_be_visible()
    assert in_view(page, verdict), "the verdict is out of view"
    assert in_view(page, dies), "the button pressed is out of view"
    row = section.locator('[data-region="servers"] tr[data-server="A"] [data-mark]')
    expect(row).to_have_count(1)
    assert in_view(page, row), "the row the press changed is out of view"
    assert abs(page.evaluate("scrollY") - before) < height, "the press moved the page a screen or more"


def test_on_a_wide_screen_the_cost_coming_and_going_leaves_the_buttons_in_place(page: Page) -> None:
    """The restart cost shows only for a press whose eras differ, so it comes and goes from press to press.
    It sits above the table, not among the controls: a second press lands where the first one did."""
    pg, section = open_panel(page, "guide", 1280, 800)
    log = section.get_by_role("group", name="What happened, newest last")
    cost = section.get_by_text(message("cost.title"))
    turn = section.get_by_role("button", name=pg.button("turn").label, exact=True)
    section.get_by_role("button", name=pg.button("undeclared").label, exact=True).click()
    expect(log.get_by_text(step_label(1))).to_have_count(1)
    expect(cost).to_be_visible()  # one era sends the notice, the other does not
    top = turn.bounding_box()["y"]
    turn.click()
    expect(log.get_by_text(step_label(2))).to_have_count(1)
    expect(cost).to_be_hidden()  # a turn costs the same in both eras
    # At most a line: the status line above the buttons may wrap differently.
    assert abs(turn.bounding_box()["y"] - top) < 30, "the buttons moved when the cost went away"
    section.get_by_role("button", name=pg.button("undeclared").label, exact=True).click()
    expect(log.get_by_text(step_label(3))).to_have_count(1)
    expect(cost).to_be_visible()
    choose_era(section, "legacy")
    expect(log.get_by_text(step_label(4))).to_have_count(1)
    expect(cost).to_be_hidden()  # an era switch has no counterpart in the other era to weigh it against


def test_a_press_whose_question_is_out_of_sight_shows_the_question_first(page: Page) -> None:
    """On a phone a press brings its changes into view, and the question the next press is about may lie
    out of sight above them. Pressing that next button then brings the question into view and presses
    nothing; pressed again, it goes ahead without a prediction."""
    width, height = SIZES["375"]
    pg, section = open_panel(page, "outage", width, height)
    section.get_by_role("button", name=pg.button("call-a").label, exact=True).click()
    question = prediction(section, pg, "a-dies")
    expect(question).to_be_visible()
    log = section.get_by_role("group", name="What happened, newest last")
    expect(log.get_by_text(step_label(1))).to_have_count(1)
    # Out of sight, however the changes were laid out: the page scrolled below the question.
    question.evaluate("el => window.scrollTo(0, window.scrollY + el.getBoundingClientRect().bottom + 40)")
    dies = section.get_by_role("button", name=pg.button("a-dies").label, exact=True)
    dies.click()
    first = question.get_by_role("radio").first
    expect(first).to_be_focused()
    assert in_view(page, first), "the question did not come into view"
    first_words = message("predict.first", button=dies.inner_text().strip())
    expect(section.get_by_role("status")).to_contain_text(first_words)
    expect(question.get_by_text(first_words, exact=True)).to_be_visible()  # said in view too
    # Once, not three times: the question's own "pick, then press" gives way to it, and the bar's pointer
    # to the question is put away while the question is on screen.
    how = question.get_by_text(translate("en", "predict.how", button=pg.button("a-dies").label))
    expect(how).to_be_hidden()
    expect(
        section.get_by_role("button", name=message("predict.pointer", button=pg.button("a-dies").label))
    ).to_be_hidden()
    expect(log.get_by_text(step_label(2))).to_have_count(0)  # nothing was pressed
    # The question lies far from the buttons in the page's order: the next Tab stop is the way back.
    page.keyboard.press("Tab")
    back = question.get_by_role("button", name=message("predict.back", button=pg.button("a-dies").label))
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    expect(dies).to_be_focused()
    dies.click()
    expect(log.get_by_text(step_label(2))).to_have_count(1)
    expect(question).to_contain_text(message("predict.none"))
    expect(question.get_by_text(first_words, exact=True)).to_be_hidden()


def test_the_controls_bar_points_a_phone_to_the_question_a_press_asked(page: Page) -> None:
    """On a phone the question a press asks lies above the changes the press brings into view: while it
    waits for an answer, the controls' bar at the foot of the screen points to it and takes the learner
    there; an answer puts the pointer away and brings the button it is about into the bar's row. On a
    wide screen the question shows beside the regions, and no pointer is drawn."""
    width, height = SIZES["375"]
    pg, section = open_panel(page, "outage", width, height)
    dies = section.get_by_role("button", name=pg.button("a-dies").label, exact=True)
    pointer = section.get_by_role("button", name=message("predict.pointer", button=pg.button("a-dies").label))
    expect(pointer).to_be_hidden()
    section.get_by_role("button", name=pg.button("call-a").label, exact=True).click()
    expect(pointer).to_be_visible()
    question = prediction(section, pg, "a-dies")
    question.evaluate("el => window.scrollTo(0, window.scrollY + el.getBoundingClientRect().bottom + 40)")
    expect(pointer).to_be_visible()
    # Reached by Tab, it stays while it has the focus, even once the question scrolls into view: hidden,
    # it would drop the keyboard's place to the page.
    pointer.focus()
    question.scroll_into_view_if_needed()
    expect(question).to_be_in_viewport(ratio=0.5)
    expect(pointer).to_be_focused()
    question.evaluate("el => window.scrollTo(0, window.scrollY + el.getBoundingClientRect().bottom + 40)")
    pointer.click()
    first = question.get_by_role("radio").first
    expect(first).to_be_focused()
    assert in_view(page, first), "the question did not come into view"
    expect(pointer).to_be_hidden()  # the question is on screen: pointing to it would say it twice
    question.evaluate("el => window.scrollTo(0, window.scrollY + el.getBoundingClientRect().bottom + 40)")
    expect(pointer).to_be_visible()
    question.scroll_into_view_if_needed()
    page.keyboard.press("Space")  # the keyboard picks the first answer
    expect(first).to_be_checked()
    expect(pointer).to_be_hidden()
    # The question lies far from the buttons in the page's order: the next Tab stop is the way back.
    page.keyboard.press("Tab")
    back = question.get_by_role("button", name=message("predict.back", button=pg.button("a-dies").label))
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    expect(dies).to_be_focused()
    page.wait_for_function(WHOLE_IN_ROW, arg=dies.element_handle())
    # Pressed, the question is answered: nothing waits, nothing is pointed to.
    dies.click()
    expect(question.locator('[data-role="predict-verdict"]')).to_be_visible()
    expect(pointer).to_be_hidden()
    page.set_viewport_size({"width": SIZES["1280"][0], "height": SIZES["1280"][1]})
    section.get_by_role("button", name="Reset").click()
    section.get_by_role("button", name=pg.button("call-a").label, exact=True).click()
    expect(question.get_by_role("radio").first).to_be_visible()
    expect(pointer).to_be_hidden()


def test_the_question_a_press_asks_comes_into_view_with_the_buttons(page: Page) -> None:
    """On a wide screen, the question about "A dies" that "The model calls a tool on A" asks comes into
    view under the buttons, and its coming moves none of them out of view."""
    width, height = SIZES["1280"]
    pg, section = open_panel(page, "outage", width, height)
    section.get_by_role("button", name=pg.button("call-a").label, exact=True).click()
    question = prediction(section, pg, "a-dies")
    expect(question).to_be_visible()
    q = next(p for p in pg.predictions if p.button == "a-dies")
    for choice in q.choices:
        assert in_view(page, question.get_by_role("radio", name=choice.text)), f"{choice.id} is out of view"
    for b in pg.buttons:
        control = section.get_by_role("button", name=b.label, exact=True)
        assert in_view(page, control), f"{b.id} is out of view"


def test_on_a_phone_a_press_that_changes_nothing_above_shows_its_lines(page: Page) -> None:
    """A notice the host ignores changes no table, prompt or counter: the press's own entry in the log
    is what it did, so it comes into view above the controls' bar rather than staying under it."""
    width, height = SIZES["375"]
    pg, section = open_panel(page, "guide", width, height)
    log = section.get_by_role("group", name="What happened, newest last")
    section.get_by_role("button", name=pg.button("undeclared").label, exact=True).click()
    entry = log.get_by_text(step_label(1))
    expect(entry).to_have_count(1)
    assert in_view(page, entry), "the press's lines in the log are out of view"


def test_on_a_phone_the_timeline_slider_stays_under_the_keys_moving_it(page: Page) -> None:
    """Stepping back through the presses with the slider's arrow keys shows each step on view without
    scrolling the slider away: the learner keeps the control they are using, and its line says where."""
    width, height = SIZES["375"]
    pg, section = open_panel(page, "outage", width, height)
    for n, button in enumerate(("deploy", "turn", "add-c"), 1):
        section.get_by_role("button", name=pg.button(button).label, exact=True).click()
        expect(
            section.get_by_role("group", name="What happened, newest last").get_by_text(step_label(n))
        ).to_have_count(1)
    slider = section.get_by_role("slider")
    slider.focus()
    for key in ("ArrowLeft", "ArrowLeft", "Home"):
        page.keyboard.press(key)
        assert in_view(page, slider), f"the slider left the screen after {key}"
    expect(slider).to_have_value("0")
