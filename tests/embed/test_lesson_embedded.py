"""The real lesson in a cross-origin iframe (the parent on a second loopback origin, speaking the
docs' parent snippet): no site chrome, refused storage, every playground, auto-height, statements
in order; the app mounted under /training/mcp/; progress exported and imported. (That only the
configured origin may frame the lesson is the served CSP: tests/embed/test_embed_routes.py.)"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Frame, FrameLocator, Locator, Page, expect

from lesson.i18n import translate
from lesson.portal import xapi
from tests.threads import serve_in_thread

from ..e2e.helpers import do_task, message, quiz_score, score_pattern, score_text, step_label
from .conftest import site_and_app
from .test_embed_e2e import parent_snippet

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
SLUG = "an-outage"
# The notice a page shows when storage is refused, from the catalogue: an author may reword it.
STORAGE_REFUSED = translate("en", "site.storage_refused")
QUESTIONS = yaml.safe_load((REPO / "content" / "quizzes" / f"{SLUG}.yaml").read_text())["questions"]


def portal_page(folder: Path, lesson_url: str, app: str, name: str = "portal.html") -> None:
    snippet = parent_snippet().replace("https://lab.example/lessons/an-outage?embed=1", lesson_url)
    snippet = snippet.replace('"https://lab.example"', f'"{app}"')
    (folder / name).write_text(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title>
<script>
  window.received = [];
  addEventListener("message", (e) => window.received.push(e.data));
</script></head>
<body><h1>Portal</h1>
{snippet}
</body></html>"""
    )


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(portal page URL, app URL): the app allows the portal's origin, and only it. One for the module:
    the tests only read it, each in a browser context of its own."""
    folder = tmp_path_factory.mktemp("portal")
    with site_and_app(folder) as (origin, app):
        portal_page(folder, f"{app}/embed/{SLUG}", app)
        # localhost and 127.0.0.1 are different sites: on this page the lesson frame is third-party.
        cross = app.replace("127.0.0.1", "localhost")
        portal_page(folder, f"{cross}/embed/{SLUG}", cross, name="cross-site.html")
        yield f"{origin}/portal.html", app


def refuse_storage(context: BrowserContext, app: str) -> None:
    """Storage refused to the app's pages, as a portal with third-party storage blocked does."""
    port = app.rsplit(":", 1)[1]
    context.add_init_script(
        f"""if (location.port === "{port}") {{
            const refuse = () => {{ throw new DOMException("third-party storage is blocked", "SecurityError"); }};
            Object.defineProperty(window, "sessionStorage", {{ get: refuse }});
            Object.defineProperty(window, "localStorage", {{ get: refuse }});
        }}"""
    )


def lesson_frame(page: Page, app: str) -> tuple[FrameLocator, Frame]:
    framed = page.frame_locator("#lesson")
    expect(framed.get_by_role("heading", level=1)).to_be_visible()
    frame = next(f for f in page.frames if f.url.startswith(app))
    return framed, frame


def statements(page: Page) -> list[dict]:
    return [m["statement"] for m in page.evaluate("window.received") if m.get("action") == "statement"]


# The task question's answer is the outage playground's log, ending with the presses that do it.
TASK_DONE = re.compile(r"^outage:modern::([a-z0-9-]+,)*add-c,call-a,a-dies,turn$")


def held_answer(q: dict, held: str) -> str:
    """What the page holds for a question answered right: its choice, or for a task the log it did."""
    if "task" in q:
        assert TASK_DONE.match(held), held
        return held
    return q["answer"]


def answer_all(scope: Page | FrameLocator, wrong: int = 0, then_right: bool = False) -> None:
    """Answer every question of the quick check, the first `wrong` of them wrongly (a task is done right);
    with `then_right`, each wrong answer is followed by the right one, which must change no score."""
    quiz = scope.get_by_role("region", name="Quick check questions")
    score = quiz_score(scope)
    for n, q in enumerate(QUESTIONS, 1):
        if "task" in q:
            do_task(scope, n)
            expect(score).to_have_text(score_pattern(answered=n))
            continue
        choice = q["answer"] if n > wrong else next(c for c in q["choices"] if c["id"] != q["answer"])["id"]
        text = next(c["text"] for c in q["choices"] if c["id"] == choice)
        quiz.get_by_role("radio", name=text).check()
        quiz.get_by_role("button", name="Check answer").nth(n - 1).click()
        expect(score).to_have_text(score_pattern(answered=n))
        if then_right and choice != q["answer"]:
            before = score.text_content()
            right = next(c["text"] for c in q["choices"] if c["id"] == q["answer"])
            quiz.get_by_role("radio", name=right).check()
            quiz.get_by_role("button", name="Check answer").nth(n - 1).click()
            form = quiz.locator(f"#q-{q['id']}")
            expect(form.get_by_text(message("quiz.right"))).to_be_visible()  # the explanation of the right answer...
            expect(form.get_by_text(message("quiz.first.wrong", first=text))).to_be_visible()  # ...and what counted
            expect(score).to_have_text(before)


