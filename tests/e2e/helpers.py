"""Locators shared by the browser tests: every one goes by role, accessible name or text.

The page renders the simulation's view as it is, so these helpers only know the page's structure
(a panel is a region named by its heading; inside it, regions for the servers, the prompt, the log,
the comparison and the wire), never the protocol.
"""

from __future__ import annotations

import re

from playwright.sync_api import FrameLocator, Locator, Page, expect

from lesson.content.course import default_root, load_content, load_panels
from lesson.content.scenarios import Scenario
from lesson.i18n import translate
from lesson.narration import sentence
from lesson.sim.step import msg

# The outage playground's comparison heading, from its panel file: an author may rename it.
OUTAGE_COMPARISON = load_panels(default_root())["outage"].titles["comparison"]


def button_label(panel_id: str, button_id: str) -> str:
    """A playground button's label, from its panel file (an author may reword it)."""
    return load_panels(default_root())[panel_id].button(button_id).label


def lesson_holding(panel_id: str) -> str:
    """The address of the lesson page that shows this panel, looked up in the loaded content: a test
    opens a playground wherever the course places it."""
    for lesson in load_content(default_root()).lessons:
        if panel_id in lesson.panels:
            return f"/lessons/{lesson.meta.slug}"
    raise LookupError(f"no lesson shows the panel {panel_id!r}")


# The course's lessons, by the playground each holds (a lesson is one idea, with at most two panels).
CHURN = "/lessons/servers-come-and-go"  # who's who, the churn stepper
LESSON_2 = "/lessons/list-changed"  # the guide playground
OUTAGE = "/lessons/an-outage"
RESTARTS = "/lessons/restarts"  # the restart lab
ANSWERING = "/lessons/a-question-across-a-restart"
GATEWAYS = "/lessons/gateways-and-handles"  # the gateway and handles playgrounds


def message(key: str, **values: str | int) -> str:
    """A script's UI message as the page shows it in English, from the catalogue (``js.`` keys): a test
    that checks a whole status sentence follows an author's rewording of it."""
    return translate("en", f"js.{key}", **values)


def heading(n: int, kind: str, **values: object) -> str:
    """A log entry's heading as the page shows it in English: "Step n: " and what was pressed, the event's
    heading (``narration.event.<kind>``) filled with the values it names."""
    return message("log.step", n=n, label=sentence(f"narration.event.{kind}", values))


def step_label(n: object) -> re.Pattern[str]:
    """A log entry's heading for step n, whatever was pressed: its start from the catalogue ("Step n: ")."""
    return re.compile("^" + re.escape(message("log.step", n=n, label="")))


# The number in a log entry's heading ("Step 7: A dies" holds 7), read by the catalogue's own words.
STEP_NUMBER = re.compile(re.escape(message("log.step", n=0, label="").strip()).replace("0", r"(\d+)", 1))


def narrated(code: str, **values: object) -> str:
    """Something the simulation says (``narration.*``) as the page shows it in English."""
    return sentence(code, values)


def narrated_lead(code: str) -> str:
    """The words of a ``narration.*`` sentence before its first value, for a cell whose value (a session id)
    a test cannot know: "GET SSE stream (session "."""
    return re.split(r"\{", translate("en", code), maxsplit=1)[0]


def lead(key: str, lang: str = "en", **values: object) -> str:
    """A catalogue message filled with ``values``, up to its first placeholder not among them."""
    text = translate(lang, f"js.{key}")
    cut = next((m.start() for m in re.finditer(r"\{(\w+)\}", text) if m.group(1) not in values), len(text))
    return text[:cut].format(**values).rstrip()


def quiz_score(scope: Page | FrameLocator | Locator) -> Locator:
    """The quick check's score line: the first status in its region (each question's feedback follows)."""
    return scope.get_by_role("region", name=translate("en", "quiz.label")).get_by_role("status").first


def score_text(correct: int, total: int, answered: int) -> str:
    return message("quiz.score", correct=correct, total=total, answered=answered)


def score_pattern(**known: int) -> re.Pattern[str]:
    """The score line with the values a test knows, and any number for the others."""
    parts = re.split(r"(\{\w+\})", translate("en", "js.quiz.score"))
    body = "".join(
        (str(known[p[1:-1]]) if p[1:-1] in known else r"\d+") if p.startswith("{") else re.escape(p) for p in parts
    )
    return re.compile(f"^{body}$")


START = message("log.start")  # the log's first entry, before any press
TO_LEGACY = {"era": msg("narration.era_name.legacy")}  # a switch to the legacy era, as its heading names it


def moment_title(n: int, total: int = 6) -> re.Pattern[str]:
    """A stepper moment's heading by its number; the title after it is content an author may rename."""
    return re.compile("^" + re.escape(message("moment", n=n, total=total, title="")))


def panel(page: Page, title: str) -> Locator:
    """A playground or stepper panel: a <section aria-labelledby> named by its h3."""
    return page.get_by_role("region", name=title, exact=True)


