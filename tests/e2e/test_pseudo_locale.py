"""The page scripts take their UI strings from the catalogue too: in the pseudo-locale every string the
converted scripts write (transport, stepper, restart lab, quiz, scenarios, start over, presenter) is
wrapped in ⟦…⟧. playground.js and render.js are not converted yet, so their output is not checked."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import LESSON_1

pytestmark = pytest.mark.e2e

WRAPPED = re.compile(r"^⟦.*⟧$", re.S)


def test_script_strings_come_from_the_catalogue(page: Page) -> None:
    page.goto(LESSON_1 + "?lang=pseudo")
    stepper = page.get_by_role("region", name="A session with churn", exact=True)
    expect(stepper.get_by_role("heading", level=4)).to_have_text(re.compile(r"^⟦Moment 1 of \d+: .*⟧$"))
    for name in ("Servers, as the host sees them", "What happened"):
        expect(stepper.get_by_role("heading", name=f"⟦{name}⟧")).to_be_visible()
    expect(stepper.get_by_role("status")).to_have_text(WRAPPED)

    lab = page.locator('[data-panel="restarts"]')
    lab.get_by_role("button", name="⟦Restart the server⟧").click()
    expect(lab.get_by_role("status")).to_have_text(re.compile(r"^⟦Restarted while .*⟧$"))
    expect(lab.locator(".result-for")).to_have_text(re.compile(r"^⟦Result for a restart while .*⟧"))
    expect(lab.locator("summary").first).to_have_text(re.compile(r"^⟦Wire messages \(\d+\)⟧$"))

    quiz = page.locator("[data-quiz]")
    quiz.get_by_role("button", name=re.compile("^⟦Check answer⟧")).first.click()
    expect(quiz.locator(".verdict").first).to_have_text("⟦Pick an answer first.⟧")
    quiz.get_by_role("radio").first.check()
    quiz.get_by_role("button", name=re.compile("^⟦Check answer⟧")).first.click()
    expect(quiz.locator('[data-role="score"]')).to_have_text(re.compile(r"^⟦Score: \d of \d correct \(1 answered\)⟧$"))
    expect(quiz.locator(".verdict strong").first).to_have_text(re.compile(r"^⟦(Correct\.|Not quite\.)⟧$"))

    outage = page.locator('[data-panel-id="outage"]')
    offers = outage.locator("[data-scenario]")
    expect(offers.first).to_have_text(re.compile(r"^⟦Play the scenario: .*⟧$"))
    expect(offers).to_have_count(2)
    expect(page.get_by_role("link", name="⟦Present this lesson⟧")).to_be_visible()
    page.get_by_role("button", name="⟦Start over⟧").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_role("heading")).to_have_text("⟦Start this lesson over?⟧")
    for button in dialog.get_by_role("button").all():
        expect(button).to_have_text(WRAPPED)
    page.keyboard.press("Escape")

    page.goto(LESSON_1 + "?lang=pseudo&present=1")
    bar = page.get_by_role("navigation", name="⟦Presenter controls⟧")
    expect(bar.get_by_role("status")).to_have_text(re.compile(r"^⟦Screen 1 of \d+⟧$"))
    for control in bar.get_by_role("button").all() + bar.get_by_role("link").all():
        expect(control).to_have_text(WRAPPED)
