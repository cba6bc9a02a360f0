"""Task questions: the learner does something in a playground, then "Check my playground" has the
server replay that playground's log. The question is marked from the server's verdict, a task not yet
done shows its hint, and the score and the index's progress count it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from .helpers import LESSON_1, LESSON_2, log_labels, open_playground, panel, press

pytestmark = pytest.mark.e2e

QUIZZES = Path(__file__).resolve().parents[2] / "content" / "quizzes"


def task_question(slug: str) -> tuple[int, int, dict]:
    questions = yaml.safe_load((QUIZZES / f"{slug}.yaml").read_text())["questions"]
    n, q = next((n, q) for n, q in enumerate(questions, 1) if "task" in q)
    return n, len(questions), q


def quiz(page: Page) -> Locator:
    return page.get_by_role("region", name="Quick check questions")


def score(page: Page) -> Locator:
    return quiz(page).get_by_role("status").filter(has_text=re.compile(r"^Score: "))


def feedback(page: Page, n: int) -> Locator:
    return quiz(page).get_by_role("status").nth(n)


def check(page: Page, n: int) -> None:
    quiz(page).get_by_role("button", name=f"Check my playground to question {n}").click()


def test_doing_the_task_in_the_playground_marks_it_correct(page: Page) -> None:
    n, total, q = task_question("hot-swapping")
    outage = open_playground(page, LESSON_1, "Play out an outage")
    group = quiz(page).get_by_role("group", name=f"Question {n} of {total}. Task: {q['prompt']}")
    expect(group).to_be_visible()

    # The link in the question leads to the playground and puts the focus on its first button.
    group.get_by_role("link", name="Play out an outage").click()
    first = outage.get_by_role("group", name="Events").get_by_role("button").first
    expect(first).to_be_focused()
    expect(first).to_be_in_viewport()

    # Nothing pressed yet: nothing is sent, and the page says what to do.
    check(page, n)
    expect(feedback(page, n)).to_have_text(re.compile("^Nothing has been pressed in that playground yet"))
    expect(score(page)).to_have_text(f"Score: 0 of {total} correct (0 answered)")

    # What the outage scenario presses (a call on A, A dies, a turn): C was never added, so not done
    # yet; the hint shows.
    press(outage, "The model calls a tool on A", 1)
    press(outage, "A dies", 2)
    press(outage, "Take a model turn", 3)
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"Not yet. Hint: {q['hint']}")
    expect(score(page)).to_have_text(f"Score: 0 of {total} correct (1 answered)")

    # Start again: C is added, a call runs on A, A dies (the host builds the error), then a turn.
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text(["Start"])
    press(outage, "Add server C", 1)
    press(outage, "The model calls a tool on A", 2)
    press(outage, "A dies", 3)
    press(outage, "Take a model turn", 4)
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"Correct. {q['explanation']}")
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()

    # The page keeps the log it was graded on; after a reload the server grades it again.
    page.reload()
    expect(feedback(page, n)).to_contain_text(f"Correct. {q['explanation']}")
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")
    title = page.get_by_role("heading", level=1).text_content()
    page.goto("/")
    bar = page.get_by_role("progressbar", name=f"Questions answered correctly in {title}")
    expect(bar).to_have_attribute("value", "1")
    expect(page.get_by_text(f"Quick check: 1 of {total} correct, {total - 1} still to answer")).to_have_count(1)


def test_the_second_lesson_task_in_its_own_playground(page: Page) -> None:
    n, total, q = task_question("list-changed")
    guide = open_playground(page, LESSON_2, "Misbehaving servers")
    # P's timer re-fetches P, not Q: the model never sees Q's new tool.
    press(guide, "Q adds a tool (it never sends list_changed)", 1)
    press(guide, "P's timer fires list_changed", 2)
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"Not yet. Hint: {q['hint']}")
    press(guide, "Take a model turn", 3)
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"Correct. {q['explanation']}")
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")


def test_a_page_cannot_grade_its_own_task(page: Page) -> None:
    """A log edited in the page's storage is replayed like any other: a press the panel does not
    have is refused with a reason, and nothing is counted."""
    n, total, _q = task_question("hot-swapping")
    outage = open_playground(page, LESSON_1, "Play out an outage")
    press(outage, "A dies", 1)
    page.evaluate(
        """() => { const key = 'churn-lab:playground:outage';
                   const log = JSON.parse(sessionStorage.getItem(key));
                   log.events.push(['p', 'host-error-happens']);
                   sessionStorage.setItem(key, JSON.stringify(log)); }"""
    )
    check(page, n)
    expect(feedback(page, n)).to_contain_text("no button 'host-error-happens'")
    expect(score(page)).to_have_text(f"Score: 0 of {total} correct (0 answered)")


def test_without_javascript_the_task_says_it_needs_the_playground(browser, base_url: str) -> None:
    n, total, q = task_question("hot-swapping")
    context = browser.new_context(java_script_enabled=False, base_url=base_url)
    try:
        page = context.new_page()
        page.goto(LESSON_1)
        group = quiz(page).get_by_role("group", name=f"Question {n} of {total}. Task: {q['prompt']}")
        expect(group).to_contain_text(re.compile("needs JavaScript"))
        expect(quiz(page).get_by_role("button", name=re.compile("^Check my playground"))).to_have_count(0)
        expect(panel(page, "Play out an outage").get_by_role("button", name="A dies")).to_be_disabled()
    finally:
        context.close()


def test_a_check_grades_the_step_on_view_and_a_point_once_won_is_kept(page: Page) -> None:
    n, total, q = task_question("hot-swapping")
    outage = open_playground(page, LESSON_1, "Play out an outage")
    for step, label in enumerate(
        ["Add server C", "The model calls a tool on A", "A dies", "Take a model turn", "A is back"], 1
    ):
        press(outage, label, step)
    # Looking back at step 4 (before A came back), the learner sees the task done: that is what is checked.
    outage.get_by_role("slider").fill("4")
    expect(outage.get_by_role("status").first).to_have_text(re.compile(r"^Viewing: "))
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"Correct. {q['explanation']}")
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct ({1} answered)")
    # Back at the latest step: A came back after the turn, and a task once done stays done.
    outage.get_by_role("button", name="Back to the latest").click()
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"Correct. {q['explanation']}")
    # Looking back at step 3, before the turn, the playground has not done the task: the page says
    # so, and the earlier success still counts.
    outage.get_by_role("slider").fill("3")
    expect(outage.get_by_role("status").first).to_have_text(re.compile(r"^Viewing: "))
    check(page, n)
    expect(feedback(page, n)).to_contain_text("no longer does this task")
    expect(feedback(page, n)).to_contain_text("earlier success still counts")
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")
    page.reload()
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")


def test_the_keyboard_goes_to_the_playground_and_back_to_the_question(page: Page) -> None:
    n, total, q = task_question("hot-swapping")
    outage = open_playground(page, LESSON_1, "Play out an outage")
    back = outage.get_by_role("link", name="Back to the question")
    expect(back).to_have_count(0)  # only for a learner who came from a task
    group = quiz(page).get_by_role("group", name=f"Question {n} of {total}. Task: {q['prompt']}")
    group.get_by_role("link", name="Play out an outage").focus()
    page.keyboard.press("Enter")
    expect(outage.get_by_role("group", name="Events").get_by_role("button").first).to_be_focused()
    # The task is said there too: the playground's own goal, above its buttons, asks for something else.
    task = outage.get_by_role("paragraph").filter(has_text="Your task from the quick check:")
    expect(task).to_contain_text(q["prompt"])
    # The way back is a link right after the playground's buttons: a few Tab presses away.
    for _ in range(12):
        if back.evaluate("el => el === document.activeElement") if back.count() else False:
            break
        page.keyboard.press("Tab")
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    checker = quiz(page).get_by_role("button", name=f"Check my playground to question {n}")
    expect(checker).to_be_focused()
    expect(checker).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(feedback(page, n)).to_have_text(re.compile("^Nothing has been pressed in that playground yet"))


def test_a_refused_log_is_explained_in_the_learners_language(page: Page) -> None:
    n, _total, _q = task_question("hot-swapping")
    page.goto(LESSON_1 + "?lang=pseudo")
    outage = panel(page, "Play out an outage")
    first = outage.get_by_role("group").get_by_role("button").first
    expect(first).to_be_enabled()
    first.click()
    expect(outage.get_by_role("status").first).to_have_text(re.compile(r"^⟦After press 1\. "))
    page.evaluate(
        """() => { const key = 'churn-lab:playground:outage';
                   const log = JSON.parse(sessionStorage.getItem(key));
                   log.events.push(['p', 'host-error-happens']);
                   sessionStorage.setItem(key, JSON.stringify(log)); }"""
    )
    quiz_region = page.locator("section.quiz")
    quiz_region.get_by_role("button", name=re.compile(rf"Check my playground.*to question {n}")).click()
    shown = quiz_region.get_by_role("status").nth(n)
    expect(shown).to_have_text(re.compile(r"^⟦[^⟦⟧]*'host-error-happens'[^⟦⟧]*⟧$"))