def region(scope: Locator, name: str) -> Locator:
    """A region inside a panel, by the start of its name: the page may add the panel's title after
    the region's own heading ("Servers, as the host sees them, Play out an outage")."""
    return scope.get_by_role("region", name=re.compile("^" + re.escape(name)))


def restart_lab(page: Page) -> Locator:
    """The restart lab, scrolled to as a learner would: its code is fetched as it nears the screen.
    (The filter makes sure this is the lab, the region with the "Restart the server" button, whatever
    else shares its heading.)"""
    lab = page.get_by_role("region", name="Restarts, era by era", exact=True).filter(
        has=page.get_by_role("button", name="Restart the server")
    )
    lab.scroll_into_view_if_needed()
    return lab


def open_playground(page: Page, path: str, title: str) -> Locator:
    """Load a page and wait until the playground has its first view (its buttons start disabled)."""
    page.goto(path)
    section = panel(page, title)
    section.scroll_into_view_if_needed()  # its code is fetched as it nears the screen
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()
    expect(section.get_by_role("status")).to_have_text(message("playground.ready"))
    return section


def choose_era(section: Locator, era: str) -> None:
    """Choose the era the host speaks ("legacy" or "modern"), by keyboard: Space on its radio button, named
    as the catalogue names it. With motion on, a click could land while the page still scrolls a press's
    changes into view, on the other button; a key goes to the focused one."""
    radio = section.get_by_role("radio", name=translate("en", f"js.era.{era}"))
    radio.press("Space")
    expect(radio).to_be_checked()


def press(section: Locator, label: str, step: int) -> None:
    """Press one event button and wait until the log holds that step as its newest entry. The log is read
    whichever tab is on view (a test reading the wire or the two eras keeps its tab through a press)."""
    section.get_by_role("button", name=label, exact=True).click()
    newest = section.locator('[data-region="log"] li.step > p.step-label').last
    expect(newest).to_have_text(step_label(step))


def servers(section: Locator) -> Locator:
    return region(section, "Servers, as the host sees them").get_by_role("table")


def server_row(section: Locator, name: str, table: Locator | None = None) -> Locator:
    """The row whose row header is the server's name, e.g. "A (docs)" or "B (tracker, behind G)"."""
    # `has` is resolved inside each row, so it starts from the page, not from the table.
    rowheader = section.page.get_by_role("rowheader", name=re.compile(rf"^{name} \("))
    return (table or servers(section)).get_by_role("row").filter(has=rowheader)


# The era is a property of the host: the table says it once, in its caption, and has no Era column.
COLUMNS = ["Server", "Status", "Stream", "Tools", "Last change", "Last error"]


def expect_era(section: Locator, era: str, table: Locator | None = None) -> None:
    """The era the host speaks ("legacy" or "modern"), as the servers table names itself."""
    table = table or servers(section)
    expect(table).to_have_accessible_name(message("servers.era_once", era=message(f"era.{era}")))
    expect(table.get_by_role("columnheader", name="Era")).to_have_count(0)


def server_cell(section: Locator, name: str, column: str, table: Locator | None = None) -> Locator:
    """One cell of a server's row, by its column header (the first column is the row header).
    ``table`` is for a server table outside a "Servers" region (the restart lab's "Afterwards")."""
    table = table or servers(section)
    expect(table.get_by_role("columnheader")).to_have_text(COLUMNS)
    return server_row(section, name, table).get_by_role("cell").nth(COLUMNS.index(column) - 1)


def expect_status(section: Locator, name: str, status: str, table: Locator | None = None) -> None:
    """The Status cell as a screen reader reads it: the status (an id: ``connected``, ``down``...) in the
    catalogue's words; the mark before the word is aria-hidden."""
    expect(server_cell(section, name, "Status", table)).to_have_accessible_name(message(f"status.{status}"))


def prompt(section: Locator) -> Locator:
    return region(section, "Tools in the model's next prompt")


def prompt_tool(section: Locator, tool: str, server: str) -> Locator:
    """A tool in the next prompt ("close_ticket from B", "search_docs from A via G"), not its entry in
    the "Gone" list. The badge may follow the server's name with no space between: "from Cnew since…"."""
    return prompt(section).get_by_role("listitem").filter(has_text=tool_text(tool, server))


def tool_text(tool: str = r"\w+", server: str = r"[A-Z]") -> re.Pattern[str]:
    return re.compile(rf"^{tool} from {server}( via [A-Z])?\s*({re.escape(NEW)})?$")


NEW = message("prompt.new")


def gone_list(section: Locator) -> Locator:
    return prompt(section).get_by_role("list", name=message("prompt.gone_label"))


def show_tab(section: Locator, name: str) -> None:
    """Choose one of the playground's tabs (the log, the two eras, the wire: one is on view at a time),
    when the playground shows them as tabs."""
    tab = section.get_by_role("tab", name=name, exact=True)
    if tab.count() and tab.get_attribute("aria-selected") != "true":
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true")


def log(section: Locator) -> Locator:
    show_tab(section, "What happened")
    return region(section, "What happened")


