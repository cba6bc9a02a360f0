"""A classroom's worth of trouble, in the browser: the server is SIGKILLed and restarts, storage and
the clipboard are refused inside a cross-site frame, a playground is shared by link, and a repeat view
must fetch nothing but the page. (A lost cookie, the quiz held by the page: tests/e2e/test_quiz.py.)"""

from __future__ import annotations

import os
import re
import signal

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.threads import serve_in_thread

from .helpers import (
    ANSWERING,
    CHURN,
    OUTAGE,
    START,
    TO_LEGACY,
    choose_era,
    expect_status,
    go_to_screen_of,
    heading,
    log_labels,
    message,
    open_playground,
    press,
    quiz_score,
    score_pattern,
    step_label,
    takes_room,
)

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"


def test_sigkill_and_restart_the_page_continues_its_playground(page: Page, spawn) -> None:
    base, proc = spawn()
    port = int(base.rsplit(":", 1)[1])
    outage = open_playground(page, base + OUTAGE, TITLE)
    press(outage, "B deploys a new tool", 1)
    press(outage, "A dies", 2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    spawn(port=port)
    # The next press goes to a server that knows nothing; the page hands over its log.
    outage.get_by_role("button", name="Take a model turn").click()
    expect(log_labels(outage)).to_have_text(
        [START, heading(1, "deploy_tool", server="B"), heading(2, "server_dies", server="A"), heading(3, "take_turn")]
    )
    expect_status(outage, "A", "down")
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_count(3)


def test_a_link_shared_from_a_frame_or_presenter_mode_opens_the_lesson_itself(page: Page) -> None:
    for path in ("/embed/an-outage", OUTAGE + "?present=1"):
        page = page.context.new_page()  # a tab of its own: a playground of its own
        page.goto(path)
        outage = page.get_by_role("region", name=TITLE, exact=True)
        if "present" in path:
            # A playground's code comes as it nears the screen: in presenter mode, with its own screen.
            go_to_screen_of(page, outage)
        expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
        dies = outage.get_by_role("button", name="A dies", exact=True)
        share = outage.get_by_role("button", name="Share link")
        if "present" in path:
            # The screen's fit tries its scales over several frames after each answer, each moving the
            # controls: a click is aimed at a point, a key reaches the focused button wherever it is.
            dies.press("Enter")
            expect(log_labels(outage).last).to_have_text(step_label(1))
            share.press("Enter")
        else:
            dies.click()
            expect(log_labels(outage).last).to_have_text(step_label(1))
            share.click()
        url = outage.get_by_role("textbox", name="Link to this playground").input_value()
        assert re.match(r"^http://127\.0\.0\.1:\d+/lessons/an-outage#pg=outage:", url), (path, url)


def test_a_shared_link_reproduces_the_playground_and_a_damaged_one_says_so(browser: Browser, base_url: str) -> None:
    """The link goes on the clipboard (and the page says so), opens the same playground in another
    browser, which goes on by itself; a damaged link says so and gives a fresh playground."""
    mine = browser.new_context(base_url=base_url, permissions=["clipboard-read", "clipboard-write"])
    other = browser.new_context(base_url=base_url)  # another browser: no storage in common
    try:
        page = mine.new_page()
        outage = open_playground(page, OUTAGE, TITLE)
        choose_era(outage, "legacy")
        expect(log_labels(outage).last).to_have_text(heading(1, "switch_era", **TO_LEGACY))
        press(outage, "A dies", 2)
        outage.get_by_role("button", name="Share link").click()
        link = outage.get_by_role("textbox", name="Link to this playground")
        expect(link).to_be_visible()
        copied = outage.get_by_text(message("playground.copied"))
        expect(copied).to_be_visible()
        # The link's box, focused, fits the stage's narrow column: nothing there is pushed sideways.
        fits = "el => { const s = el.closest('.stage'); return s.scrollLeft === 0 && s.scrollWidth <= s.clientWidth; }"
        assert link.evaluate(fits)
        url = link.input_value()
        # The one-line log a task's answer carries too: panel, era, variant, presses.
        assert url.endswith("#pg=outage:modern::@legacy,a-dies"), url
        assert page.evaluate("navigator.clipboard.readText()") == url

        them = other.new_page()
        them.goto(url)
        theirs = them.get_by_role("region", name=TITLE, exact=True)
        expect(log_labels(theirs)).to_have_text(
            [START, heading(1, "switch_era", **TO_LEGACY), heading(2, "server_dies", server="A")]
        )
        expect_status(theirs, "A", "down")
        expect(theirs.get_by_role("radio", name="Legacy (2025-11-25)")).to_be_checked()
        press(theirs, "A is back", 3)  # theirs goes on by itself
        expect(log_labels(outage)).to_have_count(3)  # and mine is untouched

        press(outage, "A is back", 3)  # a press puts the link and its note away
        expect(copied).to_be_hidden()

        # A damaged link, and one in the older form (base64 JSON after "~"), say so and start afresh.
        for broken in (url.replace(":modern:", ":ancient:"), url.split("#")[0] + "#pg=outage~Zm9v"):
            them.goto("about:blank")  # a new load, not a jump within the same document
            them.goto(broken)
            damaged = them.get_by_role("region", name=TITLE, exact=True)
            expect(damaged.get_by_role("status")).to_contain_text(message("playground.link_broken"))
            expect(log_labels(damaged)).to_have_text([START])
    finally:
        other.close()
        mine.close()


REFUSE_STORAGE = """
for (const name of ["sessionStorage", "localStorage"]) {
  Object.defineProperty(window, name, { get() { throw new DOMException("refused", "SecurityError"); } });
}
"""


def test_the_page_works_when_storage_and_the_clipboard_are_refused(page: Page) -> None:
    """A locked-down frame: storage throws, and the clipboard refuses (plain http, a frame without the
    permission), so a shared link is selected in its box and the page says to copy it from there."""
    page.add_init_script(REFUSE_STORAGE)
    page.add_init_script("navigator.clipboard.writeText = () => Promise.reject(new Error('refused'));")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "A dies", 1)
    outage.get_by_role("button", name="Share link").click()
    expect(outage.get_by_text(message("playground.copy_yourself"))).to_be_visible()
    expect(outage.get_by_role("textbox", name="Link to this playground")).to_be_focused()
    expect(outage.get_by_text(message("playground.copied"))).to_have_count(0)
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_text([START])
    quiz = page.get_by_role("region", name="Quick check questions")
    quiz.get_by_role("group").first.get_by_role("radio").first.check()
    quiz.get_by_role("button", name="Check answer to question 1").click()
    expect(quiz_score(page)).to_have_text(score_pattern(answered=1))
    assert errors == []