def playgrounds(scope: FrameLocator) -> Locator:
    return scope.locator('[data-panel="playground"]')


def reveal(section: Locator) -> None:
    """A playground may wait behind a closed disclosure: open it, as a learner would."""
    closed = section.locator("xpath=ancestor::details[not(@open)]")
    if closed.count():
        closed.first.locator("> summary").click()


def test_the_lesson_in_a_cross_origin_frame_with_storage_refused_scores_and_reports_in_order(
    context: BrowserContext, page: Page, portal: tuple[str, str]
) -> None:
    """Storage refused to the frame: no site chrome, the notice said once, the quiz graded from memory,
    and the statements reach the portal in order (a right answer after a wrong one reports nothing).
    That every playground starts without storage: the blocking-Chromium test below."""
    url, app = portal
    refuse_storage(context, app)
    page.goto(url)
    framed, frame = lesson_frame(page, app)
    # No site chrome: no banner, no footer, no links to other lessons; the lesson's own heading stays.
    expect(framed.get_by_role("banner")).to_have_count(0)
    expect(framed.get_by_role("contentinfo")).to_have_count(0)
    expect(framed.get_by_role("navigation", name="Lessons")).to_have_count(0)
    expect(framed.get_by_role("heading", level=1)).to_have_text(re.compile("An outage"))
    # Said once, on the page, that progress will not survive a reload.
    notice = framed.get_by_text(STORAGE_REFUSED, exact=True)
    expect(notice).to_have_count(1)
    expect(notice).to_be_visible()
    assert frame.evaluate("() => { try { localStorage.length; return 'allowed'; } catch (e) { return e.name; } }") == (
        "SecurityError"
    )

    page.wait_for_function("window.received.some(m => m.context === 'lesson' && m.action === 'ready')")
    # A portal that answers with saved progress keeps it: the notice then says what outlives a reload.
    page.evaluate(
        "o => document.querySelector('iframe').contentWindow.postMessage("
        "{context: 'lesson', action: 'resume', progress: null, learner: null}, o)",
        app,
    )
    expect(notice).to_have_count(0)
    expect(framed.get_by_text(translate("en", "site.storage_portal"), exact=True)).to_be_visible()
    first_section = frame.evaluate("document.querySelector('article.lesson h2[id]').id")
    framed.locator(f"h2#{first_section}").scroll_into_view_if_needed()  # a section is seen when shown
    page.wait_for_function(
        "id => window.received.some(m => m.action === 'statement' && m.statement.object.id.endsWith('/section/' + id))",
        arg=first_section,
    )
    frame.evaluate(
        "document.dispatchEvent(new CustomEvent('lesson:goal', {detail: {panel: 'outage', goal: 'Recover'}}))"
    )
    answer_all(framed, wrong=1, then_right=True)  # the right answer after the wrong one reports nothing
    n = len(QUESTIONS)
    # The quiz keeps its answers in memory: the score is right without storage.
    expect(quiz_score(framed)).to_have_text(score_text(n - 1, n, n))
    page.wait_for_function(
        """() => window.received.filter(m => m.action === 'statement'
                 && /\\/(passed|failed)$/.test(m.statement.verb.id)).length === 1"""
    )
    got = statements(page)
    parsed = [xapi.validate_statement(s) for s in got]  # every one is a valid statement
    verbs = [p.verb.id.rsplit("/", 1)[1] for p in parsed]
    iri = f"{app}/lessons/{SLUG}"
    assert parsed[0].object.id == f"{iri}/section/{first_section}"
    not_sections = [(v, p) for v, p in zip(verbs, parsed, strict=True) if v != "experienced"]
    assert [v for v, _ in not_sections] == ["completed"] + ["answered"] * n + ["completed", "failed"]
    goal, *answers, done, scored = [p for _, p in not_sections]
    assert goal.object.id == f"{iri}/goal/outage"
    assert [a.object.id for a in answers] == [f"{iri}/question/{q['id']}" for q in QUESTIONS]
    assert [a.result.success for a in answers] == [False] + [True] * (n - 1)
    for q, a in zip(QUESTIONS[1:], answers[1:], strict=True):
        assert a.result.response == held_answer(q, a.result.response)  # a task's response is its log
    # A task's response is no choice: its interaction says so.
    kinds = {q["id"]: ("other" if "task" in q else "choice") for q in QUESTIONS}
    assert {a.object.id.rsplit("/", 1)[1]: a.object.definition.interactionType for a in answers} == kinds
    assert "other" in kinds.values()
    assert done.object.id == iri and scored.object.id == iri
    assert scored.result.score.scaled == round((n - 1) / n, 4)
    assert scored.result.score.raw == n - 1 and scored.result.score.max == n
    assert len({p.actor.account.name for p in parsed}) == 1
    # Sections are reported once each.
    sections = [p.object.id for p in parsed if p.verb.id.endswith("/experienced")]
    assert len(sections) == len(set(sections))


