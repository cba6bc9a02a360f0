"""Benchmark the simulation: time per event (advance + view) and State JSON round trip.

Run: .venv/bin/python bench/sim_bench.py [--runs N]

Each figure is a median over many samples, printed in microseconds and as a ratio to a baseline
measured in the same run on the same data, so a slow or busy machine shows up in both.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import TypeAdapter  # noqa: E402

from lesson.sim import Run, Start, State, advance, apply, begin, build_view, view  # noqa: E402
from lesson.sim import events as ev  # noqa: E402

TARGET_US = 200.0
STATE = TypeAdapter(State)  # the state is dataclasses: pydantic reads and writes it as a type

# A realistic mix: what a learner presses at each start, in the order the lesson suggests.
MIX: list[tuple[Start, list[ev.Event]]] = [
    (
        Start(name="outage", era=era),
        [
            ev.TakeTurn(),
            ev.DeployTool(server="B"),
            ev.TakeTurn(),
            ev.AddServer(server="C"),
            ev.TakeTurn(),
            ev.ServerDies(server="A"),
            ev.TakeTurn(),
            ev.ServerBack(server="A"),
            ev.TakeTurn(),
            ev.SetBatching(on=True),
            ev.DeployTool(server="B"),
            ev.RemoveTool(server="B", tool="close_ticket"),
            ev.TakeTurn(),
            ev.RestartServer(server="B"),
            ev.ListenDrops(server="C"),
            ev.ServerBack(server="A"),  # rejected: A is up
            ev.TakeTurn(),
        ],
    )
    for era in ("modern", "legacy")
] + [
    (
        Start(name="restart", era="legacy", options={"listen": True}),
        [ev.StartCall(server="W"), ev.RestartServer(server="W"), ev.TakeTurn()],
    ),
    (
        Start(name="restart", era="modern"),
        [ev.AskUserInput(server="W"), ev.RestartServer(server="W"), ev.UserAnswers(server="W"), ev.TakeTurn()],
    ),
    (
        Start(name="gateway", era="modern"),
        [
            ev.TakeTurn(),
            ev.BackendFailsHealthCheck(gateway="G", backend="A"),
            ev.TakeTurn(),
            ev.BackendJoins(gateway="G", backend="C"),
            ev.BackendRecovers(gateway="G", backend="A"),
            ev.TakeTurn(),
        ],
    ),
    (
        Start(name="baskets", era="modern", options={"handles_durable": False}),
        [ev.CreateBasket(server="S"), ev.AddItem(server="S"), ev.RestartServer(server="S"), ev.AddItem(server="S")],
    ),
    (
        Start(name="guide", era="legacy"),
        [
            ev.UndeclaredListChanged(server="Q"),
            ev.TimerListChanged(server="P"),
            ev.Reauthenticate(server="P", role="admin"),
            ev.TakeTurn(),
        ],
    ),
]


def median_us(samples: list[int]) -> float:
    return statistics.median(samples) / 1000


def timed(fn: Callable[[], object], repeat: int) -> list[int]:
    out: list[int] = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - t)
    return out


def per_event(runs: int) -> tuple[list[int], list[int], list[State]]:
    """Time advance + view for every event of the mix, and a deep copy of the state each event starts from."""
    step_ns: list[int] = []
    copy_ns: list[int] = []
    states: list[State] = []
    for _ in range(runs):
        for spec, events in MIX:
            run: Run = begin(spec)
            for event in events:
                t = time.perf_counter_ns()
                run = advance(run, event)
                view(run)
                step_ns.append(time.perf_counter_ns() - t)
                t = time.perf_counter_ns()
                copy.deepcopy(run.state)
                copy_ns.append(time.perf_counter_ns() - t)
            states.append(run.state)
    return step_ns, copy_ns, states


def apply_one(runs: int) -> list[int]:
    """What the target names: apply one event to one state and build its view (one era, no twin)."""
    out: list[int] = []
    for _ in range(runs):
        for spec, events in MIX:
            state = begin(spec).state
            for event in events:
                t = time.perf_counter_ns()
                state, outcome = apply(state, event)
                build_view(state, [], outcome, None)
                out.append(time.perf_counter_ns() - t)
    return out


def long_playground(n: int) -> tuple[float, float]:
    """The last events of a long playground: does the cost grow with its length?"""
    spec, events = MIX[0]
    run = begin(spec)
    for i in range(n):
        run = advance(run, events[i % len(events)])
    tail = [events[i % len(events)] for i in range(n, n + 20)]
    step: list[int] = []
    deep: list[int] = []
    for event in tail:
        t = time.perf_counter_ns()
        run = advance(run, event)
        view(run)
        step.append(time.perf_counter_ns() - t)
        deep += timed(lambda s=run.state: copy.deepcopy(s), 1)
    return median_us(step), median_us(deep)


def round_trip(states: list[State], repeat: int) -> tuple[list[int], list[int], int]:
    rt: list[int] = []
    base: list[int] = []
    for s in states:
        rt += timed(lambda s=s: STATE.validate_json(STATE.dump_json(s)), repeat)
        plain = STATE.dump_python(s, mode="json")
        base += timed(lambda plain=plain: json.loads(json.dumps(plain)), repeat)
    return rt, base, statistics.median(len(STATE.dump_json(s)) for s in states)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="passes over the event mix (default 60)")
    args = parser.parse_args()
    started = time.perf_counter()
    print("$ " + shlex.join([Path(sys.executable).name, *sys.argv]))
    print(f"python {platform.python_version()} on {platform.machine()}, {args.runs} runs of the event mix")
    ref = median_us(timed(lambda: sum(range(1_000_000)), 7)) / 1000
    print(f"machine reference: sum(range(10**6)) takes {ref:.1f} ms here")

    for spec, events in MIX:  # warm up caches and imports
        run = begin(spec)
        for event in events:
            run = advance(run, event)
    step_ns, copy_ns, states = per_event(args.runs)
    step, deep_copy = median_us(step_ns), median_us(copy_ns)
    p90 = statistics.quantiles(step_ns, n=10)[-1] / 1000
    print()
    one_ns = apply_one(args.runs)
    one = median_us(one_ns)
    verdict = "OK" if one < TARGET_US else "OVER"
    print(f"apply one event + build its view (one era), {len(one_ns)} samples")
    print(
        f"  median {one:8.1f} us   p90 {statistics.quantiles(one_ns, n=10)[-1] / 1000:8.1f} us   "
        f"target < {TARGET_US:.0f} us: {verdict}"
    )
    print(f"  ratio to copy.deepcopy of the same states: {one / deep_copy:5.2f}")
    print()
    print(f"a playground press (advance: both eras, the log, and the view), {len(step_ns)} samples")
    print(f"  median {step:8.1f} us   p90 {p90:8.1f} us")
    print(f"  baseline: copy.deepcopy of the same states, median {deep_copy:8.1f} us")
    print(f"  ratio event / deep copy: {step / deep_copy:5.2f}")

    for n in (100, 400):
        last, deep = long_playground(n)
        print(f"  after {n} events: median {last:8.1f} us per event (deep copy of that state {deep:8.1f} us)")

    rt_ns, base_ns, size = round_trip(states, repeat=20)
    rt, base = median_us(rt_ns), median_us(base_ns)
    print()
    print(f"State JSON round trip (pydantic's dump_json + validate_json), state ~{size} bytes of JSON")
    print(f"  median {rt:8.1f} us")
    print(f"  baseline: json.dumps + json.loads of the same state as a plain dict, median {base:8.1f} us")
    print(f"  ratio round trip / plain json: {rt / base:5.2f}")
    print()
    print(f"took {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
