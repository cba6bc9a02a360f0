"""The SCORM package in a test LMS: the launch page finds the LMS's API, frames the lesson from the
app's own origin, and turns the lesson's statements into status, score and suspend data; a returning
learner gets that progress back."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Frame, Page, expect

from lesson.i18n import translate
from lesson.portal import scorm
from tests import statements

pytestmark = pytest.mark.e2e

SLUG = "an-outage"
HERE = Path(__file__).parent


@pytest.fixture
def lms(embed_server: str, static_origin: Callable[[Path], str], tmp_path: Path) -> str:
    """The test LMS page and the unpacked package, on an origin other than the app's."""
    shutil.copy(HERE / "pages" / "lms.html", tmp_path / "lms.html")
    data = scorm.build_package(SLUG, "An outage", embed_server)
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path / "pkg")
    return static_origin(tmp_path) + "/lms.html"


def lesson_frame(page: Page, embed_server: str) -> Frame:
    framed = page.frame_locator("#sco").frame_locator("#lesson-frame")
    expect(framed.locator("h1")).to_be_visible()
    return next(f for f in page.frames if f.url.startswith(f"{embed_server}/lessons/{SLUG}"))


def send(frame: Frame, statements: list[dict]) -> None:
    frame.evaluate(
        "list => list.forEach(s => parent.postMessage({context: 'lesson', action: 'statement', statement: s}, '*'))",
        statements,
    )


def set_values(page: Page) -> list[list[str]]:
    return [c[1:] for c in page.evaluate("lmsCalls") if c[0] == "LMSSetValue"]


def test_reports_completion_score_and_suspend_data_and_resizes_its_frame(
    page: Page, lms: str, embed_server: str
) -> None:
    page.goto(lms)
    expect(page.get_by_label("Lesson status")).to_have_text("incomplete")
    sco = page.frame_locator("#sco")
    expect(sco.get_by_role("status")).to_have_text(translate("en", "scorm.recorded"))
    frame = lesson_frame(page, embed_server)
    assert page.evaluate("lmsCalls")[0] == ["LMSInitialize", ""]

    iri = f"{embed_server}/lessons/{SLUG}"
    actor = statements.anonymous_actor(embed_server, "visit-1")
    # A message from the LMS page itself (not the lesson's frame) must be ignored.
    page.evaluate(
        "s => document.getElementById('sco').contentWindow.postMessage("
        "{context: 'lesson', action: 'statement', statement: s}, '*')",
        statements.lesson_scored(actor, iri, 0, 5).to_json(),
    )
    send(
        frame,
        [
            statements.experienced(actor, iri, "why-churn").to_json(),
            statements.answered(actor, iri, "q1", "b", True).to_json(),
        ],
    )
    expect(page.get_by_label("Lesson status")).to_have_text("incomplete")
    send(
        frame,
        [
            statements.goal_completed(actor, iri, "outage-recovered").to_json(),
            statements.lesson_completed(actor, iri).to_json(),
        ],
    )
    expect(page.get_by_label("Lesson status")).to_have_text("completed")
    send(frame, [statements.lesson_scored(actor, iri, 4, 5).to_json()])
    expect(page.get_by_label("Lesson status")).to_have_text("passed")
    expect(page.get_by_label("Score")).to_have_text("80")

    values = set_values(page)
    assert ["cmi.core.lesson_status", "failed"] not in values  # the forged statement did nothing
    assert ["cmi.core.score.min", "0"] in values and ["cmi.core.score.max", "100"] in values
    suspend = json.loads(page.evaluate("lmsData['cmi.suspend_data']"))
    assert suspend["s"] == ["why-churn"]
    assert suspend["a"] == {"q1": ["b", 1]}
    assert suspend["g"] == ["outage-recovered"]
    assert suspend["c"] is True and suspend["sc"] == 0.8 and suspend["p"] is True

    # A long task log is left out of suspend data and the other answers kept: a log the grader takes
    # (under its 12,000 characters) but longer than all of SCORM 1.2's suspend data.
    short_log = "outage:modern::add-c,call-a,a-dies,turn"
    long_log = "outage:modern::" + ",".join(["b-deploys-a-new-tool", "turn"] * 200) + ",add-c,call-a,a-dies,turn"
    assert 4096 < len(long_log) < 12_000
    send(
        frame,
        [
            statements.answered(actor, iri, "other-task", short_log, True).to_json(),
            statements.answered(actor, iri, "host-error", long_log, True).to_json(),
        ],
    )
    page.wait_for_function("(lmsData['cmi.suspend_data'] || '').includes('other-task')")
    text = page.evaluate("lmsData['cmi.suspend_data']")
    assert len(text) <= 4096
    suspend = json.loads(text)
    # Only the log that cannot fit is left out: every other answer, the section and the goal stay.
    assert suspend["a"] == {"q1": ["b", 1], "other-task": [short_log, 1]}
    assert suspend["s"] == ["why-churn"] and suspend["g"] == ["outage-recovered"]

    # The launch page resizes its frame over the H5P protocol.
    reply = frame.evaluate(
        """() => new Promise(resolve => {
            addEventListener('message', e => { if (e.data && e.data.context === 'h5p') resolve(e.data); });
            parent.postMessage({context: 'h5p', action: 'hello'}, '*');
        })"""
    )
    assert reply == {"context": "h5p", "action": "hello"}
    frame.evaluate(
        """() => new Promise(resolve => {
            addEventListener('message', e => {
                if (e.data && e.data.action === 'resizePrepared') {
                    parent.postMessage({context: 'h5p', action: 'resize', scrollHeight: 1234}, '*');
                    resolve();
                }
            });
            parent.postMessage({context: 'h5p', action: 'prepareResize', scrollHeight: 1234, clientHeight: 500}, '*');
        })"""
    )
    expect(page.frame_locator("#sco").get_by_title("An outage")).to_have_attribute(
        "style", re.compile(r"height: 1234px")
    )

    page.get_by_role("button", name="Close the lesson").click()
    expect(page.get_by_label("Finished")).to_have_text("yes")
    calls = page.evaluate("lmsCalls")
    assert calls[-1] == ["LMSFinish", ""]
    session_time = [c[2] for c in calls if c[:2] == ["LMSSetValue", "cmi.core.session_time"]]
    assert session_time and re.fullmatch(r"\d{2,4}:\d{2}:\d{2}", session_time[0])
    assert ["LMSSetValue", "cmi.core.exit", ""] in calls  # finished: nothing to resume