def test_with_chromium_blocking_third_party_storage_the_frame_fits_and_every_playground_works(
    blocking_context: BrowserContext,  # noqa: F811
    portal: tuple[str, str],
) -> None:
    url, app = portal
    cross = app.replace("127.0.0.1", "localhost")  # the lesson frame is third-party on this page
    page = blocking_context.new_page()
    page.goto(url.replace("/portal.html", "/cross-site.html"))
    framed = page.frame_locator("#lesson")
    expect(framed.get_by_role("heading", level=1)).to_be_visible()
    frame = next(f for f in page.frames if f.url.startswith(cross))
    refused = frame.evaluate("() => { try { sessionStorage.length; return 'allowed'; } catch (e) { return e.name; } }")
    assert refused == "SecurityError", "this Chromium did not block third-party storage"
    expect(framed.get_by_text(STORAGE_REFUSED, exact=True)).to_have_count(1)

    # The frame fits the lesson as it grows and shrinks. The playgrounds fill in once the catalogue and
    # their first answers arrive: read the height after.
    expect(framed.get_by_role("button", name="A dies").first).to_be_enabled()
    frame_height = "document.getElementById('lesson').offsetHeight"
    content = frame.evaluate("document.body.scrollHeight")
    page.wait_for_function(f"Math.abs({frame_height} - {content}) <= 4")
    assert content > 2000, "the whole lesson shows at full height, with no scrollbar of its own"
    assert frame.evaluate("getComputedStyle(document.body).minHeight") in ("0px", "auto")
    frame.evaluate(
        """() => { const d = document.createElement('div'); d.id = 'extra'; d.style.height = '3000px';
                   document.querySelector('main').append(d); }"""
    )
    page.wait_for_function(f"{frame_height} >= {content + 2900}")
    frame.evaluate("document.getElementById('extra').remove()")
    page.wait_for_function(f"{frame_height} <= {content + 100}")

    # Every playground starts, and a press reaches the server and comes back as a step.
    count = playgrounds(framed).count()
    assert count >= 1
    for i in range(count):
        section = playgrounds(framed).nth(i)
        reveal(section)
        expect(section.get_by_role("status").first).to_have_text(message("playground.ready"))
        section.get_by_role("group", name="Events").get_by_role("button").first.click()
        expect(section.get_by_text(step_label(1)).first).to_be_visible()


def test_the_embedded_page_passes_axe(page: Page, live_server: str) -> None:
    page.goto(f"{live_server}/embed/{SLUG}")
    expect(page.get_by_role("button", name="Download my progress")).to_be_visible()
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


