"""The guided path through the outage playground: a walk-through whose every moment keeps cause and effect
in one view (the control pressed, the rows it changed, the model's next prompt), asks its predictions
before the press that answers them, and shows each reveal where the eye already is."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from lesson.content.course import default_root
from lesson.content.panels import PlaygroundPanel, load_panels
from lesson.content.scripts import load_scripts, presses

from .helpers import lesson_holding, message, panel

pytestmark = pytest.mark.e2e

PANEL = "outage"
OUTAGE = load_panels(default_root())[PANEL]
assert isinstance(OUTAGE, PlaygroundPanel)
# The walk-through whose presses pass both predictions: the call on A, A dying, and A coming back.
SCRIPT = next(s for s in load_scripts(default_root()).values() if s.panel == PANEL and s.title.startswith("An outage"))


IN_VIEW = """el => { const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  if (r.top < -1 || r.bottom > innerHeight + 1 || r.left < -1) return false;
  const x = r.left + Math.min(8, r.width / 2), y = r.top + Math.min(8, r.height / 2);
  const top = document.elementFromPoint(x, y);
  return top !== null && (el.contains(top) || top.contains(el)); }"""


def in_view(page: Page, target: Locator) -> bool:
    """Whether the element comes to sit inside the viewport, not cut off by a box that scrolls it: a
    condition waited for (the page aligns the playground after it draws), not read at one instant."""
    try:
        page.wait_for_function(IN_VIEW, arg=target.element_handle(), timeout=10_000)
    except Exception:
        return False
    return True


# The text a sighted learner sees: text in elements that are rendered and larger than the 1 px box that
# keeps words for screen readers only, and not scrolled out of a box that scrolls.
VISIBLE_TEXT = """el => {
  const out = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || !parent.checkVisibility({ visibilityProperty: true })) continue;
    const r = parent.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;
    // Scrolled out of a box that scrolls (the log, the stage) is out of sight too.
    let clipped = false;
    for (let a = parent.parentElement; a && a !== document.body && !clipped; a = a.parentElement) {
      if (getComputedStyle(a).overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      clipped = r.bottom <= b.top || r.top >= b.bottom;
    }
    if (!clipped) out.push(node.textContent);
  }
  return out.join(" ");
}"""


def repeated_sentences(text: str) -> list[str]:
    """Sentences of 8 or more words that appear more than once in the text."""
    seen: dict[str, int] = {}
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = sentence.split()
        if len(words) >= 8:
            key = " ".join(words).lower()
            seen[key] = seen.get(key, 0) + 1
    return [s for s, n in seen.items() if n > 1]


def prediction(section: Locator, button_id: str) -> Locator:
    q = next(p for p in OUTAGE.predictions if p.button == button_id)
    return section.get_by_role("group", name=re.compile("^Predict first: " + re.escape(q.question[:30])))


@pytest.mark.parametrize("size", [(1280, 800)], ids=["1280"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_guided_path_keeps_cause_and_effect_in_view(page: Page, size: tuple[int, int], scheme: str) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
    page.goto(lesson_holding(PANEL))
    section = panel(page, OUTAGE.title)
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    section.get_by_role("button", name=message("scenario.play", title=SCRIPT.title)).click()
    nxt = section.get_by_role("button", name=message("scenario.next"))
    servers = section.get_by_role("region", name=re.compile("^Servers")).get_by_role("table")
    prompt = section.get_by_role("region", name=re.compile("^Tools in the model's next prompt"))
    asked: set[str] = set()
    revealed: set[str] = set()
    for n, step in enumerate(SCRIPT.steps, start=1):
        if n > 1:
            nxt.click()
        pressed = presses(step)
        moment = message("scenario.step", n=n, total=len(SCRIPT.steps), title=step.title)
        expect(section.get_by_text(moment, exact=True)).to_be_visible()
        leave = section.get_by_role("button", name=message("scenario.leave"))
        if n < len(SCRIPT.steps):
            expect(nxt).to_be_enabled()
        control = nxt if n < len(SCRIPT.steps) else leave
        assert in_view(page, control), f"moment {n}: the control is out of view"
        changed = servers.locator("[data-mark]")
        for i in range(changed.count()):
            assert in_view(page, changed.nth(i)), f"moment {n}: a changed row is out of view"
        assert in_view(page, prompt.get_by_role("heading")), f"moment {n}: the prompt is out of view"
        for q in OUTAGE.predictions:
            question = prediction(section, q.button)
            result = question.get_by_text(re.compile("^(Your prediction was right|Not quite|You did not pick)"))
            if q.button in pressed and q.button in asked:
                expect(result).to_be_visible()
                assert in_view(page, result), f"moment {n}: the reveal is out of view"
                revealed.add(q.button)
            elif question.is_visible() and q.button not in asked:
                # Asked before the press that answers it: pick the right choice, as a learner might.
                asked.add(q.button)
                choice = next(c for c in q.choices if c.id == q.answer)
                question.get_by_role("radio", name=choice.text).check()
        if "a-back" in pressed:
            # The restart's cost, era by era, beside the table and the reveal that predicted it.
            cost = section.get_by_text(message("cost.title"))
            expect(cost).to_be_visible()
            assert in_view(page, cost), f"moment {n}: the cost is out of view"
        visible = section.evaluate(VISIBLE_TEXT)
        assert repeated_sentences(visible) == [], f"moment {n}: said twice: {repeated_sentences(visible)}"
        results = Axe().run(page, context=f'[data-panel-id="{PANEL}"]')
        assert results.violations_count == 0, results.generate_report()
    # The walk-through passed both central predictions: the host-built error, and the restart's cost.
    assert revealed == {p.button for p in OUTAGE.predictions}
