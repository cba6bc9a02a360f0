"""The restart lab's honesty in the page: a result says when it no longer matches the options, and
options that cannot change the chosen situation are disabled, with the reason. Which options apply
where (checked against the simulation) and the reference page's table are served HTML, tested fast in
tests/web/test_restart_lab_page.py."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from lesson.content.course import default_root, load_panels
from lesson.i18n import translate

from .helpers import RESTARTS, message, narrated, restart_lab, takes_room

pytestmark = pytest.mark.e2e

NOT_IDEMPOTENT = "The call in flight is not idempotent (send_alert)"
STDIO = "The server runs over stdio (the host launches it)"
PANELS = load_panels(default_root())


def result_for_none(situation: str) -> str:
    """The line above a result: the situation it is for, and no options."""
    return message("lab.result_for", situation=situation) + message("lab.none") + "."


def test_a_result_goes_stale_and_options_that_cannot_apply_are_disabled(page: Page) -> None:
    stale = page.get_by_text(translate("en", "lab.stale"), exact=True)
    page.goto(RESTARTS)
    lab = restart_lab(page)
    restart = lab.get_by_role("button", name="Restart the server")
    expect(restart).to_be_enabled()

    # An option that cannot change the chosen situation is off, and says when it applies.
    box = lab.get_by_role("checkbox", name=NOT_IDEMPOTENT)
    expect(lab.get_by_role("radio", name="idle")).to_be_checked()
    expect(box).to_be_disabled()
    expect(box).to_have_accessible_description(translate("en", "lab.only_when", situations="a call is in flight"))
    expect(lab.get_by_role("checkbox", name=STDIO)).to_be_enabled()
    # An HTTP server's option is off while the server runs over stdio, and says why; ticked before, it is
    # unticked, since a tick that changes nothing would claim otherwise.
    sessions = lab.get_by_role("checkbox", name=re.compile("^Legacy: session, SSE events"))
    sessions.check()
    lab.get_by_role("checkbox", name=STDIO).check()
    expect(sessions).to_be_disabled()
    expect(sessions).not_to_be_checked()
    expect(sessions).to_have_accessible_description(translate("en", "lab.http_only"))
    lab.get_by_role("checkbox", name=STDIO).uncheck()
    expect(sessions).to_be_enabled()
    expect(sessions).to_be_checked()  # the learner's tick comes back where it fits again
    sessions.uncheck()

    expect(stale).to_be_hidden()
    restart.click()
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation="idle"))
    assert not takes_room(lab.get_by_role("status"))  # announced; the result line shows it already
    expect(lab.get_by_text(result_for_none("idle"))).to_be_visible()
    # The result is brought up the screen (its first line in the top half, the eras below it), and its
    # steps carry the numbers its tables' "last change" names.
    top = lab.get_by_text(result_for_none("idle")).bounding_box()
    assert top and 0 <= top["y"] < page.viewport_size["height"] / 2, top
    restarted = message("lab.step", step=1, label=narrated("narration.event.restart_server", server="W"))
    expect(lab.get_by_text(restarted, exact=True).first).to_be_visible()
    expect(stale).to_be_hidden()

    lab.get_by_role("checkbox", name=STDIO).check()
    expect(stale).to_be_visible()
    expect(lab.get_by_role("status")).to_have_text(message("lab.stale"))
    # Putting the option back makes the result true again.
    lab.get_by_role("checkbox", name=STDIO).uncheck()
    expect(stale).to_be_hidden()

    lab.get_by_role("radio", name="a call is in flight").check()
    expect(box).to_be_enabled()
    expect(stale).to_be_visible()
    lab.get_by_role("button", name="Run again").focus()
    page.keyboard.press("Enter")
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation="a call is in flight"))
    expect(stale).to_be_hidden()
    result_line = lab.get_by_text(result_for_none("a call is in flight"))
    expect(result_line).to_be_visible()
    expect(result_line).to_be_focused()  # "Run again" is gone; the focus lands on what replaced it

    # Back to a situation where it cannot apply: unticked as well as disabled, so nothing claims otherwise.
    box.check()
    lab.get_by_role("radio", name="a listen stream is open").check()
    expect(box).to_be_disabled()
    expect(box).not_to_be_checked()
    # Back where it fits, the tick is back, and the result made with it is true again.
    lab.get_by_role("radio", name="a call is in flight").check()
    expect(box).to_be_checked()


def test_a_line_both_eras_say_is_shown_once(page: Page) -> None:
    """A restart while idle starts the same way in both eras: what both say is shown once, under "Both
    eras" below the sides; each era's side says only what is its own (legacy: the old session id's 404),
    and a side with nothing of its own for a step says so. Above them, each era's wire count for the whole
    restart."""
    page.goto(RESTARTS)
    lab = restart_lab(page)
    restart = lab.get_by_role("button", name="Restart the server")
    expect(restart).to_be_enabled()
    restart.click()
    keys = ("lab.both", "era.legacy", "era.modern")
    sides = [lab.get_by_role("region", name=re.compile("^" + re.escape(message(key)))) for key in keys]
    both, legacy, modern = sides
    expect(both).to_contain_text(narrated("narration.restarted_idle", server="W"))
    expect(legacy).to_contain_text("404")
    expect(modern).not_to_contain_text("404")
    expect(modern).to_contain_text(message("lab.nothing_else"))
    # The answer at a glance, above the sides: what the whole restart cost on the wire in each era, the
    # sum of the counts its steps name (the legacy client's new session costs more than a modern re-list).
    expect(lab.get_by_text(message("lab.cost_title"))).to_be_visible()
    totals = {}
    for era, side in (("legacy", legacy), ("modern", modern)):
        counts = side.locator("summary").all_inner_texts()
        totals[era] = sum(int(re.search(r"\d+", c).group()) for c in counts)
        row = lab.get_by_role("listitem").filter(has_text=re.compile("^" + re.escape(message(f"era.{era}"))))
        expect(row).to_contain_text(message("count.wire_message.many", n=totals[era]))
    assert totals["legacy"] > totals["modern"], totals
    said = [side.locator("ul.lines > li").all_inner_texts() for side in sides]
    lines = [line for side in said for line in side if line]
    assert len(lines) == len(set(lines)), f"said twice: {sorted(x for x in lines if lines.count(x) > 1)}"
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


def test_a_question_sets_the_lab_up_and_its_answer_comes_with_that_result(page: Page) -> None:
    """Guess first: a question's button ticks exactly what the question is about and hands the keyboard to
    Restart; its answer comes with that restart's result, closed until opened, and with no other."""
    questions = PANELS["restarts"].questions
    q = PANELS["restarts"].question_for("idle", ["no-session"])  # an option ticked; both eras send as many
    assert q is not None
    n = questions.index(q) + 1
    page.set_viewport_size({"width": 1280, "height": 900})
    page.emulate_media(reduced_motion="no-preference")  # the page's scroll to the result is smooth
    page.goto(RESTARTS)
    lab = restart_lab(page)
    restart = lab.get_by_role("button", name="Restart the server")
    expect(restart).to_be_enabled()
    lab.get_by_role("checkbox", name=STDIO).check()  # a tick the question is not about is taken off
    set_up = lab.get_by_role("button", name=translate("en", "lab.set_up", n=n))
    expect(set_up).to_have_accessible_description(q.question)
    set_up.click()
    expect(restart).to_be_focused()
    situation = next(s for s in PANELS["restarts"].situations if s.id == q.situation)
    options = "; ".join(v.label for v in PANELS["restarts"].variants if v.id in q.variants)
    expect(lab.get_by_role("status")).to_have_text(
        message("lab.set_up_done", n=n, situation=situation.label, options=options)
    )
    expect(lab.get_by_role("radio", name=situation.label, exact=True)).to_be_checked()
    for v in PANELS["restarts"].variants:
        box = lab.get_by_role("checkbox", name=v.label, exact=True)
        (expect(box).to_be_checked if v.id in q.variants else expect(box).not_to_be_checked)()
    page.keyboard.press("Enter")
    check = lab.locator("details").filter(has=page.get_by_text(message("lab.check", question=q.question), exact=True))
    expect(check).to_be_visible()
    # The page brings the result up (a smooth scroll), and Restart goes above the screen: the keyboard's
    # place goes with the result, to its first line, and is on screen once the scroll has ended.
    result = lab.get_by_text(message("lab.result_for", situation=situation.label) + options)
    expect(result).to_be_focused()
    expect(result).to_be_in_viewport(ratio=1)
    # The bar pair is drawn even when both eras sent as many: that can be the answer.
    rows = lab.get_by_role("listitem").filter(
        has_text=re.compile("^(" + "|".join(re.escape(message(f"era.{e}")) for e in ("legacy", "modern")) + ")")
    )
    expect(rows).to_have_count(2)
    counts = [r.locator("strong").inner_text() for r in rows.all()]
    assert counts[0] == counts[1], counts
    answer = check.get_by_text(q.answer)
    expect(answer).to_be_hidden()
    check.get_by_text(message("lab.check", question=q.question)).click()
    expect(answer).to_be_visible()
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
    # A set-up no question is about: no answer to check.
    assert PANELS["restarts"].question_for("token", []) is None
    lab.get_by_role("radio", name="the user's token is valid").check()
    lab.get_by_role("button", name="Run again").click()
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation="the user's token is valid"))
    expect(lab.get_by_text(message("lab.check", question=q.question))).to_have_count(0)
