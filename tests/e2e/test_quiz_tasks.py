"""Task questions: the learner does something in a playground, then "Check my playground" has the
server replay that playground's log. The question is marked from the server's verdict, a task not yet
done shows its hint, and the score and the index's progress count it. The grading itself (which logs do
a task, refusals, points kept, no JavaScript) is checked fast in tests/web/test_quiz_tasks.py and
tests/web/test_quiz_without_script.py; here, what the page does with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from .helpers import OUTAGE, log_labels, message, open_playground, panel, press, quiz_score

pytestmark = pytest.mark.e2e

QUIZZES = Path(__file__).resolve().parents[2] / "content" / "quizzes"


def task_question(slug: str) -> tuple[int, int, dict]:
    questions = yaml.safe_load((QUIZZES / f"{slug}.yaml").read_text())["questions"]
    n, q = next((n, q) for n, q in enumerate(questions, 1) if "task" in q)
    return n, len(questions), q


def quiz(page: Page) -> Locator:
    return page.get_by_role("region", name="Quick check questions")


def score(page: Page) -> Locator:
    return quiz_score(page)


def feedback(page: Page, n: int) -> Locator:
    return quiz(page).get_by_role("status").nth(n)


def check(page: Page, n: int) -> None:
    quiz(page).get_by_role("button", name=f"Check my playground to question {n}").click()


def expect_score(page: Page, correct: int, total: int, answered: int) -> None:
    expect(score(page)).to_have_text(message("quiz.score", correct=correct, total=total, answered=answered))


def expect_correct(page: Page, n: int, q: dict) -> None:
    expect(feedback(page, n)).to_contain_text(f"{message('quiz.right')} {q['explanation']}")


def forge_press(page: Page, button: str) -> None:
    """Add a press to the log the page keeps in sessionStorage (its own bookkeeping: no role reaches it)."""
    page.evaluate(
        """(button) => { const key = 'churn-lab:playground:outage';
                   const log = JSON.parse(sessionStorage.getItem(key));
                   log.events.push(['p', button]);
                   sessionStorage.setItem(key, JSON.stringify(log)); }""",
        button,
    )


def test_doing_the_task_in_the_playground_marks_it_correct(page: Page) -> None:
    questions = yaml.safe_load((QUIZZES / "an-outage.yaml").read_text())["questions"]
    n, total, q = task_question("an-outage")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    group = quiz(page).get_by_role("group", name=f"Question {n} of {total}. Task: {q['prompt']}")
    expect(group).to_be_visible()

    # The link in the question, followed from the keyboard, leads to the playground and puts the focus on
    # its first button; the way back to the question appears only for a learner who came from a task.
    back = outage.get_by_role("link", name="Back to the question")
    expect(back).to_have_count(0)
    group.get_by_role("link", name="Play out an outage").focus()
    page.keyboard.press("Enter")
    first = outage.get_by_role("group", name="Events").get_by_role("button").first
    expect(first).to_be_focused()
    expect(first).to_be_in_viewport()
    # The task is said there, in place of the playground's own goal, which asks for something else: one
    # aim in view until the learner goes back.
    task = outage.get_by_role("paragraph").filter(has_text=message("quiz.task.doing"))
    expect(task).to_contain_text(q["prompt"])
    expect(outage.get_by_role("status").first).to_contain_text(q["prompt"])  # said on arrival, too
    goal = outage.get_by_text(yaml.safe_load((QUIZZES.parent / "panels" / "outage.yaml").read_text())["goal"]["text"])
    expect(goal).to_be_hidden()
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
    expect(task).to_have_count(0)
    expect(goal).to_be_visible()

    # Nothing pressed yet: nothing is sent, and the page says what to do.
    page.keyboard.press("Enter")
    expect(feedback(page, n)).to_have_text(message("quiz.task.empty"))
    expect_score(page, 0, total, 0)

    # What the outage scenario presses (a call on A, A dies, a turn): C was never added, so not done
    # yet; the hint shows.
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text(["Start"])
    press(outage, "The model calls a tool on A", 1)
    press(outage, "A dies", 2)
    press(outage, "Take a model turn", 3)
    check(page, n)
    expect(feedback(page, n)).to_contain_text(f"{message('quiz.task.not_yet')} Hint: {q['hint']}")
    expect_score(page, 0, total, 1)

    # Start again: C is added, a call runs on A, A dies (the host builds the error), then a turn.
    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_text(["Start"])
    press(outage, "Add server C", 1)
    press(outage, "The model calls a tool on A", 2)
    press(outage, "A dies", 3)
    press(outage, "Take a model turn", 4)
    check(page, n)
    expect_correct(page, n, q)
    expect_score(page, 1, total, 1)
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()

    # The page keeps the log it was graded on; after a reload the server grades it again.
    page.reload()
    expect_correct(page, n, q)
    expect_score(page, 1, total, 1)

    # The learner goes on (A is back), then looks back at step 3, before the turn: the step on view is
    # what a check grades, so the playground no longer does the task; the page says so, and the earlier
    # success still counts.
    outage = panel(page, "Play out an outage")
    outage.scroll_into_view_if_needed()  # after a reload the page is back at the quick check
    press(outage, "A is back", 5)
    outage.get_by_role("slider").fill("3")
    expect(outage.get_by_role("status").first).to_have_text(re.compile(r"^Viewing: "))
    check(page, n)
    expect(feedback(page, n)).to_contain_text(message("quiz.task.kept_why"))
    expect_score(page, 1, total, 1)
    # Back at the latest step: A came back after the turn, and a task once done stays done.
    outage.get_by_role("button", name="Back to the latest").click()
    check(page, n)
    expect_correct(page, n, q)

    # The other questions answered right: all answered, on the lesson and on the index.
    for k, other in enumerate(questions, 1):
        if "task" not in other:
            right = next(c["text"] for c in other["choices"] if c["id"] == other["answer"])
            quiz(page).get_by_role("group").nth(k - 1).get_by_role("radio", name=right, exact=True).check()
            quiz(page).get_by_role("button", name="Check answer").nth(k - 1).click()
            expect(feedback(page, k)).to_contain_text(f"{message('quiz.right')} {other['explanation']}")
    expect_score(page, total, total, total)
    title = page.get_by_role("heading", level=1).text_content()
    page.goto("/")
    bar = page.get_by_role("progressbar", name=f"Questions answered correctly in {title}")
    expect(bar).to_have_attribute("value", str(total))
    done = message("quiz.index.check.score", correct=total, total=total) + message("quiz.index.check.all")
    expect(page.get_by_text(f"{message('quiz.index.check')} {done}")).to_have_count(1)


def test_a_refused_log_is_explained_in_the_learners_language(page: Page) -> None:
    n, _total, _q = task_question("an-outage")
    page.goto(OUTAGE + "?lang=pseudo")
    outage = panel(page, "Play out an outage")
    outage.scroll_into_view_if_needed()  # after a reload the page is back at the quick check
    first = outage.locator("[data-button]").first  # the first event button, whatever its words
    expect(first).to_be_enabled()
    first.click()
    expect(outage.get_by_role("status").first).to_have_text(re.compile(r"^⟦After press 1\. "))
    forge_press(page, "host-error-happens")
    quiz_region = page.locator("section.quiz")
    quiz_region.get_by_role("button", name=re.compile(rf"Check my playground.*to question {n}")).click()
    shown = quiz_region.get_by_role("status").nth(n)
    expect(shown).to_have_text(re.compile(r"^⟦[^⟦⟧]*'host-error-happens'[^⟦⟧]*⟧$"))


def test_a_page_cannot_grade_its_own_task(page: Page) -> None:
    """A log edited in the page's storage is replayed like any other: a press the panel does not have is
    refused with a reason, and nothing is counted. A page of its own: the edited log stays in its storage."""
    n, total, _q = task_question("an-outage")
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "A dies", 1)
    forge_press(page, "host-error-happens")
    check(page, n)
    expect(feedback(page, n)).to_contain_text("'host-error-happens'")
    expect_score(page, 0, total, 0)


def test_on_a_phone_the_task_link_lands_on_the_playground_and_its_task(page: Page) -> None:
    """With motion on, the page's scroll is smooth; the focus on a button of the phone's sideways row must
    not stop it part-way, leaving the learner below the playground with its task out of sight. Lesson 2's
    quick check lies far below its playground: a long way to scroll."""
    n, total, q = task_question("list-changed")
    page.set_viewport_size({"width": 375, "height": 800})
    page.emulate_media(reduced_motion="no-preference")
    guide = open_playground(page, "/lessons/list-changed", "Misbehaving servers")
    group = quiz(page).get_by_role("group", name=f"Question {n} of {total}. Task: {q['prompt']}")
    group.get_by_role("link", name="Misbehaving servers").focus()
    page.keyboard.press("Enter")
    expect(guide.get_by_role("group", name="Events").get_by_role("button").first).to_be_focused()
    task = guide.get_by_role("paragraph").filter(has_text=message("quiz.task.doing"))
    expect(task).to_be_in_viewport(ratio=1)