@pytest.fixture
def counted_server():
    from lesson.web import create_app
    from lesson.web.server import make_dev_server

    app = create_app({"SECRET_KEY": "count"})
    seen: list[str] = []
    inner = app.wsgi_app

    def counting(environ, start_response):
        seen.append(environ["PATH_INFO"])
        return inner(environ, start_response)

    app.wsgi_app = counting
    server = make_dev_server("127.0.0.1", 0, app)
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()


def test_a_repeat_view_fetches_nothing_but_the_page(page: Page, counted_server) -> None:
    base, seen = counted_server
    open_playground(page, base + OUTAGE, TITLE)
    page.goto(base + CHURN)
    page.get_by_role("region", name="A session with churn", exact=True).scroll_into_view_if_needed()
    expect(page.get_by_text("Moment 1 of", exact=False).first).to_be_visible()
    assert any(p.endswith("/js/render.js") for p in seen) and any(p.endswith("/churn.json") for p in seen)
    first = set(seen) - {"/", OUTAGE, CHURN, "/ws"}
    seen.clear()
    page.goto(base + "/")
    page.goto(base + OUTAGE)
    expect(page.get_by_role("region", name=TITLE, exact=True).get_by_role("button", name="Reset")).to_be_enabled()
    page.goto(base + CHURN)
    page.get_by_role("region", name="A session with churn", exact=True).scroll_into_view_if_needed()
    expect(page.get_by_text("Moment 1 of", exact=False).first).to_be_visible()
    # The pages come again; nothing they use does. (A module loaded on first use, such as the quiz's
    # when its questions near the screen, may be fetched for the first time on either visit.)
    assert OUTAGE in seen and CHURN in seen
    assert [p for p in seen if p in first] == []


def link_to(panel: str, presses: list[str]) -> str:
    """A playground's share link fragment, as the page writes it: its one-line log."""
    return f"#pg={panel}:modern::" + ",".join(presses)


def test_a_shared_link_lands_on_the_playground_s_heading(page: Page) -> None:
    """The answering playground sits below its lesson's opening words: a link to it opens any disclosure
    around it, scrolls the playground into view and puts the focus on its heading. The outage playground
    sits right under the lesson's "Play out an outage" heading: the title is drawn once (the panel's own
    is for screen readers, and still names it), and a link to it puts the focus on the lesson's heading."""
    page.goto(ANSWERING + link_to("answering", ["ask", "restart"]))
    answering = page.get_by_role("region", name="A restart while the user is answering", exact=True)
    panel_heading = answering.get_by_role("heading", name="A restart while the user is answering", level=3)
    expect(panel_heading).to_be_visible()  # the disclosure around it is open
    expect(panel_heading).to_be_focused()
    expect(log_labels(answering)).to_have_text(
        [START, heading(1, "ask_user_input", server="W"), heading(2, "restart_server", server="W")]
    )
    expect(panel_heading).to_be_in_viewport()

    page.goto(OUTAGE + link_to("outage", ["a-dies"]))
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect(log_labels(outage)).to_have_text([START, heading(1, "server_dies", server="A")])
    lesson_heading = page.get_by_role("heading", name=TITLE, level=2)
    expect(lesson_heading).to_be_focused()
    expect(lesson_heading).to_be_in_viewport()
    own = outage.get_by_role("heading", name=TITLE, level=3)
    expect(own).to_have_count(1)  # in the page's outline, for screen readers
    assert not takes_room(own)
    # A panel with text between it and its heading keeps its title in view.
    page.goto(CHURN)
    assert takes_room(page.get_by_role("heading", name="A session with churn", level=3))
