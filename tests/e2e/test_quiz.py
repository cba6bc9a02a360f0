"""The quick checks of both lessons, with JavaScript (feedback without a reload) and without (a plain
form POST). Questions, answers and explanations come from content/quizzes/*.yaml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, Locator, Page, expect

from .helpers import LESSON_1, LESSON_2, do_task

pytestmark = pytest.mark.e2e

QUIZZES = Path(__file__).resolve().parents[2] / "content" / "quizzes"
LESSONS = {"hot-swapping": LESSON_1, "list-changed": LESSON_2}


def load(slug: str) -> list[dict]:
    return yaml.safe_load((QUIZZES / f"{slug}.yaml").read_text())["questions"]


def quiz(page: Page) -> Locator:
    return page.get_by_role("region", name="Quick check questions")


def question(page: Page, questions: list[dict], n: int) -> Locator:
    """Question n (1-based): its fieldset, named by its legend."""
    q = questions[n - 1]
    return quiz(page).get_by_role("group", name=f"Question {n} of {len(questions)}. {q['prompt']}")


def check_button(page: Page, n: int) -> Locator:
    # Every question has its own "Check answer" button in its own <form>; the forms have no accessible
    # name (so no role to scope by), and the button sits outside the fieldset. Take the n-th button.
    return quiz(page).get_by_role("button", name="Check answer").nth(n - 1)


def feedback(page: Page, n: int) -> Locator:
    # The same for the feedback: one live region per question, after the score's own status.
    return quiz(page).get_by_role("status").nth(n)


def score(page: Page) -> Locator:
    return quiz(page).get_by_role("status").filter(has_text=re.compile(r"^Score: "))


def choice_text(q: dict, choice_id: str) -> str:
    return next(c["text"] for c in q["choices"] if c["id"] == choice_id)


def wrong_choice(q: dict) -> str:
    return next(c["id"] for c in q["choices"] if c["id"] != q["answer"])


def answer(page: Page, questions: list[dict], n: int, choice_id: str) -> None:
    q = questions[n - 1]
    question(page, questions, n).get_by_role("radio", name=choice_text(q, choice_id), exact=True).check()
    check_button(page, n).click()


def expect_right(page: Page, questions: list[dict], n: int) -> None:
    q = questions[n - 1]
    expect(feedback(page, n)).to_contain_text(f"Correct. {q['explanation']}")
    expect_see(page, questions, n)


def expect_wrong(page: Page, questions: list[dict], n: int) -> None:
    q = questions[n - 1]
    right = choice_text(q, q["answer"])
    expect(feedback(page, n)).to_contain_text(f"Not quite. The answer is: {right}. {q['explanation']}")
    expect_see(page, questions, n)


def expect_see(page: Page, questions: list[dict], n: int) -> None:
    """The feedback links the part of the lesson the question is about, and that part exists."""
    link = feedback(page, n).get_by_role("link")
    expect(link).to_have_attribute("href", questions[n - 1]["see"])
    assert page.locator(questions[n - 1]["see"]).count() == 1


def test_an_answer_checked_while_the_server_is_unreachable_keeps_the_learner_on_the_lesson(page: Page) -> None:
    questions = load("list-changed")
    page.goto(LESSONS["list-changed"])
    url = page.url
    page.route("**/api/quiz/**", lambda route: route.abort("connectionrefused"))
    answer(page, questions, 1, questions[0]["answer"])
    expect(feedback(page, 1)).to_contain_text("could not be reached")
    assert page.url == url
    chosen = question(page, questions, 1).get_by_role("radio", name=choice_text(questions[0], questions[0]["answer"]))
    expect(chosen).to_be_checked()  # kept for another try
    page.unroute("**/api/quiz/**")
    check_button(page, 1).click()
    expect_right(page, questions, 1)


@pytest.mark.parametrize("slug", ["hot-swapping", "list-changed"])
def test_quiz_with_javascript(page: Page, slug: str) -> None:
    questions = load(slug)
    total = len(questions)
    page.goto(LESSONS[slug])
    expect(score(page)).to_have_text(f"Score: 0 of {total} correct (0 answered)")
    expect(quiz(page).get_by_role("group")).to_have_count(total)

    # No choice: the page says so, and nothing is recorded.
    check_button(page, 1).click()
    expect(feedback(page, 1)).to_have_text("Pick an answer first.")
    expect(score(page)).to_have_text(f"Score: 0 of {total} correct (0 answered)")
    # The message belongs to the question: its choices are marked invalid, the first has the focus,
    # and the group is described by the message (WCAG 3.3.1).
    choices = question(page, questions, 1).get_by_role("radio")
    expect(choices.first).to_be_focused()
    expect(choices.first).to_have_attribute("aria-invalid", "true")
    expect(question(page, questions, 1)).to_have_accessible_description(re.compile("Pick an answer first"))

    # Right, then wrong: immediate feedback with the explanation, no reload.
    url = page.url
    answer(page, questions, 1, questions[0]["answer"])
    expect_right(page, questions, 1)
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")
    answer(page, questions, 2, wrong_choice(questions[1]))
    expect_wrong(page, questions, 2)
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (2 answered)")
    assert page.url == url  # feedback came without navigating

    # Another choice clears the verdict on the one before, until it is checked itself.
    q2 = questions[1]
    question(page, questions, 2).get_by_role("radio", name=choice_text(q2, q2["answer"]), exact=True).check()
    expect(feedback(page, 2)).to_have_text("")
    # A second try shows why the right answer is right, but the first answer is the one that scores.
    answer(page, questions, 2, questions[1]["answer"])
    expect_right(page, questions, 2)
    expect(feedback(page, 2)).to_contain_text(choice_text(q2, wrong_choice(q2)))  # the first answer, named
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (2 answered)")

    # The answers survive a reload: rendered by the server, the first answers' radios checked.
    page.reload()
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (2 answered)")
    expect_right(page, questions, 1)
    expect_wrong(page, questions, 2)
    q1 = questions[0]
    expect(question(page, questions, 1).get_by_role("radio", name=choice_text(q1, q1["answer"]))).to_be_checked()
    expect(question(page, questions, 2).get_by_role("radio", name=choice_text(q2, wrong_choice(q2)))).to_be_checked()

    # A wrong third answer: answered, but not counted as correct by the index's bar.
    answer(page, questions, 3, wrong_choice(questions[2]))
    expect_wrong(page, questions, 3)
    expect(score(page)).to_have_text(f"Score: 1 of {total} correct (3 answered)")

    # The course index shows the progress of this lesson, and none for the other.
    title = page.get_by_role("heading", level=1).text_content()
    page.goto("/")
    rest = f"{total - 3} still to answer" if total > 3 else "all answered"
    progress = page.get_by_text(f"Quick check: 1 of {total} correct, {rest}", exact=True)
    expect(progress).to_have_count(1)
    other = "list-changed" if slug == "hot-swapping" else "hot-swapping"
    other_total = len(load(other))
    expect(page.get_by_text(f"Quick check: 0 of {other_total} correct, {other_total} still to answer")).to_have_count(1)
    expect(page.get_by_role("progressbar", name=re.compile(r"^Questions answered correctly in "))).to_have_count(2)
    bar = page.get_by_role("progressbar", name=f"Questions answered correctly in {title}")
    expect(bar).to_have_attribute("value", "1")  # correct answers, not answered ones

    # Without the cookie the server knows nothing, but the page holds the answers and has them graded.
    page.context.clear_cookies()
    page.reload()
    expect(progress).to_have_count(1)
    expect(bar).to_have_attribute("value", "1")
    expect(bar).to_have_attribute("max", str(total))


def test_all_answered_shows_on_the_index(page: Page) -> None:
    questions = load("hot-swapping")
    page.goto(LESSON_1)
    for n, q in enumerate(questions, start=1):
        if "task" in q:
            do_task(page, n)  # done in the playground, checked by the server (test_quiz_tasks.py)
        else:
            answer(page, questions, n, q["answer"])
        expect_right(page, questions, n)
    total = len(questions)
    expect(score(page)).to_have_text(f"Score: {total} of {total} correct ({total} answered)")
    page.goto("/")
    expect(page.get_by_text(f"Quick check: {total} of {total} correct, all answered")).to_have_count(1)


@pytest.mark.parametrize("slug", ["hot-swapping", "list-changed"])
def test_quiz_without_javascript(browser: Browser, base_url: str, slug: str) -> None:
    questions = load(slug)
    total = len(questions)
    context = browser.new_context(java_script_enabled=False, base_url=base_url)
    try:
        page = context.new_page()
        page.goto(LESSONS[slug])
        expect(score(page)).to_have_text(f"Score: 0 of {total} correct (0 answered)")
        # The playgrounds need JavaScript (their buttons stay disabled; Playwright's text locators skip the
        # <noscript> notice, so it is not checked here); the quiz does not.
        expect(page.get_by_role("button", name="Take a model turn").first).to_be_disabled()

        # No choice: the server sends the page back with the message at that question.
        check_button(page, 1).click()
        expect(page).to_have_url(re.compile(rf"\?error={questions[0]['id']}#q-{questions[0]['id']}$"))
        expect(feedback(page, 1)).to_have_text("Pick an answer first.")

        answer(page, questions, 1, questions[0]["answer"])
        expect(page).to_have_url(re.compile(rf"{LESSONS[slug]}#q-{questions[0]['id']}$"))
        expect_right(page, questions, 1)
        expect(feedback(page, 1)).not_to_contain_text("Pick an answer first.")
        expect(score(page)).to_have_text(f"Score: 1 of {total} correct (1 answered)")

        answer(page, questions, 2, wrong_choice(questions[1]))
        expect(page).to_have_url(re.compile(rf"#q-{questions[1]['id']}$"))
        expect_wrong(page, questions, 2)
        expect_right(page, questions, 1)
        expect(score(page)).to_have_text(f"Score: 1 of {total} correct (2 answered)")
        q2 = questions[1]
        expect(
            question(page, questions, 2).get_by_role("radio", name=choice_text(q2, wrong_choice(q2)))
        ).to_be_checked()

        title = page.get_by_role("heading", level=1).text_content()
        page.goto("/")
        expect(page.get_by_text(f"Quick check: 1 of {total} correct, {total - 2} still to answer")).to_have_count(1)
        bar = page.get_by_role("progressbar", name=f"Questions answered correctly in {title}")
        expect(bar).to_have_attribute("value", "1")  # rendered by the server from the cookie
    finally:
        context.close()


def test_a_printed_quiz_shows_how_it_was_answered(page: Page) -> None:
    """On paper the quiz keeps the verdicts and the score; each interactive panel leaves one line
    naming it, and the progress tools and the contents list are left out."""
    questions = load("list-changed")
    page.goto(LESSON_2)
    answer(page, questions, 1, wrong_choice(questions[0]))
    expect(feedback(page, 1)).to_contain_text("Not quite.")
    progress = page.get_by_role("heading", name="Your progress")
    expect(progress).to_be_visible()
    page.emulate_media(media="print")
    expect(feedback(page, 1)).to_be_visible()
    expect(score(page)).to_be_visible()
    expect(check_button(page, 1)).to_be_hidden()
    panels = page.locator("section.panel").all()
    assert panels, "the lesson has no panels: the test covers less than it says"
    for panel in panels:
        expect(panel.get_by_text(re.compile(r"^Interactive: "))).to_be_visible()
        expect(panel.get_by_role("button").first).to_be_hidden()
    expect(page.get_by_role("navigation", name="In this lesson")).to_be_hidden()
    expect(progress).to_be_hidden()
    page.emulate_media(media="screen")
    expect(panels[0].get_by_text(re.compile(r"^Interactive: "))).to_be_hidden()
