"""Page size and weight: for every lesson page, what a learner meets at load (visible words, page height at
1280 and at 375 px wide with every disclosure closed, playgrounds and other panels, quick-check
questions, the computed time estimate, the bytes of a first view); then what lesson 1's first view
transfers (compressed), and what a repeat view fetches.

Drives Debian's Chromium (as the browser tests do) against the app on loopback; a WSGI wrapper
counts every request and the bytes of every body as they leave the app (after compression).

The first view is what loads when the page opens in a 1280x800 window and settles: the first
playground ready and the network idle. Then the page is scrolled to its end a screen at a time, so
what loads on demand (the stepper's moments) is counted too ("whole page"). The repeat view opens
the page again and scrolls it to its end: everything but the page itself must come from the cache.

    .venv/bin/python bench/page_bench.py [--files]

`--files` lists what each lesson page's first view fetched, with each body's compressed size in KB.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.web import create_app, lesson_state  # noqa: E402
from lesson.web.server import make_dev_server  # noqa: E402
from tests.conftest import CHROMIUM_ARGS, find_chromium  # noqa: E402


class Counter:
    def __init__(self, app) -> None:
        self.app = app
        self.seen: list[tuple[str, int]] = []

    def __call__(self, environ, start_response):
        path = environ["PATH_INFO"]
        size = 0
        for chunk in self.app(environ, start_response):
            size += len(chunk)
            yield chunk
        self.seen.append((path, size))


SCROLL_THROUGH = """async () => {
  for (let y = 0; y <= document.body.scrollHeight; y += 600) {
    window.scrollTo(0, y);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  }
}"""


def settle(page) -> None:
    """Until a playground near the first screen is ready (its buttons enabled) and the network is idle. A
    playground far below is left alone: its code comes as it nears the screen, after the first view."""
    near = """() => [...document.querySelectorAll('[data-panel="playground"]')]
      .some((s) => s.getBoundingClientRect().top < innerHeight + 400)"""
    # A locator's wait, not wait_for_function: the page's CSP forbids evaluating a string.
    if page.evaluate(near):
        expect(page.locator("[data-button]").first).to_be_enabled(timeout=30_000)
    page.wait_for_load_state("networkidle")


# What a learner meets at load, measured in the page: words of the article's rendered text (a closed
# disclosure's content is not rendered; the prose figure leaves out the panels and the quick check),
# and the panels and questions it holds.
MEASURE = """() => {
  const words = (text) => text.split(/\\s+/).filter(Boolean).length;
  const article = document.querySelector("article.lesson");
  const prose = article.cloneNode(true);
  for (const el of prose.querySelectorAll("section.panel, section.quiz, nav.toc")) el.remove();
  document.body.append(prose);  // innerText needs a rendered node
  prose.style.cssText = "position:absolute;left:-99999px;width:" + article.clientWidth + "px";
  const proseWords = words(prose.innerText);
  prose.remove();
  return {
    words: words(article.innerText),
    prose: proseWords,
    open: document.querySelectorAll("article details[open]").length,
    playgrounds: document.querySelectorAll('section[data-panel="playground"]').length,
    panels: document.querySelectorAll("section[data-panel-id]").length,
    questions: document.querySelectorAll("form.question").length,
    kicker: document.querySelector(".kicker")?.textContent.trim() || "",
  };
}"""
HEIGHT = "document.documentElement.scrollHeight"
# The height once the page has laid itself out again (after a change of width): two frames later.
AFTER_LAYOUT = (
    "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame("
    "() => done(document.documentElement.scrollHeight))))"
)
TARGET_LESSON_KB = 40  # each lesson page's first view, compressed


def measure_lessons(browser, base: str, counter: Counter, lessons, files: bool = False) -> None:
    print("lesson pages at load (every disclosure closed):")
    head = f"  {'lesson':<28} {'words':>5} {'prose':>5} {'h@1280':>7} {'h@375':>7} {'play':>4} {'panels':>6}"
    print(head + f" {'quest':>5} {'min':>4} {'KB':>6}  first view target")
    for lesson in lessons:
        # A context of its own: an empty cache, so the bytes are a first view's.
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        counter.seen.clear()
        page.goto(f"{base}/lessons/{lesson.meta.slug}")
        settle(page)
        size = sum(n for path, n in counter.seen if path != "/ws")
        m = page.evaluate(MEASURE)
        assert m["open"] == 0, "a disclosure is open at load: the heights would not be the closed page's"
        wide = page.evaluate(HEIGHT)
        page.set_viewport_size({"width": 375, "height": 812})
        narrow = page.evaluate(AFTER_LAYOUT)
        context.close()
        verdict = "met" if size <= TARGET_LESSON_KB * 1000 else "MISSED"
        print(
            f"  {lesson.meta.slug:<28} {m['words']:>5} {m['prose']:>5} {wide:>7} {narrow:>7} {m['playgrounds']:>4}"
            f" {m['panels']:>6} {m['questions']:>5} {lesson.minutes:>4} {size / 1000:>6.1f}"
            f"  at most {TARGET_LESSON_KB} KB: {verdict}"
        )
        # The page shows the same estimate the content computes.
        assert f"{lesson.minutes} minutes" in m["kicker"], m["kicker"]
        if files:  # what the first view fetched, largest first
            seen = sorted(((n, path.rsplit("/", 1)[-1]) for path, n in counter.seen if path != "/ws"), reverse=True)
            print("    " + ", ".join(f"{name} {n / 1000:.1f}" for n, name in seen))
    print(
        "  words: the article's rendered text; prose: without panels and quick check; h: page height in px;"
        " play: playgrounds; min: the computed estimate (docs/content.md)"
    )


def scroll_through(page) -> None:
    page.evaluate(SCROLL_THROUGH)
    # The stepper's moments, fetched on the way; on a busy machine a screen can go by between two of the
    # observer's checks, so the stepper is brought into view once more before waiting for them.
    if not page.locator('[data-panel="stepper"]').count():
        return
    page.locator('[data-panel="stepper"]').scroll_into_view_if_needed()
    page.get_by_text("Moment 1 of").filter(visible=True).first.wait_for()
    page.wait_for_load_state("networkidle")


TARGET_KB = TARGET_LESSON_KB  # lesson 1 is held to what every lesson page is


def lesson_state_of(app):
    with app.app_context():
        return lesson_state()


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app({"SECRET_KEY": "bench"})
    counter = Counter(app.wsgi_app)
    app.wsgi_app = counter
    server = make_dev_server("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    url = f"{base}/lessons/{lesson_state_of(app).content.lessons[0].meta.slug}"
    path = find_chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(headless=True, args=CHROMIUM_ARGS, **({"executable_path": path} if path else {}))
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url)
        settle(page)
        first = [s for s in counter.seen if s[0] != "/ws"]
        counter.seen.clear()
        scroll_through(page)
        later = [s for s in counter.seen if s[0] != "/ws"]
        counter.seen.clear()
        page.goto(url)
        settle(page)
        scroll_through(page)
        repeat = [s[0] for s in counter.seen if s[0] != "/ws"]
        page.close()
        measure_lessons(browser, base, counter, lesson_state_of(app).content.lessons, "--files" in sys.argv)
        browser.close()
    server.shutdown()
    total = sum(size for _, size in first)
    print(f"first view of lesson 1: {len(first)} requests, {total / 1000:.1f} KB transferred (compressed bodies)")
    # The target: say it outright, so a page that grows past it is noticed when the bench runs.
    verdict = "met" if total <= TARGET_KB * 1000 else "MISSED"
    print(f"  target, at most {TARGET_KB} KB: {verdict} ({TARGET_KB - total / 1000:+.1f} KB to spare)")
    for p_, size in sorted(first, key=lambda s: -s[1])[:8]:
        print(f"  {size / 1000:6.1f} KB  {p_}")
    rest = sum(size for _, size in later)
    print(f"scrolled to its end: {len(later)} more request(s), {rest / 1000:.1f} KB: {', '.join(p for p, _ in later)}")
    print(f"  whole page: {(total + rest) / 1000:.1f} KB")
    print(f"repeat view, scrolled to its end: {len(repeat)} request(s): {', '.join(repeat)}")


if __name__ == "__main__":
    main()
