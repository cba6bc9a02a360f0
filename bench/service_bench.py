"""The path a press takes on the server, in process: `Service.handle_text` on a press frame, split
into the simulation's advance (both eras) and view, and what the service itself adds (decoding,
validation, the run cache, the answer's JSON). No socket: see load_bench.py for that.

    .venv/bin/python bench/service_bench.py [--presses 2000]

It then presses one playground up to 450 events: a press near the end against one near the start, in
the same run (a step copies what it keeps of the history; it must not do work for every earlier event).

With ``--pause S`` it sleeps S seconds before every other press instead: the press after the pause
(as at a learner's pace, with the machine idle in between) against the press right after it, in the
same run.

    .venv/bin/python bench/service_bench.py --pause 0.5 --presses 120

"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.content.course import default_root, load_panels  # noqa: E402
from lesson.playground.service import Service  # noqa: E402
from lesson.sim import advance, view  # noqa: E402

BUTTONS = ["call-a", "a-dies", "turn", "a-back", "turn"]  # every press changes the playground (see load_bench.py)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=2000)
    ap.add_argument("--pause", type=float, default=0.0, help="seconds to sleep before every other press")
    args = ap.parse_args()
    service = Service(load_panels(default_root()))
    if args.pause > 0:
        paused(service, args.presses, args.pause)
        return
    panel = service.panels["outage"]
    handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
    total, sim_advance, sim_view, sizes = [], [], [], []
    seq = 0
    for i in range(args.presses):
        seq += 1
        if seq % 50 == 0:  # keep playgrounds the length a lesson sees
            service.handle_text(json.dumps({"v": 2, "type": "reset", "handle": handle, "seq": seq}))
            continue
        button = BUTTONS[i % len(BUTTONS)]
        # The simulation's own calls on the same run: advance the cached (compact) run as the service
        # does, then build the view of the advanced run, outcomes and all.
        run = service.cache.get(handle).run
        t = time.perf_counter()
        advanced = advance(run, panel.button(button).event)
        sim_advance.append(time.perf_counter() - t)
        t = time.perf_counter()
        view(advanced)
        sim_view.append(time.perf_counter() - t)
        frame = json.dumps({"v": 2, "type": "press", "handle": handle, "seq": seq, "button": button})
        t = time.perf_counter()
        reply = service.handle_text(frame)
        total.append(time.perf_counter() - t)
        sizes.append(len(reply.text))

    def med(xs: list[float]) -> float:
        return statistics.median(xs) * 1e6

    own = med(total) - med(sim_advance) - med(sim_view)
    print(
        f"press in the service: median {med(total):.0f} us (answer median {statistics.median(sizes) / 1000:.1f} KB); "
        f"simulation advance {med(sim_advance):.0f} us + view {med(sim_view):.0f} us; the service's own {own:.0f} us"
    )
    long_playground(service)


def long_playground(service: Service, events: int = 450, window: int = 50) -> None:
    """The first ``window`` presses of one playground against its last ``window`` before ``events``."""
    handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
    times = []
    for seq in range(1, events + 1):
        button = BUTTONS[seq % len(BUTTONS)]
        frame = json.dumps({"v": 2, "type": "press", "handle": handle, "seq": seq, "button": button})
        t = time.perf_counter()
        service.handle_text(frame)
        times.append(time.perf_counter() - t)
    young, old = statistics.median(times[:window]) * 1e6, statistics.median(times[-window:]) * 1e6
    print(
        f"a long playground: median {old:.0f} us a press at {events - window + 1}-{events} events, "
        f"against {young:.0f} us at 1-{window}: {old / young:.2f}x"
    )


def paused(service: Service, presses: int, pause: float) -> None:
    """Each pair: sleep, a press (timed), then the next press at once (timed). The socket does the
    cache's accounting after sending, so that is left out of both, as ``finish`` is."""
    handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
    after_pause, right_after = [], []
    for seq in range(1, presses + 1):
        if seq % 2:
            time.sleep(pause)
        button = BUTTONS[seq % len(BUTTONS)]
        frame = json.dumps({"v": 2, "type": "press", "handle": handle, "seq": seq, "button": button})
        t = time.perf_counter()
        reply = service.handle_text(frame, defer=True)
        (after_pause if seq % 2 else right_after).append(time.perf_counter() - t)
        reply.finish()
    cold, warm = statistics.median(after_pause) * 1e6, statistics.median(right_after) * 1e6
    print(
        f"press after a {pause:g} s pause: median {cold:.0f} us; the next press at once: {warm:.0f} us; "
        f"ratio {cold / warm:.1f}x ({presses // 2} of each)"
    )


if __name__ == "__main__":
    main()
