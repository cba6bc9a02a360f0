"""LTI 1.3 in Chromium, against the test platform on loopback: the platform's course page on
http://localhost:P frames the tool on http://127.0.0.1:T (another site), in a profile that blocks
third-party cookies (Chromium's own setting, as in tests/embed; site isolation off, see
``blocking_context`` in tests/conftest.py)."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Request, expect

from lesson.i18n import translate

from .platform import course_url

pytestmark = pytest.mark.e2e


def _no_axe_violations(page) -> None:
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


def test_a_launch_in_a_cross_site_frame_without_cookies_and_the_score_arrives(blocking_context, live):
    lti = live()
    page = blocking_context.new_page()
    seen: list[Request] = []
    page.on("request", lambda request: seen.append(request))
    page.goto(course_url(lti.platform, storage="1", lesson="first"))
    frame = page.frame_locator("iframe[title='Lesson']")
    expect(frame.get_by_role("heading", name="Fixture one", level=1)).to_be_visible()
    # The frame got no cookie back: the state was checked in the platform's storage.
    launch = next(r for r in seen if r.url == f"{lti.tool}/lti/launch")
    assert "lti1p3-" not in (launch.all_headers().get("cookie") or "")
    assert any(r.url == f"{lti.tool}/lti/launch/verified" for r in seen)

    quiz = frame.get_by_role("region", name="Quick check questions")
    grade = frame.get_by_role("complementary", name="Your grade in the course")
    expect(grade).to_be_visible()

    def check(n: int):
        return quiz.get_by_role("button", name=re.compile("Check answer")).nth(n)

    one = quiz.get_by_role("group", name=re.compile("Fixture question one"))
    status = grade.get_by_role("status")
    one.get_by_role("radio", name="Choice one A").check()  # wrong, and the first answer counts
    check(0).click()
    expect(status).to_contain_text("1 of 2")  # one of the two questions answered
    progress = status.text_content()
    one.get_by_role("radio", name="Choice one B").check()
    check(0).click()
    two = quiz.get_by_role("group", name=re.compile("Fixture question two"))
    two.get_by_role("radio", name="Choice two A").check()
    check(1).click()
    expect(status).not_to_have_text(progress)
    expect(status).to_contain_text("1 of 2")  # the score sent: one right of two, first answers
    (score,) = lti.platform.received.wait_for("scores", 1)
    assert (score["scoreGiven"], score["scoreMaximum"], score["userId"]) == (1, 2, "learner-1")


def test_without_platform_storage_the_lesson_opens_in_a_window_of_its_own(blocking_context, live):
    """No storage offered and no cookie in the frame: the page says so and opens the launch in a new
    window, where the SameSite=None state cookie is first-party and the launch goes through."""
    lti = live()
    page = blocking_context.new_page()
    page.goto(course_url(lti.platform, lesson="first"))
    frame = page.frame_locator("iframe[title='Lesson']")
    expect(frame.get_by_role("heading", name="Open the lesson in its own window")).to_be_visible()
    with page.expect_popup() as popup_info:
        frame.get_by_role("link", name="Open the lesson in a new window").click()
    popup = popup_info.value
    expect(popup.get_by_role("heading", name="Fixture one", level=1)).to_be_visible()


def test_deep_linking_round_trip(blocking_context, live):
    lti = live()
    page = blocking_context.new_page()
    page.goto(course_url(lti.platform, storage="1", kind="deeplink"))
    frame = page.frame_locator("iframe[title='Lesson']")
    expect(frame.get_by_role("heading", name="Choose lessons for your course")).to_be_visible()
    frame.get_by_role("checkbox", name="Fixture one").check()
    frame.get_by_role("checkbox", name=re.compile("Allow retakes")).check()
    frame.get_by_role("button", name="Add to the course").click()
    expect(frame.get_by_role("heading", name="Added to the course")).to_be_visible()
    expect(frame.get_by_role("listitem")).to_have_text(["Fixture one"])
    (item,) = lti.platform.received.wait_for("content_items", 1)
    assert item["custom"] == {"lesson": "first", "retakes": "1"}
    assert item["lineItem"]["scoreMaximum"] == 2 and item["data"] == "platform-data-1"


def _framed_page_passes_axe(page, tool: str, heading: str) -> None:
    """axe reads the page it is given, not a cross-site frame: the frame's document is checked as a
    page of the tool's own origin."""
    expect(page.frame_locator("iframe[title='Lesson']").get_by_role("heading", name=heading)).to_be_visible()
    html = next(f for f in page.frames if f.url.startswith(tool)).content()
    alone = page.context.new_page()
    alone.goto(f"{tool}/lti/jwks")
    alone.set_content(html)
    expect(alone.get_by_role("heading", name=heading)).to_be_visible()
    _no_axe_violations(alone)


def test_the_lti_pages_pass_axe(page, live):
    lti = live()
    page.goto(course_url(lti.platform, storage="1", kind="deeplink"))
    _framed_page_passes_axe(page, lti.tool, "Choose lessons for your course")
    page.goto(course_url(lti.platform, storage="1", lesson="first"))
    _framed_page_passes_axe(page, lti.tool, "Your grade in the course")
    refused = page.context.new_page()
    refused.goto(f"{lti.tool}/lti/login?iss=https://unknown.example&login_hint=x")
    expect(refused.get_by_role("heading", name="This launch was refused")).to_be_visible()
    _no_axe_violations(refused)


def test_a_state_the_platform_does_not_hold_stops_the_launch(blocking_context, live):
    lti = live()
    page = blocking_context.new_page()
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    page.goto(course_url(lti.platform, storage="tamper", lesson="first"))
    frame = page.frame_locator("iframe[title='Lesson']")
    expect(frame.get_by_role("main").get_by_role("status")).to_have_text(translate("en", "js.lti.mismatch"))
    expect(frame.get_by_role("heading", name="Checking the launch")).to_be_visible()
    assert f"{lti.tool}/lti/launch/verified" not in seen


def test_platform_storage_that_does_not_answer_offers_a_window_of_its_own(blocking_context, live):
    lti = live()
    page = blocking_context.new_page()
    page.goto(course_url(lti.platform, storage="silent", lesson="first"))
    frame = page.frame_locator("iframe[title='Lesson']")
    link = frame.get_by_role("link", name="Open the lesson in a new window")
    expect(link).to_be_visible(timeout=30_000)  # the page waits a few seconds for the platform first
    with page.expect_popup() as popup_info:
        link.click()
    expect(popup_info.value.get_by_role("heading", name="Fixture one", level=1)).to_be_visible()
