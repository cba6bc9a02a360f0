"""Everyone, everywhere: lines that break where they should and controls that stay in reach at 375 px and
on a wide screen, a light/dark/auto theme switch that is remembered (even where storage is refused), a
print stylesheet that prints the text, reduced motion honoured. (No sideways scroll at 375/320 px and no
axe violations in either theme are checked page by page in test_pages.py, on the page's one load.)"""

from __future__ import annotations

import contextlib
import json
import re

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from lesson.content.course import default_root, load_panels
from lesson.i18n import translate

from .helpers import (
    ANSWERING,
    GATEWAYS,
    LESSON_2,
    OUTAGE,
    RESTARTS,
    button_label,
    log_labels,
    open_playground,
    panel,
    press,
    restart_lab,
    servers,
    show_tab,
    wire,
)

pytestmark = pytest.mark.e2e

NARROW = {"width": 375, "height": 800}
PHONE = {"width": 375, "height": 740}
WIRE = translate("en", "playground.wire")


def resize(page: Page, width: int, height: int = 800) -> None:
    """Narrow or widen the window as a person does, and wait until the page has the new width."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("(w) => window.innerWidth === w", arg=width)


# Each place where a line breaks inside inline code in the lesson's text, with the characters either
# side of it: "tools/|list" is a break after a slash, "list_chang|ed" one inside a word.
CODE_BREAKS = """() => {
  const out = [];
  for (const code of document.querySelectorAll("article :not(pre) > code")) {
    if (code.getClientRects().length < 2) continue;
    const text = code.textContent;
    const range = document.createRange();
    let top = null, at = 0;
    for (const node of [...code.childNodes].filter((n) => n.nodeType === 3)) {
      for (let i = 0; i < node.length; i++, at++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        const around = `${text.slice(Math.max(0, at - 6), at)}|${text.slice(at, at + 6)}`;
        if (top !== null && rect.top > top + 2) out.push(around);
        top = rect.top;
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize(("widths", "present"), [((375, 320), False), ((375,), True)])
def test_inline_code_breaks_between_words_not_inside_them(
    browser: Browser, base_url: str, widths: tuple[int, ...], present: bool
) -> None:
    """Each lesson loaded once and read at each width, narrowed as a window is."""
    # The course's lessons together: a short lesson's code may all fit a line at one width or another.
    context = browser.new_context(base_url=base_url, viewport={"width": widths[0], "height": 800})
    page = context.new_page()
    breaks: dict[int, list[str]] = {width: [] for width in widths}
    for path in (OUTAGE, LESSON_2, RESTARTS, GATEWAYS):
        page.goto(path + ("?present=1" if present else ""))
        for width in widths:
            resize(page, width)
            breaks[width] += page.evaluate(CODE_BREAKS)
        if present:  # one section per screen: read each screen
            bar = page.get_by_role("navigation", name="Presenter controls")
            while bar.get_by_role("button", name="Next", exact=True).is_enabled():
                bar.get_by_role("button", name="Next", exact=True).click()
                breaks[widths[0]] += page.evaluate(CODE_BREAKS)
    for width, found in breaks.items():
        assert found, f"no inline code wraps at {width} px: the test covers nothing"
        # After a space, after a slash, underscore, dot or hyphen that follows a letter, or between the
        # words of a CamelCase name.
        inside = [b for b in found if not re.search(r"(?:[^/_.\s][/_.-]|\s)\||[a-z]\|[A-Z]", b)]
        assert not inside, f"inline code broken inside a word at {width} px: {inside}"
    context.close()


TWO_LINES_AT_MOST = """el => { const s = getComputedStyle(el);
  const text = el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
  return text <= 2 * parseFloat(s.lineHeight) + 1; }"""


def buttons_fit_the_bar(page: Page, section) -> None:
    """On a phone the event buttons are one row in the bar at the foot of the screen, swiped or tabbed
    along: the whole bar takes at most a quarter of the screen, a button focused comes into view whole, and
    an edge with buttons beyond it fades (a button cut there shows it too)."""
    section.get_by_role("region", name=re.compile("^Servers")).scroll_into_view_if_needed()
    events = section.get_by_role("group", name="Events")
    buttons = events.get_by_role("button").all()
    assert len(buttons) >= 4
    bar = events.locator("..").bounding_box()  # the controls: era, events, Undo and Reset
    assert bar["height"] <= page.viewport_size["height"] / 4, bar
    whole_in_view = 0.99  # a fraction of a pixel may fall to rounding
    expect(buttons[0]).to_be_in_viewport(ratio=whole_in_view)
    expect(buttons[-1]).not_to_be_in_viewport(ratio=whole_in_view)  # these labels do not fit one row at 375 px
    expect(events).to_have_class(re.compile(r"\bmore-after\b"))
    whole = section.bounding_box()
    buttons[0].focus()
    for n, button in enumerate(buttons):
        if n:
            page.keyboard.press("Tab")
        expect(button).to_be_focused()
        expect(button).to_be_in_viewport(ratio=whole_in_view)
        box = button.bounding_box()
        assert box["x"] >= whole["x"] and box["x"] + box["width"] <= whole["x"] + whole["width"] + 1, box
        # A label takes two lines at most (the row is as tall as its tallest button), and the focus ring
        # is drawn inside the button, since the row clips what sticks out of it.
        assert button.evaluate(TWO_LINES_AT_MOST), f"{button.inner_text()!r} takes more than two lines"
        if n:
            assert button.evaluate("el => parseFloat(getComputedStyle(el).outlineOffset) < 0")
    expect(events).to_have_class(re.compile(r"\bmore-before\b"))
    expect(events).not_to_have_class(re.compile(r"\bmore-after\b"))


COVERED_BY_BAR = """() => { const e = document.activeElement;
  const b = e.closest('.playground')?.querySelector('.stage > .controls');
  if (!b || b.contains(e) || getComputedStyle(b).position !== 'sticky') return null;
  const r = e.getBoundingClientRect(), c = b.getBoundingClientRect();
  return [e.textContent.trim().slice(0, 30), r.bottom, c.top]; }"""


def test_a_playground_on_a_phone(browser: Browser, base_url: str) -> None:
    """A playground at 375 px, read and used as on a phone: the server table is cards that are still a
    table; the event buttons fit the bar at the foot of the screen; before any press there is no way back
    to offer; after a press the button pressed stays in view and the bar covers neither what is read nor
    the focus. Then lesson 2's buttons in the bar, and a playground read down to without a press."""
    context = browser.new_context(base_url=base_url, viewport=PHONE, reduced_motion="reduce")
    page = context.new_page()
    outage = open_playground(page, OUTAGE, "Play out an outage")
    back = outage.get_by_role("button", name="Back to the events")

    # Each server is a card, and it is still a table to a screen reader.
    table = outage.get_by_role("table").first
    expect(table.get_by_role("rowheader", name=re.compile(r"^A \("))).to_be_visible()
    expect(table.get_by_role("columnheader", name="Status")).to_have_count(1)
    # The label drawn before each value is for the eye: a screen reader hears the column header instead.
    row = table.get_by_role("row").filter(has=page.get_by_role("rowheader", name=re.compile(r"^A \(")))
    expect(row.get_by_role("cell").first).to_have_accessible_name("connected")
    box = table.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 375

    buttons_fit_the_bar(page, outage)

    # Read down to the wire without a press: the bar stays, and no button leads back to a press.
    show_tab(outage, "Wire")
    summary = outage.get_by_text(WIRE)
    summary.scroll_into_view_if_needed()
    expect(outage.get_by_role("group", name="Events")).to_be_in_viewport()  # the controls' bar
    expect(back).to_be_hidden()

    # After a press, and read on down to the wire, the button pressed is still in view and the bar
    # covers nothing brought into view (no way back to the buttons is needed).
    turn = outage.get_by_role("button", name="Take a model turn")
    press(outage, "Take a model turn", 1)
    expect(turn).to_be_in_viewport()
    summary.scroll_into_view_if_needed()
    expect(turn).to_be_in_viewport()
    bar = outage.get_by_role("group", name="Events").bounding_box()
    shown = summary.bounding_box()
    assert shown["y"] + shown["height"] <= bar["y"] + 1, "the bar covers the summary"
    expect(back).to_be_hidden()

    # Tabbing on through the playground brings each control outside the bar into view above it.
    press(outage, "B deploys a new tool", 2)
    outage.get_by_role("button", name="Show a hint").focus()
    covered = []
    for _ in range(30):
        page.keyboard.press("Tab")
        found = page.evaluate(COVERED_BY_BAR)
        if found and found[1] > found[2] + 1:
            covered.append(found)
    assert covered == [], covered

    guide = open_playground(page, LESSON_2, "Misbehaving servers")
    buttons_fit_the_bar(page, guide)

    # A playground read down to without a press (one in a disclosure below its buttons): its buttons
    # have not been above the screen, so nothing leads back to them.
    page.goto(ANSWERING)
    answering = panel(page, "A restart while the user is answering")
    answering.scroll_into_view_if_needed()  # its code is fetched as it nears the screen
    expect(answering.get_by_role("button", name="Reset")).to_be_enabled()
    expect(answering.get_by_role("button", name="Back to the events")).to_be_hidden()
    context.close()


def test_on_the_narrowest_phone_the_bar_takes_a_quarter_of_the_screen(browser: Browser, base_url: str) -> None:
    """At 320 by 568 px the controls' bar names each era without its date, so the choice takes one line
    and the bar at most a quarter of the screen; each radio's name keeps the date."""
    context = browser.new_context(base_url=base_url, viewport={"width": 320, "height": 568})
    page = context.new_page()
    outage = open_playground(page, OUTAGE, "Play out an outage")
    eras = outage.get_by_role("group", name=translate("en", "era.legend"))
    legacy = eras.get_by_role("radio", name=translate("en", "js.era.legacy"), exact=True)
    modern = eras.get_by_role("radio", name=translate("en", "js.era.modern"), exact=True)
    expect(legacy).to_be_visible()
    assert abs(legacy.bounding_box()["y"] - modern.bounding_box()["y"]) < 2, "the eras take two lines"
    bar = outage.get_by_role("group", name="Events").locator("..").bounding_box()
    assert bar["height"] <= 568 / 4, bar
    context.close()


WRAPS = """(pre) => {
  // Each line of the JSON that the screen wrapped: where its text starts, and where its later rows start.
  const out = [];
  for (const line of pre.querySelectorAll(".ln")) {
    const range = document.createRange();
    range.selectNodeContents(line);
    const ind = line.querySelector(".ind");
    if (ind) range.setStartAfter(ind);
    // The text may be several nodes (a long name has break points): its rows by their tops.
    const rows = new Map();
    for (const r of range.getClientRects()) {
      if (r.width <= 0) continue;
      const top = Math.round(r.top);
      rows.set(top, Math.min(rows.get(top) ?? Infinity, r.left));
    }
    const lefts = [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, left]) => left);
    if (lefts.length > 1) out.push({ first: lefts[0], later: lefts.slice(1) });
  }
  return out;
}"""


def json_on_a_phone(page: Page, in_wire: str, in_lesson: str):
    """A JSON block of the wire list that holds ``in_wire`` and one of the lesson's messages that holds
    ``in_lesson``, its disclosure open."""
    wire = page.locator("ol.wire pre").filter(has_text=in_wire).first
    lesson = page.locator("figure.message pre").filter(has_text=in_lesson).first
    lesson.evaluate("(pre) => pre.closest('details')?.setAttribute('open', '')")
    return wire, lesson


def test_the_wire_of_the_outage_lesson_on_a_phone(browser: Browser, base_url: str) -> None:
    """At 375 px, after one press: a JSON line too long for the screen goes on under its own indent, not
    at the left edge, and the text is still the JSON (a copy parses), in the lesson and in the
    playground's wire; a header too long for its line moves its value down whole (the version never reads
    "2026-07-" / "28"). Then, in the legacy era, a 32-character session id breaks into lines of about the
    same length, never leaving a character or two on a line of their own."""
    # Reduced motion: on a phone each press scrolls the page to its changes, and the next click must not be
    # aimed while a smooth scroll is still moving its button.
    context = browser.new_context(base_url=base_url, viewport=NARROW, reduced_motion="reduce")
    page = context.new_page()
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "B deploys a new tool", 1)
    wire(outage)
    for pre in json_on_a_phone(page, '"method": "tools/list"', "is not reachable"):
        expect(pre).to_be_visible()
        wrapped = pre.evaluate(WRAPS)
        assert wrapped, "no line wraps at 375 px: the test no longer covers a long line"
        for line in wrapped:
            assert all(left > line["first"] for left in line["later"]), line
        assert isinstance(json.loads(pre.inner_text()), dict)

    header = outage.locator("ol.wire code").filter(has_text=re.compile(r"^MCP-Protocol-Version: ")).first
    expect(header).to_have_text(re.compile(r"^MCP-Protocol-Version: \d{4}-\d{2}-\d{2}$"))
    name, value = (b.bounding_box() for b in header.locator("span").all())
    assert value["y"] > name["y"], "at 375 px the header no longer fills its line: the test covers nothing"
    assert value["height"] <= name["height"] + 1, "the value breaks inside itself"

    outage.get_by_role("button", name="Reset").click()
    expect(log_labels(outage)).to_have_count(1)  # the start alone
    outage.get_by_role("radio", name=re.compile("^Legacy")).check()
    press(outage, "B deploys a new tool", 2)  # step 1 is the switch to the legacy era
    wire(outage)
    session = outage.locator("ol.wire code").filter(has_text=re.compile(r"^Mcp-Session-Id: [0-9a-f]{32}$")).first
    expect(session).to_be_visible()
    lines = session.locator("span").last.evaluate(
        """(value) => {
          const range = document.createRange();
          range.selectNodeContents(value);
          return [...range.getClientRects()].map((r) => r.width);
        }"""
    )
    assert len(lines) > 1, "the id fits its line at 375 px: the test covers nothing"
    assert min(lines) >= 0.5 * max(lines), lines
    context.close()


# The lines a word's text takes on screen (a range over its first occurrence in the element).
LINES_OF = """(el, word) => {
  const nodes = [];
  let text = "";
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    nodes.push([n, text.length]);
    text += n.data;
  }
  const at = text.indexOf(word);
  if (at < 0) return 0;
  const locate = (i) => {
    for (let j = nodes.length - 1; j >= 0; j--) if (nodes[j][1] <= i) return [nodes[j][0], i - nodes[j][1]];
  };
  const r = document.createRange();
  r.setStart(...locate(at));
  r.setEnd(...locate(at + word.length));
  return new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top))).size;
}"""


def test_a_long_json_key_breaks_after_a_separator_not_inside_a_word_at_375(browser: Browser, base_url: str) -> None:
    """`io.modelcontextprotocol/subscriptionId` does not fit a phone's line: it breaks after its slash,
    so no part of it reads like a typo, in the lesson's messages and in the playground's wire."""
    context = browser.new_context(base_url=base_url, viewport=NARROW)
    page = context.new_page()
    guide = open_playground(page, LESSON_2, "Misbehaving servers")
    press(guide, button_label("guide", "timer"), 1)
    wire(guide)
    for pre in json_on_a_phone(page, "subscriptionId", "subscriptionId"):
        expect(pre).to_be_visible()
        key = pre.locator("span.ln").filter(has_text="io.modelcontextprotocol/subscriptionId").first
        assert key.evaluate(LINES_OF, "io.modelcontextprotocol/subscriptionId") == 2, "the key fits: nothing tested"
        assert key.evaluate(LINES_OF, "subscriptionId") == 1
        assert "io.modelcontextprotocol/subscriptionId" in pre.inner_text()  # a copy reads as it was
    context.close()


def test_the_way_back_to_the_events_moves_nothing(browser: Browser, base_url: str) -> None:
    """At 1280 px, "Back to the events" shows while the event buttons are above the screen and hides once
    they are back on it. Neither moves anything: the playground keeps its height, so a button the
    learner scrolls back to stays under the pointer as it is clicked."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    page = context.new_page()
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "A dies", 1)
    back = outage.get_by_role("button", name="Back to the events")
    expect(back).to_be_hidden()
    height = outage.bounding_box()["height"]

    # Read on to the quick check below, the playground's end still on the screen: its buttons are above it.
    end = outage.evaluate("el => el.getBoundingClientRect().bottom + window.scrollY")
    page.evaluate("y => window.scrollTo(0, y)", end - 50)
    expect(back).to_be_visible()
    assert outage.bounding_box()["height"] == height

    outage.get_by_role("group", name="Events").scroll_into_view_if_needed()
    expect(back).to_be_hidden()
    assert outage.bounding_box()["height"] == height
    context.close()


def test_a_playground_on_a_wide_screen(browser: Browser, base_url: str) -> None:
    """At 1280 px: the buttons, Undo and Reset keep to a column that stays in view beside the views,
    and nothing floats over the views to lead back to them; two marked tools side by side in the prompt
    keep their outlines apart; the server table is a Tab stop only while it scrolls."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    page = context.new_page()
    outage = open_playground(page, OUTAGE, "Play out an outage")
    press(outage, "A dies", 1)
    # Read down to the views' end (the tabs keep the log and the wire to one box).
    views = outage.locator(".regions").bounding_box()
    page.evaluate("end => window.scrollBy(0, Math.max(0, end - window.innerHeight))", views["y"] + views["height"])
    expect(outage.get_by_role("group", name="Events")).to_be_in_viewport()
    expect(outage.get_by_role("button", name="Undo")).to_be_in_viewport()
    expect(outage.get_by_role("button", name="Back to the events")).to_be_hidden()

    press(outage, "A is back", 2)
    marked = outage.locator("ul.prompt li[data-mark]")
    expect(marked).to_have_count(2)
    reach = marked.evaluate_all(
        """(items) => items.map((li) => {
          const r = li.getBoundingClientRect(), s = getComputedStyle(li);
          const out = Math.max(0, parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth));
          return { top: r.top - out, bottom: r.bottom + out };
        })"""
    )
    assert reach[0]["bottom"] <= reach[1]["top"] + 0.5, reach

    # A table that fits its box is no extra Tab stop; one wider than its box is (so the keyboard can
    # scroll it). Last: this makes the table wider than any the page draws.
    box = outage.get_by_role("group", name="Servers table")
    expect(box).to_be_visible()
    expect(box).not_to_have_attribute("tabindex", re.compile("."))
    assert box.evaluate("e => getComputedStyle(e).boxShadow") == "none"
    box.evaluate("e => { e.querySelector('table').style.minWidth = '2000px'; e.style.width = '300px'; }")
    expect(box).to_have_attribute("tabindex", "0")
    # And it shows that there is more to the right: a shadow at its edge, not the clipped column alone.
    expect(box).to_have_class(re.compile(r"\bscrolls\b"))
    assert box.evaluate("e => getComputedStyle(e).boxShadow") != "none"
    context.close()


def test_the_second_lessons_table_fits_between_phone_and_desktop(browser: Browser, base_url: str) -> None:
    """Six columns with long names: where they do not fit, each row is a card, never a clipped table.
    After each press the window is set to each width in turn. At 1280 px the long identifiers
    (subscriptions/listen, delete_workspace) break after a slash or an underscore, so the whole table
    shows without scrolling sideways."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    section = open_playground(page, LESSON_2, "Misbehaving servers")
    buttons = section.get_by_role("group", name="Events").get_by_role("button")
    box = section.get_by_role("group", name="Servers table")
    admin = load_panels(default_root())["guide"].button("admin").label
    labels = [buttons.nth(n).inner_text() for n in range(buttons.count())]
    assert admin in labels  # the check of the long identifiers below runs
    for n, label in enumerate(labels):
        press(section, label, n + 1)
        if label == admin:
            table = servers(section)
            expect(table).to_contain_text("delete_workspace")
            expect(table).to_contain_text("subscriptions/listen")
            wide = table.evaluate("t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]")
            assert wide[0] <= wide[1], wide
        for width in (700, 768, 800, 1280):
            resize(page, width, 900)
            over = box.evaluate("e => e.scrollWidth - e.clientWidth")
            assert over <= 1, f"the table is {over} px wider than its box at {width} px after press {n + 1}"
    context.close()


def theme_radio(page: Page, name: str):
    return page.get_by_role("group", name="Theme").get_by_role("radio", name=name, exact=True)


def background_is_dark(page: Page, dark: bool = True) -> bool:
    """Whether the main column's background is dark (by luminance), as ``dark`` expects once the page's
    styles have caught up with a change of theme or emulated media (they do on the page's own time):
    waits for that, then answers; past the wait it answers as it is."""
    luminance = """() => { const [r, g, b] = getComputedStyle(document.querySelector('main')).backgroundColor
                             .match(/[\\d.]+/g).slice(0, 3).map(Number);
                           return 0.2126 * r + 0.7152 * g + 0.0722 * b; }"""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => (({luminance})() < 128) === {'true' if dark else 'false'}", timeout=5_000)
    return page.evaluate(luminance) < 128


def test_the_theme_switch(page: Page) -> None:
    """A labelled radio group of three, on Auto at first, which follows the system; in forced colours the
    chosen option keeps a system highlight (forced colours drop author backgrounds); the arrow keys move
    through the group as in any radio group."""
    page.emulate_media(color_scheme="dark")
    page.goto("/")
    group = page.get_by_role("group", name="Theme")
    expect(group.get_by_role("radio")).to_have_count(3)
    expect(theme_radio(page, "Auto")).to_be_checked()
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    assert background_is_dark(page)
    page.emulate_media(color_scheme="light")
    assert not background_is_dark(page, dark=False)

    page.emulate_media(forced_colors="active")
    background = "el => getComputedStyle(el.closest('label')).backgroundColor"
    page_colour = page.evaluate("getComputedStyle(document.body).backgroundColor")
    chosen = theme_radio(page, "Auto").evaluate(background)
    assert chosen != page_colour and not chosen.endswith(", 0)"), (chosen, page_colour)  # a fill that shows
    theme_radio(page, "Light").check()
    labels = group.locator("label")
    # (the radio is found inside each label)
    light = labels.filter(has=page.get_by_role("radio", name="Light", exact=True))
    auto = labels.filter(has=page.get_by_role("radio", name="Auto", exact=True))
    expect(light).to_have_css("background-color", chosen)
    expect(auto).not_to_have_css("background-color", chosen)
    expect(group).to_be_visible()
    page.emulate_media(forced_colors="none")

    theme_radio(page, "Auto").check()
    theme_radio(page, "Auto").focus()
    page.keyboard.press("ArrowRight")
    expect(theme_radio(page, "Light")).to_be_checked()


def test_dark_theme_prints_light_applies_and_persists(page: Page) -> None:
    """With the system in dark mode and the theme left on auto, the page still prints dark ink on white,
    inline code included; reduced motion is honoured; a chosen theme applies, and is remembered on
    reload and on another page."""
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    page.goto(OUTAGE)
    code = page.get_by_role("main").locator("p code").first
    screen = code.evaluate("c => getComputedStyle(c).backgroundColor")
    page.emulate_media(media="print", color_scheme="dark")
    # Read once the print styles apply (the emulation reaches the page's styles on its own time); were the
    # code's background the same on screen and in print, the dark theme did not apply and this waits out.
    ink, paper = page.wait_for_function(
        """([c, screen]) => { const s = getComputedStyle(c);
                              return s.backgroundColor !== screen && [s.color, s.backgroundColor]; }""",
        arg=[code.element_handle(), screen],
    ).json_value()

    def level(rgb: str) -> float:
        return sum(float(x) for x in re.findall(r"[\d.]+", rgb)[:3]) / 3

    assert level(ink) < 80 and level(paper) > 200, (ink, paper)

    page.emulate_media(media="screen", color_scheme="light")
    assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "auto"
    # Nothing moves in reduced motion: no element has a transition or an animation (a theme switch
    # applies at once, with no colours half-way for a frame).
    moving = """[...document.querySelectorAll('*')].filter((e) => { const s = getComputedStyle(e);
                  return s.transitionDuration !== '0s' || s.animationName !== 'none'; }).length"""
    assert page.evaluate(moving) == 0
    page.emulate_media(reduced_motion="no-preference")
    assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "smooth"

    assert not background_is_dark(page, dark=False)
    theme_radio(page, "Dark").check()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert background_is_dark(page)

    page.reload()
    expect(theme_radio(page, "Dark")).to_be_checked()
    assert background_is_dark(page)

    # Another page remembers it too.
    page.get_by_role("link", name="All lessons").click()
    expect(theme_radio(page, "Dark")).to_be_checked()
    assert background_is_dark(page)

    theme_radio(page, "Light").check()
    page.emulate_media(color_scheme="dark")
    page.reload()
    expect(theme_radio(page, "Light")).to_be_checked()
    assert not background_is_dark(page, dark=False)


def test_theme_switch_works_when_storage_is_refused(browser: Browser, base_url: str) -> None:
    """In a cross-site iframe the browser may refuse localStorage: the switch still works for the page."""
    context = browser.new_context(base_url=base_url)
    context.add_init_script(
        "Object.defineProperty(window, 'localStorage', "
        "{get() { throw new DOMException('refused', 'SecurityError'); }});"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/")
    theme_radio(page, "Dark").check()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert background_is_dark(page)
    assert errors == []
    context.close()


def test_print_shows_the_text_not_the_controls(page: Page) -> None:
    page.goto(RESTARTS)
    lab = restart_lab(page)
    expect(lab.get_by_role("button", name="Restart the server")).to_be_enabled()
    page.emulate_media(media="print")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_role("heading", level=2).first).to_be_visible()
    expect(page.locator("article.lesson > p").first).to_be_visible()
    expect(page.get_by_role("button", name="Restart the server")).to_be_hidden()
    expect(page.get_by_role("group", name="Theme")).to_be_hidden()
    expect(page.get_by_role("link", name="Skip to the lesson")).to_be_hidden()
    page.emulate_media(media="screen")
    expect(page.get_by_role("button", name="Restart the server")).to_be_visible()
