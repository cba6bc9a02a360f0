"""Page weight: what lesson 1's first view transfers (compressed), and what a repeat view fetches.

Drives Debian's Chromium (as the browser tests do) against the app on loopback; a WSGI wrapper
counts every request and the bytes of every body as they leave the app (after compression).

    .venv/bin/python bench/page_bench.py
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.web import create_app  # noqa: E402
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


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app({"SECRET_KEY": "bench"})
    counter = Counter(app.wsgi_app)
    app.wsgi_app = counter
    server = make_dev_server("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/lessons/hot-swapping"
    path = find_chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(headless=True, args=CHROMIUM_ARGS, **({"executable_path": path} if path else {}))
        page = browser.new_page()
        page.goto(url)
        page.get_by_text("Moment 1 of").first.wait_for()
        page.wait_for_load_state("networkidle")
        first = [s for s in counter.seen if s[0] != "/ws"]
        counter.seen.clear()
        page.goto(url)
        page.get_by_text("Moment 1 of").first.wait_for()
        page.wait_for_load_state("networkidle")
        repeat = [s[0] for s in counter.seen if s[0] != "/ws"]
        browser.close()
    server.shutdown()
    total = sum(size for _, size in first)
    print(f"first view of lesson 1: {len(first)} requests, {total / 1000:.1f} KB transferred (compressed bodies)")
    for p_, size in sorted(first, key=lambda s: -s[1])[:5]:
        print(f"  {size / 1000:6.1f} KB  {p_}")
    print(f"repeat view: {len(repeat)} request(s): {', '.join(repeat)}")


if __name__ == "__main__":
    main()
