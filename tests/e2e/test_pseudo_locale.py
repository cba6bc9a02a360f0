"""The page scripts take their UI strings from the catalogue too: in the pseudo-locale every string the
scripts write is wrapped in ⟦…⟧. The playgrounds are read whole after presses and a look back in time
(every text and label that playground.js, render.js, diagram.js, changes.js, timeline.js, goals.js and
predict.js write, the server table's era names too), skipping only content data: the simulation's
view (statuses, server and tool names, narration, protocol words on the diagram's arrows, wire JSON),
marked ``data-content`` or in
``<code>``/``<pre>``, and ``<noscript>``, which the server side checks. The SCORM package's launch page,
built in the pseudo-locale, is read whole too, with and without a learning platform around it.
embed.js's storage notice, shown only when the browser refuses storage, is checked with storage refused."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from lesson.i18n import translate
from lesson.portal import scorm

from .helpers import CHURN, LESSON_2, OUTAGE, RESTARTS, lead

pytestmark = pytest.mark.e2e

WRAPPED = re.compile(r"^⟦.*⟧$", re.S)


def pseudo(key: str, **values: object) -> str:
    """A script's message in the pseudo-locale, from the catalogue."""
    return translate("pseudo", f"js.{key}", **values)


def starts(text: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(text))


NEUTRAL = re.compile(r"^[\s\d·.,:;()\-–—…/●✕≠⊘↻→]*$")

# Text and labels in `root` outside messages and outside content data.
LEFT_OVER = """(root) => {
  const copy = root.cloneNode(true);
  for (const el of copy.querySelectorAll(`[data-content], code, pre, script, style, noscript`)) el.remove();
  const found = [];
  for (const el of [copy, ...copy.querySelectorAll("*")]) {
    for (const name of ["aria-label", "title", "placeholder", "data-mark"]) {
      if (el.getAttribute(name)) found.push(`${name}=${el.getAttribute(name)}`);
    }
  }
  found.push(copy.textContent);
  const out = [];
  for (let text of found) {
    while (/⟦[^⟦⟧]*⟧/.test(text)) text = text.replace(/⟦[^⟦⟧]*⟧/g, "");
    text = text.replace(/^(aria-label|title|placeholder|data-mark)=/, "");
    if (text.trim()) out.push(text.trim());
  }
  return out;
}"""


def left_over(scope: Locator) -> list[str]:
    found = scope.evaluate(LEFT_OVER)
    return [" ".join(text.split()) for text in found if not NEUTRAL.match(text)]


@pytest.mark.parametrize(
    ("path", "title"),
    [
        (OUTAGE, "Play out an outage"),
        (LESSON_2, "Misbehaving servers"),
        (RESTARTS, "Host and server in different eras"),  # a server table with an era column
    ],
)
def test_a_playground_after_presses_has_no_string_outside_the_catalogue(page: Page, path: str, title: str) -> None:
    page.goto(path + "?lang=pseudo")
    section = page.get_by_role("region", name=title, exact=True)
    section.scroll_into_view_if_needed()  # a playground further down the page mounts as it nears the screen
    buttons = section.locator("[data-button]")
    expect(buttons.first).to_be_enabled()
    announce = section.locator('[data-role="announce"]')
    presses = min(buttons.count(), 3)
    for i in range(presses):
        buttons.nth(i).click()
        expect(announce).to_have_text(starts(lead("playground.after", "pseudo", k=i + 1)))
    assert left_over(section) == []  # the newest step, as the presses left it
    # Back one step: the second press, an event (the first may be a model turn with nothing on the wire).
    section.get_by_role("slider").fill(str(presses - 1))
    expect(announce).to_have_text(starts(lead("playground.viewing", "pseudo")))
    section.get_by_role("tab", name=re.compile("Wire")).click()  # the wire's tab, named in the pseudo-locale
    expect(section.locator(".seq-arrow").first).to_be_visible()
    section.locator(".seq-arrow").first.click()  # the frame's details, from diagram.js
    expect(section.locator(".seq-detail .msg-head").first).to_have_text(WRAPPED)
    assert left_over(section) == []
    # Words the stylesheet adds (::after) come from the catalogue too: a step later than the one on view.
    later = section.locator(".log > li.later .step-label").first
    added = later.evaluate("el => getComputedStyle(el, '::after').content")
    assert re.search(r"⟦[^⟦⟧]+⟧", added), added
    # The check can fail: a string written outside the catalogue is found.
    section.locator('[data-role="announce"]').evaluate("el => el.append(' Hard-coded')")
    found = left_over(section)
    assert len(found) == 1 and "Hard-coded" in found[0]


def test_a_server_a_press_added_shows_every_field_on_a_phone_in_any_language(page: Page) -> None:
    """On a phone a press folds the servers it left alone to their name and status, and shows a server it
    added whole. The mark on the new row is a word of the page's language: the fold does not hang on it."""
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(OUTAGE + "?lang=pseudo")
    section = page.get_by_role("region", name="Play out an outage", exact=True)
    section.scroll_into_view_if_needed()
    add = section.locator('[data-button="add-c"]')
    expect(add).to_be_enabled()
    add.click()
    added = section.locator('tr[data-server="C"]')
    expect(added.locator("th")).to_have_attribute("data-mark", pseudo("mark.new"))
    expect(added.locator('td[data-field="tools"]')).to_be_visible()
    expect(section.locator('tr[data-server="A"] td[data-field="tools"]')).to_be_hidden()


