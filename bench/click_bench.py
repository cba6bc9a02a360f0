"""Click to updated view in the outage playground, at press 5 and at press 300, beside a raw WebSocket
round trip made from the same page in the same run.

Drives Debian's Chromium (as the browser tests do) against the app on loopback. In the page, a click
listener notes the time of each press; the playground's `playground:answer` event (dispatched once
the view is drawn) and the next frame after it note when the view is updated and painted. The raw
round trip is a press frame sent on a WebSocket of its own from the same page, timed from send to
answer, with nothing drawn; with one frame of the page (measured in the same run) added, it is the floor
for any press, and the bench prints each painted median over that floor.

The app runs in a process of its own (`lesson serve`), so the server never waits for this script's
own Python (Playwright's client) to let go of the interpreter; `--in-process` serves it from a thread
of this script instead, as the first version of this bench did. Timed presses are real clicks and
the script waits for their answer on a promise, so nothing polls the page while a press is timed;
the presses in between are clicked from inside the page, which only makes the run shorter. Each socket
of the page notes when an answer arrives, so the page's own work on it (arrival to drawn, to painted) is
printed too: the part of a press the page's code decides, apart from the network and the server.

A second floor is measured in the same run: a bare button the bench adds to the page, whose click
sends the same press on the raw socket and, when the answer comes, changes one word. Chromium defers
a page's tasks after a click (a socket's message among them) until the click's own frame is on screen
(its DeferRendererTasksAfterInput feature, on by default); the raw round trip above is timed with no
click, so only the bare click shows what that costs any page. `--no-input-deferral` turns the feature
off, to show what the page's own code costs without it.

    .venv/bin/python bench/click_bench.py [--rounds 9] [--reduced-motion] [--no-input-deferral] [--in-process] [--each]
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import statistics
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.web import create_app  # noqa: E402
from lesson.web.server import make_dev_server  # noqa: E402
from tests.conftest import CHROMIUM_ARGS, find_chromium  # noqa: E402

TITLE = "Play out an outage"
CYCLE = ["A dies", "A is back", "Take a model turn"]  # presses that can repeat without end
TARGET_RATIO = 1.25  # click to painted over the floor (raw round trip + one frame), the aim

PROBE = """
section => {
  const b = (window.__bench = { t0: 0, pressed: false, times: [], waiting: null, last: 0 });
  section.addEventListener("click", (e) => {
    if (!e.target.closest("button[data-button]")) return;
    b.t0 = performance.now();
    b.pressed = true;
  }, true);
  section.addEventListener("playground:answer", () => {
    if (!b.pressed) return; // an answer nobody clicked for (a reconnect's open): not a press
    b.pressed = false;
    const drawn = performance.now();
    const arrived = window.__arrived; // the answer's message event (ARRIVALS)
    // The next frame, then a task after it: the view has been laid out and painted.
    requestAnimationFrame(() => setTimeout(() => {
      const now = performance.now();
      b.times.push([drawn - b.t0, now - b.t0, drawn - arrived, now - arrived, window.__sent - b.t0]);
      b.waiting?.();
    }, 0));
  });
  // Resolves once press number `n` (counted from the probe's start) has been timed: no polling.
  b.timed = (n) => new Promise((ok) => {
    const check = () => (b.times.length >= n ? ok(b.times[n - 1]) : (b.waiting = check));
    check();
  });
  // Presses that are not timed, clicked from inside the page one after another, no faster than the
  // server's frame rate allows a socket (WS_RATE, 20 a second): faster, it would drop the socket.
  b.fill = async (labels) => {
    const buttons = [...section.querySelectorAll("button[data-button]")];
    for (const label of labels) {
      const wait = b.last + 60 - performance.now();
      if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
      b.last = performance.now();
      const n = b.times.length + 1;
      buttons.find((x) => x.textContent.trim() === label).click();
      await b.timed(n);
    }
  };
}
"""

# Before the page's scripts: each socket notes when a message arrives, so the page's own work on an
# answer (arrival to drawn, arrival to painted) is timed apart from the network and the server.
ARRIVALS = """
window.__arrived = 0;
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", () => { window.__arrived = performance.now(); });
  }
  send(data) {
    window.__sent = performance.now();
    return super.send(data);
  }
};
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
  // The bare click: the same press on this socket, and one word changed when its answer comes.
  const bare = document.createElement("button");
  bare.type = "button";
  bare.textContent = "bench";
  bare.style.cssText = "position:fixed;right:0;bottom:0;z-index:9";
  document.body.append(bare);
  let bareDone = null;
  bare.addEventListener("click", async () => {
    const t0 = performance.now();
    const button = raw.buttons[raw.seq % raw.buttons.length];
    const a = await ask({ type: "press", handle: raw.handle, seq: raw.seq + 1, button });
    if (a.type !== "view") throw new Error(JSON.stringify(a));
    raw.seq += 1;
    bare.textContent = `bench ${raw.seq}`;
    requestAnimationFrame(() => setTimeout(() => bareDone(performance.now() - t0), 0));
  });
  raw.bare = () => new Promise((ok) => { bareDone = ok; });
  // One frame of this page, measured here: the median gap between 20 animation frames in a row.
  raw.frame = () => new Promise((ok) => {
    const at = [];
    const tick = (t) => {
      at.push(t);
      if (at.length < 21) return requestAnimationFrame(tick);
      const gaps = at.slice(1).map((x, i) => x - at[i]).sort((a, b) => a - b);
      ok(gaps[gaps.length >> 1]);
    };
    requestAnimationFrame(tick);
  });
}
"""


def press_label(n: int) -> str:
    return CYCLE[(n - 1) % len(CYCLE)]


def click(page: Page, section, n: int) -> tuple[float, float, float, float, float]:
    """Make press number n (1-based) with a real click and wait until the page has timed it."""
    section.get_by_role("button", name=press_label(n), exact=True).click()
    return tuple(page.evaluate("n => window.__bench.timed(n)", n))


@contextmanager
def serve(in_process: bool):
    """The app on a free loopback port: a `lesson serve` process of its own, or a thread of this one."""
    if in_process:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        server = make_dev_server("127.0.0.1", 0, create_app({"SECRET_KEY": "bench"}))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield server.server_port
        finally:
            server.shutdown()
        return
    cmd = [sys.executable, "-m", "lesson.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
    env = {**os.environ, "LESSON_SECRET_KEY": "bench"}
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            raise SystemExit(f"lesson serve did not start: {line!r}")
        yield int(found.group(1))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9, help="presses timed around press 5 and around press 300")
    ap.add_argument("--reduced-motion", action="store_true", help="emulate prefers-reduced-motion: no flash")
    ap.add_argument(
        "--no-input-deferral",
        action="store_true",
        help="Chromium without DeferRendererTasksAfterInput: the page's own cost, apart from the browser's deferral",
    )
    ap.add_argument("--each", action="store_true", help="print every timing, not only the medians")
    ap.add_argument("--in-process", action="store_true", help="serve the app from a thread of this script")
    args = ap.parse_args()
    with serve(args.in_process) as port:
        run(args, f"http://127.0.0.1:{port}/lessons/an-outage")


def run(args: argparse.Namespace, url: str) -> None:
    path = find_chromium()
    half = args.rounds // 2
    early = range(max(1, 5 - half), 5 - half + args.rounds)
    late = range(300 - half, 300 - half + args.rounds)
    at: dict[str, list[float]] = {
        k: []
        for k in ("early", "early_paint", "late", "late_paint", "raw", "bare", "frame", "work", "work_paint", "sent")
    }
    with sync_playwright() as p:
        # Off only to show what it costs: every Chromium user has it on.
        deferral = ["--disable-features=DeferRendererTasksAfterInput"] if args.no_input_deferral else []
        exe = {"executable_path": path} if path else {}
        browser = p.chromium.launch(headless=True, args=CHROMIUM_ARGS + deferral, **exe)
        # bypass_csp: the page refuses eval, which Playwright's wait_for_function uses; the app is unchanged.
        motion = "reduce" if args.reduced_motion else "no-preference"
        page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True, reduced_motion=motion)
        page.add_init_script(ARRIVALS)
        page.goto(url)
        section = page.get_by_role("region", name=TITLE, exact=True)
        section.get_by_role("button", name="Reset").wait_for()
        page.wait_for_function("document.querySelector('[data-role=announce]').textContent === 'Playground ready.'")
        section.evaluate(PROBE)
        page.evaluate(RAW)
        n = 1
        while n < late.stop:
            timed = "early" if n in early else "late" if n in late else None
            if not timed:  # the presses up to the next timed one, clicked from inside the page
                upto = early.start if n < early.start else late.start if n < late.start else late.stop
                section.evaluate("(s, labels) => window.__bench.fill(labels)", [press_label(k) for k in range(n, upto)])
                n = upto
                continue
            drawn, painted, work, work_paint, sent = click(page, section, n)
            at[timed].append(drawn)
            at[f"{timed}_paint"].append(painted)
            at["work"].append(work)
            at["work_paint"].append(work_paint)
            at["sent"].append(sent)
            at["raw"].append(page.evaluate("window.__raw.once()"))
            page.evaluate("() => { window.__bare = window.__raw.bare(); }")  # resolves after the click below
            page.get_by_role("button", name=re.compile(r"^bench")).click()
            at["bare"].append(page.evaluate("window.__bare"))
            at["frame"].append(page.evaluate("window.__raw.frame()"))
            n += 1
        steps = section.locator("ol.log > li").count()
        # A socket the server dropped (too many frames a second) would put reconnects into the figures.
        connection = page.locator("#connection").text_content() or ""
        if connection.strip():
            raise SystemExit(f"the page lost its socket during the run: {connection.strip()!r}")
        browser.close()
    med = {k: statistics.median(v) for k, v in at.items()}
    if args.each:
        print({k: [round(x, 1) for x in v] for k, v in at.items()})
    where = "a thread of this script" if args.in_process else "its own process"
    print(f"click to updated view, outage playground, {args.rounds} presses each; log holds {steps} entries at the end")
    print(f"  app served from {where}; load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    deferral = "off (--no-input-deferral)" if args.no_input_deferral else "on, as Chromium ships"
    print(f"  Chromium's deferral of a page's tasks after a click until its frame is shown: {deferral}")
    spans = (("early", early), ("late", late))
    for k, label in ((k, f"press {r.start}-{r.stop - 1}") for k, r in spans):
        print(
            f"  {label:>12}: drawn median {med[k]:6.2f} ms, painted median {med[k + '_paint']:6.2f} ms"
            f"  ({med[k + '_paint'] / med['raw']:.1f}x the raw round trip)"
        )
    print(f"  raw WebSocket press round trip from the same page: median {med['raw']:.2f} ms")
    # The page's own part: from the answer's arrival to the view drawn, and to the next frame painted.
    print(f"  click to press sent: median {med['sent']:.2f} ms")
    print(f"  answer arrived to drawn: median {med['work']:.2f} ms; to painted: median {med['work_paint']:.2f} ms")
    # The floor a click can reach: the server's answer over a bare socket, then one frame to paint it.
    floor = med["raw"] + med["frame"]
    print(f"  one frame of the page: median {med['frame']:.2f} ms; floor (raw + one frame) {floor:.2f} ms")
    # The same floor with a click: the bare button's answer changes one word, so what it costs over
    # (raw + one frame) is the browser's, and what a press costs over it is the playground's.
    print(
        f"  bare click (the same press, one word changed): painted median {med['bare']:.2f} ms"
        f" = {med['bare'] / floor:.2f}x (raw + one frame)"
    )
    for k, label in (("early", "press 5"), ("late", "press 300")):
        ratio = med[k + "_paint"] / floor
        verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
        print(
            f"  {label}: painted / (raw + one frame) = {ratio:.2f}x (aim: {TARGET_RATIO}x or less: {verdict});"
            f" over the bare click {med[k + '_paint'] / med['bare']:.2f}x"
        )
    print(f"  press 300 / press 5 (painted): {med['late_paint'] / med['early_paint']:.2f}x")


if __name__ == "__main__":
    main()