def test_in_the_frame_links_presses_scenarios_and_start_over_scroll_the_portal(
    page: Page, portal: tuple[str, str]
) -> None:
    """The frame is as tall as the lesson, so only the portal's page scrolls: a contents link, a press's
    changes, a scenario's box and Start over's fresh top must reach the portal's view (they used to
    scroll the frame, which moves nothing)."""
    url, app = portal
    page.set_viewport_size({"width": 800, "height": 700})
    page.goto(url)
    framed, _ = lesson_frame(page, app)
    expect(framed.get_by_role("button", name="A dies").first).to_be_enabled()
    contents = framed.get_by_role("navigation", name=re.compile("contents|this lesson", re.I))
    contents.locator("summary").click()
    link = contents.get_by_role("link").last  # the section furthest down: a short lesson has few
    section = framed.locator(link.get_attribute("href"))
    expect(section).not_to_be_in_viewport()
    link.click()
    expect(section, "a contents link scrolls the portal").to_be_in_viewport()

    outage = framed.get_by_role("region", name="Play out an outage", exact=True)
    outage.get_by_role("button", name="Add server C").scroll_into_view_if_needed()
    outage.get_by_role("button", name="Add server C").click()
    expect(outage.get_by_role("row").filter(has_text="C (calendar)"), "a press's change").to_be_in_viewport()

    start_over = framed.get_by_role("button", name="Start over", exact=True)
    start_over.scroll_into_view_if_needed()
    start_over.click()
    # The heading as it is before Start over, marked so that only the page loaded afresh is read after.
    framed.get_by_role("heading", level=1).evaluate("h => { h.dataset.before = 'start over'; }")
    dialog = framed.get_by_role("dialog", name="Start this lesson over?")
    keep = dialog.get_by_role("button").first  # the safe choice, focused: on the portal's screen, all of it
    expect(keep).to_be_focused()
    expect(keep, "the dialog under the button reaches the portal's view").to_be_in_viewport(ratio=1)
    dialog.get_by_role("button", name="Start over").click()
    # The lesson loads afresh with its top on the portal's screen, not the middle the button was in.
    afresh = framed.locator("h1:not([data-before])")
    expect(afresh, "Start over shows the lesson's top").to_be_in_viewport()

    expect(outage.get_by_role("button", name="Reset")).to_be_enabled()
    play = outage.get_by_role("button", name=re.compile("^Walk me through it: ")).first
    play.scroll_into_view_if_needed()
    play.click()
    box = outage.get_by_role("region", name=re.compile("^Scenario: "))
    for n in (2, 3):
        box.get_by_role("button", name="Next moment").click()
        expect(box.get_by_text(re.compile(rf"^Moment {n} of ")).first, "the scenario's moment").to_be_in_viewport()
        expect(box.get_by_role("button", name="Next moment")).to_be_in_viewport()


