"""static/js/embed.js in a cross-origin iframe under the parent snippet from docs/embedding.md:
auto-height, statements in order, refused origins, and storage that is refused."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Frame, Page, expect

from lesson.i18n import translate
from lesson.portal import xapi
from tests import statements as tests_statements

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
# The notice store.js shows when storage is refused, from the catalogue: an author may reword it.
STORAGE_REFUSED = translate("en", "site.storage_refused")


def parent_snippet() -> str:
    text = (REPO / "docs" / "embedding.md").read_text()
    found = re.search(r"<!-- parent-snippet -->\s*```html\n(.*?)```", text, re.S)
    assert found, "docs/embedding.md lost its parent snippet"
    snippet = found.group(1)
    assert len(snippet.strip().splitlines()) <= 12
    return snippet


@pytest.fixture
def origins(static_origin: Callable[[Path], str], tmp_path: Path) -> tuple[str, str]:
    """(portal origin, lesson origin): the docs' parent snippet on one, embed.js on the other."""
    child_dir, portal_dir = tmp_path / "child", tmp_path / "portal"
    child_dir.mkdir()
    portal_dir.mkdir()
    for name in ("embed.js", "store.js"):  # embed.js takes its storage from store.js
        shutil.copy(REPO / "static" / "js" / name, child_dir / name)
    shutil.copy(HERE / "pages" / "child.html", child_dir / "child.html")
    child, portal = static_origin(child_dir), static_origin(portal_dir)
    snippet = parent_snippet().replace(
        "https://lab.example/lessons/an-outage?embed=1", f"{child}/child.html?origins={portal}"
    )
    snippet = snippet.replace('"https://lab.example"', f'"{child}"')
    refused = f"{child}/child.html?origins=https://portal.example"
    (portal_dir / "portal.html").write_text(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title>
<script>
  window.received = [];
  addEventListener("message", (e) => window.received.push({{
    frame: e.source === document.getElementById("lesson").contentWindow ? "lesson" : "other", data: e.data}}));
</script></head>
<body><h1>Portal</h1>
{snippet}
<iframe id="refused" title="Refused lesson" src="{refused}" style="width: 100%"></iframe>
</body></html>"""
    )
    return portal, child


def frame_of(page: Page, title: str) -> Frame:
    expect(
        page.frame_locator(f"iframe[title='{title}']").get_by_role("heading", name="Embedded lesson")
    ).to_be_visible()
    handle = page.locator(f"iframe[title='{title}']").element_handle()
    frame = handle.content_frame()
    frame.wait_for_function("() => window.lesson !== undefined")
    return frame


def height(page: Page) -> int:
    return page.evaluate("document.getElementById('lesson').offsetHeight")


def test_the_allowed_frame_fits_speaks_in_order_and_the_refused_one_stays_silent(
    page: Page, origins: tuple[str, str]
) -> None:
    """One portal page, two frames: the allowed one (storage that works, auto-height, origin patterns,
    statements in order) and one whose origin list leaves the portal out."""
    portal, _ = origins
    page.goto(f"{portal}/portal.html")
    lesson = frame_of(page, "MCP Churn Lab")

    # Storage that works is used and nothing is said.
    result = lesson.evaluate(
        """() => { const s = window.embedModule.safeStorage("session"); s.setItem("a", "1");
                   return {persistent: s.persistent, raw: sessionStorage.getItem("a"),
                           reason: window.embedModule.storageUnavailable()}; }"""
    )
    assert result == {"persistent": True, "raw": "1", "reason": None}, "storage that works"
    expect(page.frame_locator("iframe[title='MCP Churn Lab']").get_by_role("status")).to_be_hidden()

    # The frame grows and shrinks with the lesson.
    page.wait_for_function("document.getElementById('lesson').offsetHeight >= 200")
    lesson.evaluate("document.getElementById('filler').style.height = '3000px'")
    page.wait_for_function("document.getElementById('lesson').offsetHeight >= 3000")
    lesson.evaluate("document.getElementById('filler').style.height = '40px'")
    page.wait_for_function("document.getElementById('lesson').offsetHeight < 300")
    assert 40 <= height(page) < 300, "the frame shrank back"
    assert lesson.evaluate("getComputedStyle(document.body).overflow") == "hidden"

    # Origin patterns: a wildcard covers subdomains of exactly that scheme, host and port.
    cases = {
        "https://a.example.com": True,
        "https://a.b.example.com": True,
        "https://example.com": False,
        "https://evilexample.com": False,
        "https://a.example.com.evil.net": False,
        "https://a.example.com:8443": False,
        "http://a.example.com": False,
        "null": False,
    }
    got = lesson.evaluate(
        "cases => Object.keys(cases).map(o => [o, window.embedModule.originAllowed(['https://*.example.com'], o)])",
        cases,
    )
    assert dict(got) == cases
    assert lesson.evaluate("window.embedModule.originAllowed(['*'], 'https://any.example')") is True
    assert lesson.evaluate("window.embedModule.originAllowed(['https://a.example'], 'https://a.example:444')") is False

    # Statements arrive in order, with the right fields.
    lesson.evaluate(
        """() => {
            const e = window.lesson.emitter;
            e.experienced("why-churn", "Why churn");
            e.answered("q1", "b", true);
            e.answered("q2", "a", false);
            e.goalCompleted("outage-recovered");
            e.lessonCompleted("Hot-swapping");
            e.lessonScored(4, 5);
        }"""
    )
    page.wait_for_function(
        "window.received.filter(m => m.data.context === 'lesson' && m.data.action === 'statement').length >= 6"
    )
    received = page.evaluate("window.received")
    assert {"context": "lesson", "action": "ready"} in [m["data"] for m in received]
    statements = [m["data"]["statement"] for m in received if m["data"].get("action") == "statement"]
    parsed = [xapi.validate_statement(s) for s in statements]
    assert [p.verb.id.rsplit("/", 1)[1] for p in parsed] == [
        "experienced",
        "answered",
        "answered",
        "completed",
        "completed",
        "passed",
    ]
    base = "https://lab.example/lessons/an-outage"
    assert [p.object.id for p in parsed] == [
        f"{base}/section/why-churn",
        f"{base}/question/q1",
        f"{base}/question/q2",
        f"{base}/goal/outage-recovered",
        base,
        base,
    ]
    # The page builds what the tests' builder (tests/statements.py, which the outbox and store tests
    # send) builds: the two cannot drift apart unnoticed.
    actor = parsed[0].actor
    built = [
        tests_statements.experienced(actor, base, "why-churn", "Why churn"),
        tests_statements.answered(actor, base, "q1", "b", True),
        tests_statements.answered(actor, base, "q2", "a", False),
        tests_statements.goal_completed(actor, base, "outage-recovered"),
        tests_statements.lesson_completed(actor, base, "Hot-swapping"),
        tests_statements.lesson_scored(actor, base, 4, 5),
    ]

    def shape(statement: dict) -> dict:
        return {k: v for k, v in statement.items() if k not in ("id", "timestamp")}

    assert [shape(s) for s in statements] == [shape(b.to_json()) for b in built]
    # Each part names its lesson, and every statement the course, so a store reports them together.
    for p in parsed:
        assert p.context.contextActivities.grouping[0].id == "https://lab.example/"
        parent = p.context.contextActivities.parent
        assert (parent is None) == (p.object.id == base) and (parent is None or parent[0].id == base)
    assert statements[1]["result"] == {"success": True, "response": "b"}
    assert statements[2]["result"] == {"success": False, "response": "a"}
    assert statements[5]["result"]["score"] == {"scaled": 0.8, "raw": 4, "min": 0, "max": 5}
    assert len({p.id for p in parsed}) == 6
    assert len({p.actor.account.name for p in parsed}) == 1  # one visitor throughout

    # A statement made before the parent answers 'ready' waits for its answer, which may name the
    # learner: it is not sent under an anonymous visitor the learner then replaces.
    lesson.evaluate(
        """portal => {
            const e = window.embedModule.createEmitter(window.lesson.channel);
            e.ready();
            e.experienced("early", "Sent before the parent answered");
            const data = {context: "lesson", action: "resume", progress: null, learner: {id: "learner-7"}};
            dispatchEvent(new MessageEvent("message", {data, origin: portal, source: parent}));
        }""",
        portal,
    )
    page.wait_for_function(
        "window.received.some(m => m.data.action === 'statement' && m.data.statement.object.id.endsWith('/early'))"
    )
    early = next(
        m["data"]["statement"]
        for m in page.evaluate("window.received")
        if m["data"].get("action") == "statement" and m["data"]["statement"]["object"]["id"].endswith("/early")
    )
    assert early["actor"]["account"]["name"] == "learner-7"
    # One still held when the page is left goes out then: it would never be sent again. (A channel of the
    # test's own counts what is sent, at once, before the wait for the parent could run out.)
    held, sent = lesson.evaluate(
        """() => {
            const sent = [];
            const channel = {enabled: true, on: () => {}, send: (m) => sent.push(m.action)};
            const e = window.embedModule.createEmitter(channel);
            e.ready();
            e.experienced("leaving", "Sent as the page was left");
            const held = sent.filter((a) => a === "statement").length;
            dispatchEvent(new PageTransitionEvent("pagehide"));
            return [held, sent.filter((a) => a === "statement").length];
        }"""
    )
    assert (held, sent) == (0, 1)

    # A refused origin neither hears nor is heard.
    refused = frame_of(page, "Refused lesson")
    assert refused.evaluate("window.lesson.channel.send({context: 'lesson', action: 'ready'})") is False
    assert refused.evaluate("window.lesson.emitter.experienced('why-churn')")["verb"]  # built, never posted
    refused.evaluate(
        """() => {
            window.probe = {heard: false, resumedBefore: false};
            let resumed = false;
            addEventListener("lesson:resume", () => { resumed = true; });
            // Registered after embed.js's listener, so this runs after it has handled the same message.
            addEventListener("message", () => { window.probe = {heard: true, resumedBefore: resumed}; });
        }"""
    )
    page.evaluate(
        """document.getElementById('refused').contentWindow.postMessage(
            {context: 'lesson', action: 'resume', progress: {v: 1}, learner: {id: 'x'}}, '*')"""
    )
    refused.wait_for_function("window.probe.heard")
    assert refused.evaluate("window.probe.resumedBefore") is False, "a refused origin's resume was taken"
    # Both frames loaded and the allowed one talked: nothing came from the refused one.
    assert all(m["frame"] == "lesson" for m in page.evaluate("window.received")), "the refused frame posted"


def test_refused_storage_falls_back_to_memory_and_says_so_once(
    context: BrowserContext, page: Page, origins: tuple[str, str]
) -> None:
    portal, child = origins
    port = child.rsplit(":", 1)[1]
    context.add_init_script(
        f"""if (location.port === "{port}") {{
            const refuse = () => {{ throw new DOMException("third-party storage is blocked", "SecurityError"); }};
            Object.defineProperty(window, "sessionStorage", {{ get: refuse }});
            Object.defineProperty(window, "localStorage", {{ get: refuse }});
            window.storageEvents = 0;
            addEventListener("lesson:storage-unavailable", () => window.storageEvents++);
        }}"""
    )
    page.goto(f"{portal}/portal.html")
    lesson = frame_of(page, "MCP Churn Lab")
    framed = page.frame_locator("iframe[title='MCP Churn Lab']")
    expect(framed.get_by_role("status")).to_have_text(STORAGE_REFUSED)
    result = lesson.evaluate(
        """() => {
            const m = window.embedModule, s = m.safeStorage("session"), l = m.safeStorage("local");
            s.setItem("handle", "h-1");
            l.setItem("k", 2);
            const again = m.safeStorage("session").getItem("handle");
            return {persistent: s.persistent, handle: s.getItem("handle"), again,
                    local: l.getItem("k"), reason: m.storageUnavailable(), events: window.storageEvents};
        }"""
    )
    assert result == {
        "persistent": False,
        "handle": "h-1",
        "again": "h-1",
        "local": "2",
        "reason": "SecurityError",
        "events": 1,
    }
    # Statements still flow without storage (the visitor id lives in memory).
    lesson.evaluate("window.lesson.emitter.experienced('why-churn')")
    page.wait_for_function("window.received.some(m => m.data.action === 'statement')")


def test_in_a_cross_site_frame_with_third_party_storage_blocked(
    blocking_context: BrowserContext, origins: tuple[str, str], tmp_path: Path
) -> None:
    portal, child = origins
    # localhost and 127.0.0.1 are different sites, so the lesson frame becomes third-party.
    cross_site = child.replace("127.0.0.1", "localhost")
    html = (tmp_path / "portal" / "portal.html").read_text().replace(child, cross_site)
    (tmp_path / "portal" / "cross-site.html").write_text(html)
    page = blocking_context.new_page()
    page.goto(f"{portal}/cross-site.html")
    lesson = frame_of(page, "MCP Churn Lab")
    assert lesson.url.startswith(cross_site)
    refused = lesson.evaluate("() => { try { sessionStorage.length; return 'allowed'; } catch (e) { return e.name; } }")
    assert refused == "SecurityError", "this Chromium did not block third-party storage"

    framed = page.frame_locator("iframe[title='MCP Churn Lab']")
    expect(framed.get_by_role("status")).to_have_text(STORAGE_REFUSED)
    result = lesson.evaluate(
        """() => { const s = window.embedModule.safeStorage("session"); s.setItem("handle", "h-2");
                   return {persistent: s.persistent, handle: s.getItem("handle")}; }"""
    )
    assert result == {"persistent": False, "handle": "h-2"}
    # The rest carries on: the frame still fits its content and statements still reach the portal.
    lesson.evaluate("document.getElementById('filler').style.height = '2500px'")
    page.wait_for_function("document.getElementById('lesson').offsetHeight >= 2500")
    lesson.evaluate("window.lesson.emitter.answered('q1', 'b', true)")
    page.wait_for_function("window.received.some(m => m.data.action === 'statement')")
    statement = next(
        m["data"]["statement"] for m in page.evaluate("window.received") if m["data"].get("action") == "statement"
    )
    assert xapi.validate_statement(statement).result.success is True
