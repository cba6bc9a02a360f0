"""The SCORM path end to end with the real lesson in the frame: the learner answers the quick
check inside the launch page inside the test LMS; the LMS records completion, score and suspend
data; a returning learner (in a fresh browser) gets the answers back from that data."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from lesson.portal import scorm

from ..e2e.helpers import message, quiz_score, score_pattern, score_text
from .conftest import site_and_app
from .test_lesson_embedded import QUESTIONS, SLUG, answer_all, held_answer

pytestmark = pytest.mark.e2e
HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def lms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test LMS page and the package on one origin; the app allows exactly that origin. One for the
    module: the LMS keeps what it records in the page, and each test has a page of its own."""
    folder = tmp_path_factory.mktemp("lms")
    shutil.copy(HERE / "pages" / "lms.html", folder / "lms.html")
    with site_and_app(folder) as (origin, app):
        zipfile.ZipFile(io.BytesIO(scorm.build_package(SLUG, "An outage", app))).extractall(folder / "pkg")
        yield f"{origin}/lms.html"


def test_the_real_lesson_reports_to_the_lms_and_resumes(page: Page, browser: Browser, lms: str) -> None:
    page.goto(lms)
    lesson = page.frame_locator("#sco").frame_locator("#lesson-frame")
    expect(lesson.get_by_role("heading", level=1)).to_have_text(re.compile("An outage"))
    expect(page.get_by_label("Lesson status")).to_have_text("incomplete")
    # A wrong answer followed by the right one reaches the LMS as the wrong one, in the score and in the
    # suspend data a returning learner gets back.
    answer_all(lesson, wrong=1, then_right=True)
    n = len(QUESTIONS)
    expect(page.get_by_label("Lesson status")).to_have_text(re.compile("passed|failed"))
    scaled = round((n - 1) / n, 4)
    expect(page.get_by_label("Score")).to_have_text(str(round(scaled * 100)))
    page.wait_for_function("JSON.parse(lmsData['cmi.suspend_data'] || '{}').sc !== undefined")
    suspend = json.loads(page.evaluate("lmsData['cmi.suspend_data']"))
    saved = suspend["a"]
    first = QUESTIONS[0]
    wrong = next(c["id"] for c in first["choices"] if c["id"] != first["answer"])
    assert saved == {q["id"]: [held_answer(q, saved[q["id"]][0]), 1] for q in QUESTIONS[1:]} | {first["id"]: [wrong, 0]}
    assert suspend["c"] is True and suspend["sc"] == scaled
    status = page.evaluate("lmsData['cmi.core.lesson_status']")
    assert status == ("passed" if scaled >= 0.8 else "failed")
    sets = [c[1:] for c in page.evaluate("lmsCalls") if c[0] == "LMSSetValue"]
    assert ["cmi.core.score.max", "100"] in sets and ["cmi.core.score.min", "0"] in sets

    # A returning learner, in a browser with nothing stored: the LMS hands back the suspend data.
    fresh = browser.new_context()
    try:
        again = fresh.new_page()
        again.goto(f"{lms}?status={status}&suspend={quote(json.dumps(suspend))}")
        lesson = again.frame_locator("#sco").frame_locator("#lesson-frame")
        expect(quiz_score(lesson)).to_have_text(score_text(n - 1, n, n))
        expect(lesson.get_by_text(message("quiz.wrong"))).to_have_count(1)
    finally:
        fresh.close()


def test_start_over_in_the_lms_forgets_what_the_lms_would_resume(page: Page, lms: str) -> None:
    """A returning learner sees the goal they reached; after Start over the LMS keeps nothing to hand back,
    so the lesson that loads again starts empty."""
    first, second = QUESTIONS[0], QUESTIONS[1]
    # What the LMS saved: the second question answered right (a task's answer is the log that did it).
    done = "outage:modern::" + ",".join(second["task"]["solution"]) if "task" in second else second["answer"]
    saved = {"v": 1, "s": ["why-churn"], "a": {second["id"]: [done, 1]}, "g": ["outage"]}
    page.goto(f"{lms}?status=incomplete&suspend={quote(json.dumps(saved | {'c': False, 'sc': None, 'p': None}))}")
    lesson = page.frame_locator("#sco").frame_locator("#lesson-frame")
    quiz = lesson.get_by_role("region", name="Quick check questions")
    score = quiz_score(lesson)
    expect(score).to_have_text(score_pattern(answered=1))
    # The playground is new, but the goal was reached on an earlier visit: the block says so.
    goal = lesson.locator('[data-panel-id="outage"] [data-role="goal"]')
    expect(goal).to_contain_text(message("goal.before"))

    lesson.get_by_role("button", name="Start over", exact=True).click()
    lesson.get_by_role("dialog", name="Start this lesson over?").get_by_role("button", name="Start over").click()
    page.wait_for_function("JSON.parse(lmsData['cmi.suspend_data'] || '{}').g?.length === 0")
    suspend = json.loads(page.evaluate("lmsData['cmi.suspend_data']"))
    # What was saved is forgotten; a short lesson's first section, in view again at the top, may be read anew.
    assert suspend["a"] == {} and "why-churn" not in suspend["s"] and suspend["g"] == []
    # The lesson loads again with nothing handed back: one new answer is the only one.
    expect(goal).to_contain_text(message("goal.open"))
    text = next(c["text"] for c in first["choices"] if c["id"] == first["answer"])
    quiz.get_by_role("radio", name=text).check()
    quiz.get_by_role("button", name="Check answer").first.click()
    expect(score).to_have_text(score_pattern(correct=1, answered=1))