@pytest.fixture
def mounted() -> Iterator[str]:
    """The app mounted under /training/mcp/ by WSGI dispatch, as a proxy with a sub-path does."""
    from werkzeug.middleware.dispatcher import DispatcherMiddleware
    from werkzeug.serving import make_server
    from werkzeug.wrappers import Response

    from lesson.web import create_app

    app = create_app({"SECRET_KEY": "sub"})
    root = Response("not here", status=404)
    server = make_server("127.0.0.1", 0, DispatcherMiddleware(root, {"/training/mcp": app}), threaded=True)
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_under_a_sub_path_answers_are_graded_kept_exported_and_imported_in_a_fresh_browser(
    page: Page, browser, mounted: str, tmp_path: Path
) -> None:
    """The app mounted under /training/mcp/ end to end (pages, sockets, grading), and the progress file:
    saved with the first answer (the one that scored), loaded in a browser with nothing stored."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"{mounted}/training/mcp/")
    page.get_by_role("link", name=re.compile("An outage")).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("An outage"))
    section = page.locator('[data-panel="playground"]').first
    expect(section.get_by_role("status").first).to_have_text(message("playground.ready"))
    section.get_by_role("group", name="Events").get_by_role("button").first.click()
    expect(section.get_by_text(step_label(1)).first).to_be_visible()
    answer_all(page, wrong=1, then_right=True)  # the file keeps the first answer, the one that scored
    n = len(QUESTIONS)
    page.reload()  # the answers come back, graded again through /training/mcp/api
    expect(quiz_score(page)).to_have_text(score_text(n - 1, n, n))
    assert sockets and all(u.startswith(mounted.replace("http", "ws") + "/training/mcp/ws") for u in sockets)
    expect(page.locator("#connection")).not_to_contain_text(message("transport.http"))
    ours = [u for u in seen if u.startswith(mounted)]
    assert any("/static/" in u for u in ours) and any("/api/quiz/" in u for u in ours)
    assert all(u.startswith(f"{mounted}/training/mcp/") for u in ours), [u for u in ours if "/training/mcp/" not in u]

    page.evaluate(
        "document.dispatchEvent(new CustomEvent('lesson:goal', {detail: {panel: 'outage', goal: 'Recover'}}))"
    )
    with page.expect_download() as info:
        page.get_by_role("button", name="Download my progress").click()
    saved = tmp_path / "progress.json"
    info.value.save_as(saved)
    data = json.loads(saved.read_text())
    assert data["lesson"] == SLUG and data["goals"] == ["outage"]
    wrong = next(c["id"] for c in QUESTIONS[0]["choices"] if c["id"] != QUESTIONS[0]["answer"])
    held = data["answers"]
    assert held == {q["id"]: held_answer(q, held[q["id"]]) for q in QUESTIONS} | {QUESTIONS[0]["id"]: wrong}

    fresh = browser.new_context()
    try:
        other = fresh.new_page()
        other.goto(page.url)
        score = quiz_score(other)
        expect(score).to_have_text(score_text(0, n, 0))
        # A file that is not progress changes nothing and says so.
        bad = tmp_path / "bad.json"
        bad.write_text('{"hello": 1}')
        other.get_by_label("Load progress from a file").set_input_files(bad)
        expect(other.get_by_text(message("progress.bad_file"), exact=True)).to_be_visible()
        expect(score).to_have_text(score_text(0, n, 0))
        other.get_by_label("Load progress from a file").set_input_files(saved)
        expect(score).to_have_text(score_text(n - 1, n, n))
        loaded = other.get_by_role("status").filter(has_text=message("progress.answers.many", n=n))
        expect(loaded).to_contain_text(message("progress.goals.one", n=1))
        expect(other.get_by_text(message("quiz.wrong"))).to_have_count(1)
        # Held by this page now: a reload keeps it.
        other.reload()
        expect(quiz_score(other)).to_have_text(score_text(n - 1, n, n))
    finally:
        fresh.close()


def test_with_a_record_store_the_page_sends_its_statements_to_the_server(
    page: Page, serve_app: Callable[..., str], tmp_path
) -> None:
    # Nothing listens on port 9: the server keeps them in its outbox and retries; the lesson never waits.
    app = serve_app(LRS_ENDPOINT="http://127.0.0.1:9/xapi", OUTBOX_URL=f"sqlite:///{tmp_path}/outbox.db")
    page.goto(f"{app}/lessons/{SLUG}")
    quiz = page.get_by_role("region", name="Quick check questions")
    q = QUESTIONS[0]
    quiz.get_by_role("radio", name=next(c["text"] for c in q["choices"] if c["id"] == q["answer"])).check()
    with page.expect_response(
        lambda r: r.url == f"{app}/api/xapi" and "/answered" in (r.request.post_data or "")
    ) as info:
        quiz.get_by_role("button", name="Check answer").first.click()
    assert info.value.status == 202
    sent = [xapi.validate_statement(s) for s in info.value.request.post_data_json]
    answered = next(s for s in sent if s.verb.id.endswith("/answered"))
    assert answered.object.id == f"{app}/lessons/{SLUG}/question/{q['id']}" and answered.result.success is True
    expect(quiz.get_by_text(message("quiz.right"))).to_be_visible()


def test_progress_saved_on_the_former_lesson_loads_where_each_part_went(page: Page, live_server: str, tmp_path: Path):
    """A file from before the lesson was split: each new lesson takes what it holds, and says so."""
    old = {
        "format": "mcp-churn-lab-progress",
        "v": 1,
        "lesson": "hot-swapping",
        "saved": "2026-11-01T08:00:00Z",
        "sections": ["play-out-an-outage", "who-s-who"],
        "answers": {"discover": "c", "next-turn": "a", "idle-restart": "b"},
        "goals": ["outage", "gateway"],
    }
    saved = tmp_path / "hot-swapping-progress.json"
    saved.write_text(json.dumps(old))
    page.goto(f"{live_server}/lessons/servers-come-and-go")
    score = quiz_score(page)
    page.get_by_label("Load progress from a file").set_input_files(saved)
    # Its two questions came across, graded again: one right, one wrong.
    expect(score).to_have_text(score_text(1, 2, 2))
    said = page.get_by_role("status").filter(has_text="hot-swapping")
    expect(said).to_contain_text(message("progress.answers.many", n=2))
    expect(said).to_contain_text(message("progress.goals.many", n=0))
    # The outage lesson takes the outage playground's goal and none of the answers.
    page.goto(f"{live_server}/lessons/an-outage")
    page.get_by_label("Load progress from a file").set_input_files(saved)
    said = page.get_by_role("status").filter(has_text="hot-swapping")
    expect(said).to_contain_text(message("progress.answers.many", n=0))
    expect(said).to_contain_text(message("progress.goals.one", n=1))
    # A lesson that was never part of it refuses the file, as any other lesson's.
    page.goto(f"{live_server}/lessons/list-changed")
    page.get_by_label("Load progress from a file").set_input_files(saved)
    expect(page.get_by_text(message("progress.bad_file"), exact=True)).to_be_visible()