def test_the_packages_mastery_score_decides_passed_or_failed(
    page: Page, embed_server: str, static_origin: Callable[[Path], str], tmp_path: Path
) -> None:
    """A package built with --mastery 75 passes a learner at 3 of 4, though the lesson's own verdict
    (at 80%) is "failed"; the score itself is the lesson's."""
    shutil.copy(HERE / "pages" / "lms.html", tmp_path / "lms.html")
    data = scorm.build_package(SLUG, "An outage", embed_server, mastery=75)
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path / "pkg")
    page.goto(static_origin(tmp_path) + "/lms.html")
    frame = lesson_frame(page, embed_server)
    iri = f"{embed_server}/lessons/{SLUG}"
    scored = statements.lesson_scored(statements.anonymous_actor(embed_server, "visit-1"), iri, 3, 4).to_json()
    assert scored["verb"]["id"].endswith("/failed")  # the lesson's own verdict, at 80%
    send(frame, [scored])
    expect(page.get_by_label("Score")).to_have_text("75")
    expect(page.get_by_label("Lesson status")).to_have_text("passed")


def test_a_returning_learner_resumes_from_suspend_data(page: Page, lms: str, embed_server: str) -> None:
    saved = {"v": 1, "s": ["why-churn", "outages"], "a": {"q1": ["b", 1]}, "g": [], "c": False, "sc": None, "p": None}
    page.goto(lms + "?status=incomplete&suspend=" + json.dumps(saved))
    frame = lesson_frame(page, embed_server)
    resume = frame.evaluate(
        """() => new Promise(resolve => {
            addEventListener('message', e => { if (e.data && e.data.action === 'resume') resolve(e.data); });
            parent.postMessage({context: 'lesson', action: 'ready'}, '*');
        })"""
    )
    assert resume["context"] == "lesson"
    assert resume["progress"] == saved
    assert resume["learner"] == {"id": "learner-7", "name": "Doe, Ada"}

    iri = f"{embed_server}/lessons/{SLUG}"
    send(frame, [statements.answered(statements.anonymous_actor(embed_server, "v"), iri, "q2", "a", False).to_json()])
    page.wait_for_function("lmsData['cmi.suspend_data'].includes('q2')")
    page.get_by_role("button", name="Close the lesson").click()
    expect(page.get_by_label("Finished")).to_have_text("yes")
    suspend = json.loads(page.evaluate("lmsData['cmi.suspend_data']"))
    assert suspend["s"] == ["why-churn", "outages"]
    assert suspend["a"] == {"q1": ["b", 1], "q2": ["a", 0]}
    assert ["LMSSetValue", "cmi.core.exit", "suspend"] in page.evaluate("lmsCalls")
    # Resuming does not reset a learner already under way.
    assert ["LMSSetValue", "cmi.core.lesson_status", "incomplete"] not in page.evaluate("lmsCalls")


def test_without_an_lms_the_launch_page_says_so_and_still_shows_the_lesson(
    page: Page, lms: str, embed_server: str
) -> None:
    page.goto(lms.replace("/lms.html", "/pkg/index.html"))
    expect(page.get_by_role("status")).to_have_text(translate("en", "scorm.unrecorded"))
    expect(page.frame_locator("#lesson-frame").locator("h1")).to_be_visible()
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
