"""The path a press takes on the server, in process: `Service.handle_text` on a press frame, split
into the simulation's advance (both eras) and view, and what the service itself adds (decoding,
validation, the run cache, the answer's JSON). No socket: see load_bench.py for that.

    .venv/bin/python bench/service_bench.py [--presses 2000]

With ``--pause S`` it sleeps S seconds before every other press instead: the press after the pause
(as at a learner's pace, with the machine idle in between) against the press right after it, in the
same run.

    .venv/bin/python bench/service_bench.py --pause 0.5 --presses 120

With ``--prewarm`` as well, the press after the pause alone or with one piece of other work just before
it (see ``prewarmed``).

    .venv/bin/python bench/service_bench.py --pause 0.03 --presses 1000 --prewarm
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lesson.content import default_root  # noqa: E402
from lesson.panels import load_panels  # noqa: E402
from lesson.service import Service  # noqa: E402
from lesson.sim import advance, begin, view  # noqa: E402

BUTTONS = ["call-a", "a-dies", "turn", "a-back", "turn"]  # every press changes the playground (see load_bench.py)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=2000)
    ap.add_argument("--pause", type=float, default=0.0, help="seconds to sleep before every other press")
    ap.add_argument("--spin", type=float, default=0.0, help="with --pause: ms to spin the CPU after each pause")
    ap.add_argument("--prewarm", action="store_true", help="with --pause: what warms a press after the pause")
    args = ap.parse_args()
    service = Service(load_panels(default_root()))
    if args.pause > 0 and args.prewarm:
        prewarmed(service, args.presses, args.pause)
        return
    if args.pause > 0:
        paused(service, args.presses, args.pause, args.spin)
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


def paused(service: Service, presses: int, pause: float, spin_ms: float = 0.0) -> None:
    """Each pair: sleep, a press (timed), then the next press at once (timed). The socket compacts
    the cached run after sending, so that is left out of both, as ``finish`` is. ``spin_ms`` keeps
    the CPU busy (touching nothing of the press's) between the pause and the press: if the pause's
    cost were the clock slowing down, this would take it away."""
    handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
    after_pause, right_after = [], []
    for seq in range(1, presses + 1):
        if seq % 2:
            time.sleep(pause)
            until = time.perf_counter() + spin_ms / 1000
            while time.perf_counter() < until:
                pass
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


def prewarmed(service: Service, presses: int, pause: float) -> None:
    """After each pause, a press on the outage playground, with nothing before it or with one piece of
    other work just before it: a press on another panel, an advance of another run, a view, the JSON
    of a view. Each kind has its own playground, and the kinds take turns: what the pause costs, and
    which work makes it up."""
    panel = service.panels["outage"]
    kinds = ["nothing", "another panel's press", "an advance", "a view", "a view's JSON"]
    handles = {k: service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"] for k in kinds}
    seqs = dict.fromkeys(kinds, 0)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    other, other_seq = "", 400
    side, side_n = None, 300
    shown = view(advance(advance(begin(panel.start), panel.button("a-dies").event), panel.button("turn").event))
    for i in range(presses):
        kind = kinds[i % len(kinds)]
        time.sleep(pause)
        if kind == "another panel's press":
            other_seq += 1
            if other_seq > 400:
                other_seq = 1
                other = service.handle_text('{"v": 2, "type": "open", "panel": "handles"}').data()["handle"]
            frame = {"v": 2, "type": "press", "handle": other, "seq": other_seq, "button": "create"}
            service.handle_text(json.dumps(frame))
        elif kind == "an advance":
            side_n += 1
            if side is None or side_n > 300:
                side, side_n = begin(panel.start), 1
            side = advance(side, panel.button(BUTTONS[(side_n + 2) % len(BUTTONS)]).event)
        elif kind == "a view":
            view(side if side is not None else begin(panel.start))
        elif kind == "a view's JSON":
            shown.model_dump_json()
        seqs[kind] += 1
        button = BUTTONS[seqs[kind] % len(BUTTONS)]
        frame = {"v": 2, "type": "press", "handle": handles[kind], "seq": seqs[kind], "button": button}
        t = time.perf_counter()
        reply = service.handle_text(json.dumps(frame), defer=True)
        times[kind].append(time.perf_counter() - t)
        reply.finish()
    print(f"press after a {pause:g} s pause ({presses // len(kinds)} of each), with just before it:")
    for kind in kinds:
        print(f"  {kind:24} median {statistics.median(times[kind]) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