def log_labels(section: Locator) -> Locator:
    """The step labels of the log, oldest first: "Start", "Step 1: A dies", …"""
    return log(section).get_by_role("paragraph")


def log_step(section: Locator, label: str) -> Locator:
    """One step of the log (its label and its lines), e.g. "Step 6: The model takes a turn"."""
    return log(section).get_by_role("listitem").filter(has=section.page.get_by_text(label, exact=True))


def comparison(section: Locator, title: str = "The same step, era by era") -> Locator:
    show_tab(section, "Both eras")
    return region(section, title)


def era_sides(section: Locator, title: str = "The same step, era by era") -> tuple[Locator, Locator]:
    """The legacy and the modern side of the comparison. The two sides carry no name of their own,
    so check their headings' order first, then take each side by its heading."""
    cmp = comparison(section, title)
    expect(cmp.get_by_role("heading", level=5)).to_have_text(
        [re.compile(r"^Legacy \(2025-11-25\)"), re.compile(r"^Modern \(2026-07-28\)")]
    )
    side = lambda era: cmp.locator("section").filter(  # noqa: E731
        has=section.page.get_by_role("heading", level=5, name=re.compile(f"^{era} "))
    )
    return side("Legacy"), side("Modern")


def wire_region(section: Locator) -> Locator:
    """The wire region (its diagrams), its tab chosen."""
    show_tab(section, "Wire")
    return region(section, "Wire")


def wire(section: Locator) -> Locator:
    """The wire region, expanded (the messages sit in a <details> a person opens)."""
    show_tab(section, "Wire")
    found = region(section, "Wire")
    if found.get_by_role("group").get_attribute("open") is None:
        found.get_by_text("Wire messages of the last step").click()
    return found


def do_task(scope: Page | FrameLocator, n: int) -> None:
    """Do lesson 1's task question (question n) in the outage playground: C is added, a call on A, A dies
    during it, a model turn; then "Check my playground". The page is left in reduced motion: an answer
    scrolls its changes into view, smoothly otherwise, and a click aimed while that scroll runs can
    land beside the button meant, or on nothing."""
    page = scope if isinstance(scope, Page) else scope.owner.page
    page.emulate_media(reduced_motion="reduce")
    outage = scope.get_by_role("region", name="Play out an outage", exact=True)
    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    # One press at a time, each answered before the next.
    steps = log_labels(outage).count()
    for label in ("Add server C", "The model calls a tool on A", "A dies", "Take a model turn"):
        outage.get_by_role("button", name=label, exact=True).click()
        steps += 1
        expect(log_labels(outage)).to_have_count(steps)
    expect(log_labels(outage).last).to_have_text(re.compile(re.escape(narrated("narration.event.take_turn")) + "$"))
    quiz = scope.get_by_role("region", name="Quick check questions")
    quiz.get_by_role("button", name=f"Check my playground to question {n}").click()


def scenario_box(section: Locator, s: Scenario) -> Locator:
    """The box a scenario replays in, beside its playground."""
    return section.get_by_role("region", name=f"Scenario: {s.title}")


def expect_step(section: Locator, s: Scenario, n: int) -> None:
    """Step n of the scenario is on show in its box (its title and narration) and said in the box's one
    live region, with what its presses did."""
    box = scenario_box(section, s)
    step = s.steps[n - 1]
    moment = message("moment", n=n, total=len(s.steps), title=step.title)
    expect(box.get_by_text(moment, exact=True)).to_be_visible()
    said = box.get_by_role("status")
    expect(said).to_contain_text(moment)
    expect(said).to_contain_text(step.narration)


def takes_room(locator: Locator) -> bool:
    """Whether an element takes room on screen: a status kept for screen readers only (the page
    shows the same words elsewhere) is a 1 px box; one nobody else shows is a line of text."""
    box = locator.bounding_box()
    return box is not None and box["height"] > 1


def refuse_first(n: int, tries: list[str]):
    """A route handler that refuses the first ``n`` requests it sees and lets later ones through,
    noting every URL asked for in ``tries``."""

    def handle(route) -> None:
        tries.append(route.request.url)
        if len(tries) <= n:
            route.abort()
        else:
            route.continue_()

    return handle


def position(page: Page):
    return page.get_by_role("navigation", name="Presenter controls").get_by_role("status")


def screen_number(page: Page) -> tuple[int, int]:
    found = re.search(r"Screen (\d+) of (\d+)", position(page).inner_text())
    assert found, position(page).inner_text()
    return int(found.group(1)), int(found.group(2))


def go_to_screen_of(page: Page, part: Locator) -> None:
    """Next, screen by screen, until ``part`` shows (once presenter mode has split the lesson)."""
    expect(position(page)).to_have_text(re.compile(r"^Screen 1 of \d+$"))
    for _ in range(screen_number(page)[1]):
        if part.is_visible():
            return
        page.get_by_role("button", name="Next", exact=True).click()
    expect(part).to_be_visible()
