"""A quick check with JavaScript: feedback without a reload, kept through a reload, a lost cookie, an
unreachable server and printing, and a task question checked from its playground. Questions, answers
and explanations come from content/quizzes/*.yaml. The same quiz without JavaScript (plain form POSTs)
is checked fast in tests/web/test_quiz_without_script.py; a quiz answered in full, task included, in
tests/e2e/test_quiz_tasks.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Locator, Page, expect

from lesson.i18n import translate

from .helpers import CHURN, LESSON_2, message, open_playground, press, prompt, quiz_score
from .helpers import panel as titled

pytestmark = pytest.mark.e2e

QUIZZES = Path(__file__).resolve().parents[2] / "content" / "quizzes"


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
    return quiz_score(page)


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
    expect(feedback(page, n)).to_contain_text(f"{message('quiz.right')} {q['explanation']}")
    expect_see(page, questions, n)


def expect_wrong(page: Page, questions: list[dict], n: int) -> None:
    """A wrong answer: a screen reader hears the right choice named in the verdict; the eye reads the
    explanation and sees the right choice marked in the list (its words once on screen, not twice)."""
    q = questions[n - 1]
    right = choice_text(q, q["answer"])
    the_answer = message("quiz.the_answer", answer=right)
    expect(feedback(page, n)).to_contain_text(f"{message('quiz.wrong')} {the_answer} {q['explanation']}")
    expect(feedback(page, n).get_by_text(the_answer)).to_have_class(re.compile(r"\bvisually-hidden\b"))
    marks = question(page, questions, n).get_by_text(message("quiz.answer_mark"))
    expect(marks).to_have_count(1)
    expect(marks).to_be_visible()
    row = question(page, questions, n).locator("label").filter(has=page.get_by_role("radio", name=right, exact=True))
    expect(row.get_by_text(message("quiz.answer_mark"))).to_be_visible()
    expect_see(page, questions, n)


def expect_see(page: Page, questions: list[dict], n: int) -> None:
    """The feedback links the part of the lesson the question is about, and that part exists."""
    link = feedback(page, n).get_by_role("link")
    expect(link).to_have_attribute("href", questions[n - 1]["see"])
    assert page.locator(questions[n - 1]["see"]).count() == 1


def expect_score(page: Page, correct: int, total: int, answered: int) -> None:
    expect(score(page)).to_have_text(message("quiz.score", correct=correct, total=total, answered=answered))


def index_line(correct: int, total: int, left: int) -> str:
    rest = message("quiz.index.check.left", left=left) if left else message("quiz.index.check.all")
    return f"{message('quiz.index.check')} {message('quiz.index.check.score', correct=correct, total=total)}{rest}"


def test_quiz_with_javascript(page: Page) -> None:
    # The lesson whose quick check has three choice questions first (the others are one idea, one or two).
    questions = load("list-changed")
    total = len(questions)
    page.goto(LESSON_2)
    expect_score(page, 0, total, 0)
    expect(quiz(page).get_by_role("group")).to_have_count(total)

    # No choice: the page says so, and nothing is recorded.
    check_button(page, 1).click()
    expect(feedback(page, 1)).to_have_text(message("quiz.missing"))
    expect_score(page, 0, total, 0)
    # The message belongs to the question: its choices are marked invalid, the first has the focus,
    # and the group is described by the message (WCAG 3.3.1).
    choices = question(page, questions, 1).get_by_role("radio")
    expect(choices.first).to_be_focused()
    expect(choices.first).to_have_attribute("aria-invalid", "true")
    expect(question(page, questions, 1)).to_have_accessible_description(re.compile(re.escape(message("quiz.missing"))))

    # The server cannot be reached: the learner stays on the lesson, the choice kept for another try.
    url = page.url
    page.route("**/api/quiz/**", lambda route: route.abort("connectionrefused"))
    answer(page, questions, 1, questions[0]["answer"])
    expect(feedback(page, 1)).to_contain_text(message("quiz.offline"))
    assert page.url == url
    q1 = questions[0]
    expect(question(page, questions, 1).get_by_role("radio", name=choice_text(q1, q1["answer"]))).to_be_checked()
    page.unroute("**/api/quiz/**")

    # Right, then wrong: immediate feedback with the explanation, no reload.
    check_button(page, 1).click()
    expect_right(page, questions, 1)
    expect_score(page, 1, total, 1)
    answer(page, questions, 2, wrong_choice(questions[1]))
    expect_wrong(page, questions, 2)
    expect_score(page, 1, total, 2)
    assert page.url == url  # feedback came without navigating

    # Another choice clears the verdict on the one before, until it is checked itself.
    q2 = questions[1]
    question(page, questions, 2).get_by_role("radio", name=choice_text(q2, q2["answer"]), exact=True).check()
    expect(feedback(page, 2)).to_have_text("")
    # A second try shows why the right answer is right, but the first answer is the one that scores.
    answer(page, questions, 2, questions[1]["answer"])
    expect_right(page, questions, 2)
    expect(feedback(page, 2)).to_contain_text(choice_text(q2, wrong_choice(q2)))  # the first answer, named
    expect_score(page, 1, total, 2)

    # The answers survive a reload: rendered by the server, the first answers' radios checked.
    page.reload()
    expect_score(page, 1, total, 2)
    expect_right(page, questions, 1)
    expect_wrong(page, questions, 2)
    expect(question(page, questions, 1).get_by_role("radio", name=choice_text(q1, q1["answer"]))).to_be_checked()
    expect(question(page, questions, 2).get_by_role("radio", name=choice_text(q2, wrong_choice(q2)))).to_be_checked()

    # On paper the quiz keeps the verdicts and the score; each interactive panel leaves one line naming
    # it, and the progress tools and the contents list are left out.
    progress = page.get_by_role("heading", name="Your progress")
    expect(progress).to_be_visible()
    page.emulate_media(media="print")
    expect(feedback(page, 2)).to_be_visible()
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

    # A wrong third answer: answered, but not counted as correct by the index's bar.
    answer(page, questions, 3, wrong_choice(questions[2]))
    expect_wrong(page, questions, 3)
    expect_score(page, 1, total, 3)

    # The course index shows the progress of this lesson, and none for the other.
    title = page.get_by_role("heading", level=1).text_content()
    page.goto("/")
    progress = page.get_by_text(index_line(1, total, total - 3), exact=True)
    expect(progress).to_have_count(1)
    other = "a-question-across-a-restart"  # the one lesson with a single question: its line is unique
    other_total = len(load(other))
    assert other_total == 1
    unanswered = f"{translate('en', 'index.check')} {translate('en', 'index.check.unanswered.one')}"
    expect(page.get_by_text(unanswered, exact=True)).to_have_count(1)
    # A bar only where there is a score: this lesson's.
    expect(page.get_by_role("progressbar", name=re.compile(r"^Questions answered correctly in "))).to_have_count(1)
    bar = page.get_by_role("progressbar", name=f"Questions answered correctly in {title}")
    expect(bar).to_have_attribute("value", "1")  # correct answers, not answered ones

    # Without the cookie the server knows nothing, but the page holds the answers and has them graded.
    page.context.clear_cookies()
    page.reload()
    expect(progress).to_have_count(1)
    expect(bar).to_have_attribute("value", "1")
    expect(bar).to_have_attribute("max", str(total))
    # ...on the lesson too: the score and the verdicts come back.
    page.goto(LESSON_2)
    expect_score(page, 1, total, 3)
    expect_right(page, questions, 1)

    # The lesson's task question: its check sends the lesson's own playground's log (the grading itself:
    # tests/web/test_quiz_tasks.py).
    n, task = next((n, q) for n, q in enumerate(questions, 1) if "task" in q)
    guide = open_playground(page, LESSON_2, "Misbehaving servers")
    press(guide, "Q deploys a new tool", 1)
    # Q's new tool is not in the host's list yet, and the next prompt says why that may change.
    expect(prompt(guide)).to_contain_text(message("prompt.relisted_first", servers="Q"))
    press(guide, "Take a model turn", 2)
    quiz(page).get_by_role("button", name=f"Check my playground to question {n}").click()
    expect(feedback(page, n)).to_contain_text(f"{message('quiz.right')} {task['explanation']}")
    expect_score(page, 2, total, 4)


GROW_THEN_TWO_FRAMES = """() => new Promise((done) => {
  document.body.append(Object.assign(document.createElement("div"), { style: "height: 40px" }));
  requestAnimationFrame(() => requestAnimationFrame(done));
})"""


def test_back_from_a_feedback_link_returns_to_the_question(page: Page) -> None:
    """On a phone, the feedback's link goes up past the stepper, which draws its moment as it comes near
    and grows by a screen or more: Back still lands on the question, not on the old offset above it."""
    page.set_viewport_size({"width": 375, "height": 740})
    questions = load("servers-come-and-go")
    page.goto(CHURN)
    q1 = question(page, questions, 1)
    q1.scroll_into_view_if_needed()
    answer(page, questions, 1, questions[0]["answer"])
    link = feedback(page, 1).get_by_role("link")
    expect(link).to_be_visible()
    link.click()
    expect(page).to_have_url(re.compile(re.escape(questions[0]["see"]) + "$"))
    expect(link).not_to_be_in_viewport()
    # The stepper above has drawn its moment (its server table) by the time the learner goes back.
    expect(titled(page, "A session with churn").get_by_role("table")).to_be_visible()
    page.go_back()
    expect(link).to_be_in_viewport()  # where the learner left it, though the stepper above has grown
    # And it stays there when the page grows again soon after (a panel drawing itself): the section the
    # link went to no longer holds the page.
    page.evaluate(GROW_THEN_TWO_FRAMES)
    expect(link).to_be_in_viewport()