def test_script_strings_come_from_the_catalogue(page: Page) -> None:
    page.goto(CHURN + "?lang=pseudo")
    stepper = page.get_by_role("region", name="A session with churn", exact=True)
    stepper.scroll_into_view_if_needed()
    expect(stepper.get_by_role("heading", level=4)).to_have_text(starts(lead("moment", "pseudo", n=1)))
    for key in ("stepper.servers", "stepper.happened"):
        expect(stepper.get_by_role("heading", name=pseudo(key))).to_be_visible()
    expect(stepper.get_by_role("status")).to_have_text(WRAPPED)

    page.goto(RESTARTS + "?lang=pseudo")
    lab = page.locator('[data-panel="restarts"]')
    lab.scroll_into_view_if_needed()  # its code is fetched as it nears the screen
    lab.get_by_role("button", name=translate("pseudo", "lab.set_up", n=1)).click()
    expect(lab.get_by_role("status")).to_have_text(starts(lead("lab.set_up_done", "pseudo")))
    lab.get_by_role("button", name=translate("pseudo", "lab.restart")).click()
    expect(lab.get_by_role("status")).to_have_text(starts(lead("lab.done", "pseudo")))
    expect(lab.locator(".result-for")).to_have_text(starts(lead("lab.result_for", "pseudo")))
    expect(lab.get_by_text(starts(lead("lab.check", "pseudo")))).to_be_visible()  # question 1's answer
    expect(lab.get_by_text(starts(lead("lab.wire", "pseudo"))).first).to_be_visible()

    quiz = page.locator("[data-quiz]")
    check = quiz.get_by_role("button", name=starts(translate("pseudo", "quiz.check"))).first
    check.click()
    expect(quiz.locator(".verdict").first).to_have_text(pseudo("quiz.missing"))
    quiz.get_by_role("radio").first.check()
    check.click()
    expect(quiz.locator('[data-role="score"]')).to_have_text(starts(lead("quiz.score", "pseudo")))
    verdicts = "|".join(re.escape(pseudo(f"quiz.{v}")) for v in ("right", "wrong"))
    expect(quiz.locator(".verdict strong").first).to_have_text(re.compile(f"^({verdicts})$"))

    page.goto(OUTAGE + "?lang=pseudo")
    outage = page.locator('[data-panel-id="outage"]')
    offers = outage.locator("[data-scenario]")
    expect(offers.first).to_have_text(starts(lead("scenario.play", "pseudo")))
    expect(offers).to_have_count(2)
    expect(page.get_by_role("link", name=pseudo("offer.present"))).to_be_visible()
    page.get_by_role("button", name=pseudo("offer.start_over")).click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading")).to_have_text(translate("pseudo", "js.startover.heading"))
    expect(dialog.get_by_role("button")).to_have_count(2)  # start over, or keep going
    for button in dialog.get_by_role("button").all():
        expect(button).to_have_text(WRAPPED)
    page.keyboard.press("Escape")

    page.goto(OUTAGE + "?lang=pseudo&present=1")
    bar = page.get_by_role("navigation", name=pseudo("present.bar"))
    expect(bar.get_by_role("status")).to_have_text(starts(lead("present.position", "pseudo", n=1)))
    controls = bar.get_by_role("button").all() + bar.get_by_role("link").all()
    assert len(controls) >= 5, "Previous, Next, the text sizes and Leave presenter mode"
    for control in controls:
        expect(control).to_have_text(WRAPPED)


# A SCORM 1.2 runtime that accepts everything: enough for the launch page to say it records progress.
FAKE_LMS = """window.API = {LMSInitialize: () => 'true', LMSGetValue: () => '', LMSSetValue: () => 'true',
  LMSCommit: () => 'true', LMSFinish: () => 'true', LMSGetLastError: () => '0'};"""


def test_the_scorm_launch_page_has_no_string_outside_the_catalogue(page: Page, base_url: str, tmp_path: Path) -> None:
    """Read without a learning platform around it, then with one (the same page, reloaded)."""
    data = scorm.build_package("an-outage", "An outage", base_url, locale="pseudo")
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    status = page.get_by_role("status")
    body = page.locator("body")
    for with_lms, key in ((False, "scorm.unrecorded"), (True, "scorm.recorded")):
        if with_lms:
            page.add_init_script(FAKE_LMS)
            page.reload()
        expect(status).to_have_text(translate("pseudo", key))  # written by scorm.js, from the catalogue
        assert left_over(body) == []
        # The check can fail here too.
        status.evaluate("el => el.append(' Hard-coded')")
        assert left_over(body) == ["Hard-coded"]


REFUSE_STORAGE = """
for (const name of ["sessionStorage", "localStorage"]) {
  Object.defineProperty(window, name, { get() { throw new DOMException("refused", "SecurityError"); } });
}
"""


def test_the_storage_notice_comes_from_the_catalogue(page: Page) -> None:
    """embed.js says that storage is refused in the page's language (its English text is only for
    embed.js used alone, without the lesson page), on a lesson's page and on its framed version."""
    page.add_init_script(REFUSE_STORAGE)
    for path in (OUTAGE, "/embed/an-outage"):
        page.goto(path + "?lang=pseudo")
        notice = page.get_by_role("status").filter(has_text=translate("pseudo", "site.storage_refused"))
        expect(notice).to_be_visible()
        expect(notice).to_have_text(WRAPPED)
        assert left_over(notice) == [], path
        assert left_over(page.locator(".embed-bar, .site-header").first) == [], path
