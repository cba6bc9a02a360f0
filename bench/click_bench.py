"""Click to updated view in the outage playground, at press 5 and at press 300, beside a raw WebSocket
round trip made from the same page in the same run.

Drives Debian's Chromium (as the browser tests do) against the app on loopback. In the page, a click
listener notes the time of each press; the playground's `playground:answer` event (dispatched once
the view is drawn) and the next frame after it note when the view is updated and painted. The raw
round trip is a press frame sent on a WebSocket of its own from the same page, timed from send to
answer, with nothing drawn: the floor for any press.

    .venv/bin/python bench/click_bench.py [--rounds 9] [--reduced-motion]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import threading
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.web import create_app  # noqa: E402
from lesson.web.server import make_dev_server  # noqa: E402
from tests.conftest import CHROMIUM_ARGS, find_chromium  # noqa: E402

TITLE = "Play out an outage"
CYCLE = ["A dies", "A is back", "Take a model turn"]  # presses that can repeat without end

PROBE = """
section => {
  const b = (window.__bench = { t0: 0, times: [] });
  section.addEventListener("click", (e) => {
    if (e.target.closest("button[data-button]")) b.t0 = performance.now();
  }, true);
  section.addEventListener("playground:answer", () => {
    const drawn = performance.now();
    // The next frame, then a task after it: the view has been laid out and painted.
    requestAnimationFrame(() => setTimeout(() => b.times.push([drawn - b.t0, performance.now() - b.t0]), 0));
  });
}
"""

RAW = """
async () => {
  const url = new URL("/ws", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(url);
  await new Promise((ok, bad) => { ws.onopen = ok; ws.onerror = bad; });
  let id = 0;
  const waiting = new Map();
  ws.onmessage = (e) => { const a = JSON.parse(e.data); waiting.get(a.re)?.(a); waiting.delete(a.re); };
  const ask = (frame) => new Promise((ok) => {
    const n = ++id;
    waiting.set(n, ok);
    ws.send(JSON.stringify({ v: 2, id: n, ...frame }));
  });
  const opened = await ask({ type: "open", panel: "outage" });
  const raw = (window.__raw = { handle: opened.handle, seq: 0, buttons: ["a-dies", "a-back", "turn"] });
  raw.once = async () => {
    const button = raw.buttons[raw.seq % raw.buttons.length];
    const t0 = performance.now();
    const a = await ask({ type: "press", handle: raw.handle, seq: raw.seq + 1, button });
    const dt = performance.now() - t0;
    if (a.type !== "view") throw new Error(JSON.stringify(a));
    raw.seq += 1;
    return dt;
  };
}
"""


def click(page: Page, section, n: int) -> tuple[float, float]:
    """Make press number n (1-based) and wait until the page has timed it."""
    before = page.evaluate("window.__bench.times.length")
    section.get_by_role("button", name=CYCLE[(n - 1) % len(CYCLE)], exact=True).click()
    page.wait_for_function(f"window.__bench.times.length > {before}")
    return tuple(page.evaluate("window.__bench.times[window.__bench.times.length - 1]"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9, help="presses timed around press 5 and around press 300")
    ap.add_argument("--reduced-motion", action="store_true", help="emulate prefers-reduced-motion: no flash")
    args = ap.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app({"SECRET_KEY": "bench"})
    server = make_dev_server("127.0.0.1", 0, app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/lessons/hot-swapping"
    path = find_chromium()
    half = args.rounds // 2
    early = range(max(1, 5 - half), 5 - half + args.rounds)
    late = range(300 - half, 300 - half + args.rounds)
    at: dict[str, list[float]] = {"early": [], "early_paint": [], "late": [], "late_paint": [], "raw": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(headless=True, args=CHROMIUM_ARGS, **({"executable_path": path} if path else {}))
        # bypass_csp: the page refuses eval, which Playwright's wait_for_function uses; the app is unchanged.
        motion = "reduce" if args.reduced_motion else "no-preference"
        page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True, reduced_motion=motion)
        page.goto(url)
        section = page.get_by_role("region", name=TITLE, exact=True)
        section.get_by_role("button", name="Reset").wait_for()
        page.wait_for_function("document.querySelector('[data-role=announce]').textContent === 'Playground ready.'")
        section.evaluate(PROBE)
        page.evaluate(RAW)
        for n in range(1, late.stop):
            drawn, painted = click(page, section, n)
            timed = "early" if n in early else "late" if n in late else None
            if timed:
                at[timed].append(drawn)
                at[f"{timed}_paint"].append(painted)
                at["raw"].append(page.evaluate("window.__raw.once()"))
        steps = section.locator("ol.log > li").count()
        browser.close()
    server.shutdown()
    med = {k: statistics.median(v) for k, v in at.items()}
    print(f"click to updated view, outage playground, {args.rounds} presses each; log holds {steps} entries at the end")
    spans = (("early", early), ("late", late))
    for k, label in ((k, f"press {r.start}-{r.stop - 1}") for k, r in spans):
        print(
            f"  {label:>12}: drawn median {med[k]:6.2f} ms, painted median {med[k + '_paint']:6.2f} ms"
            f"  ({med[k + '_paint'] / med['raw']:.1f}x the raw round trip)"
        )
    print(f"  raw WebSocket press round trip from the same page: median {med['raw']:.2f} ms")
    print(f"  press 300 / press 5 (painted): {med['late_paint'] / med['early_paint']:.2f}x")


if __name__ == "__main__":
    main()
