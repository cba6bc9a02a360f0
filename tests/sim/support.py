"""Helpers for the simulation tests: drive a playground and read what it shows."""

from __future__ import annotations

from typing import Any

from lesson.sim import Run, Start, View, advance, begin, view
from lesson.sim.events import Event
from lesson.sim.frames import WireFrame
from lesson.sim.view import ServerRow
from lesson.sim.wire import SUB_KEY

ERAS = ["legacy", "modern"]


def play(name: str, era: str, *events: Event, **options: bool | str) -> Run:
    run = begin(Start(name=name, era=era, options=options))
    for event in events:
        run = advance(run, event)
    return run


def step(run: Run, event: Event) -> tuple[Run, View]:
    run = advance(run, event)
    return run, view(run)


def wire(run: Run) -> list[WireFrame]:
    """What the last step sent, in this run's era."""
    return list(run.last.wire) if run.last else []


def label(m: WireFrame) -> str:
    """A short name for a wire entry: its JSON-RPC method, 'result', 'error', or the HTTP line."""
    p = m.payload
    if p is None:
        return m.http or "?"
    if "method" in p:
        return p["method"]
    if "error" in p:
        return "error"
    if "result" in p:
        return "result"
    return "host result"


def labels(msgs: list[WireFrame]) -> list[str]:
    return [label(m) for m in msgs]


def index(msgs: list[WireFrame], what: str, start: int = 0, **match: Any) -> int:
    """Position of the first entry at or after ``start`` with that label (and attribute values); -1 if none."""
    for i in range(start, len(msgs)):
        m = msgs[i]
        if label(m) == what and all(getattr(m, k) == v for k, v in match.items()):
            return i
    return -1


def in_order(msgs: list[WireFrame], *whats: str, **match: Any) -> list[int]:
    """Positions of ``whats`` appearing in that order; fails the test if one is missing."""
    out: list[int] = []
    at = 0
    for what in whats:
        i = index(msgs, what, at, **match)
        assert i >= 0, f"{what!r} not found after position {at} in {labels(msgs)}"
        out.append(i)
        at = i + 1
    return out


def sub_id(m: WireFrame) -> Any:
    return ((m.payload or {}).get("params") or {}).get("_meta", {}).get(SUB_KEY)


def prompt(v: View) -> list[tuple[str, str]]:
    return [(t.name, t.server) for t in v.next_prompt.tools]


def row(v: View, name: str) -> ServerRow:
    rows = [r for r in v.servers if r.name == name]
    assert len(rows) == 1, f"expected one row for {name}, got {[r.name for r in v.servers]}"
    return rows[0]


def last_change(r: ServerRow) -> tuple[int, str, dict] | None:
    """A row's "last change" as its step, the code of what happened then, and that message's values."""
    if r.last_change is None:
        return None
    assert r.last_change.code == "narration.table.change"
    what = r.last_change.params["what"]
    return r.last_change.params["step"], what["code"], what["params"]


def codes(run: Run, *, parts: bool = False) -> list[str]:
    """What the last step said, as the codes of its log lines (the sentences live in the catalogue);
    with ``parts``, the codes of the messages inside them too (``lesson.sim.step.msg``), in order."""
    out: list[str] = []

    def walk(code: str, params: dict) -> None:
        out.append(code)
        for value in params.values():
            if parts and isinstance(value, dict) and "code" in value:
                walk(value["code"], value.get("params") or {})

    for line in run.last.lines if run.last else []:
        walk(line.code, line.params)
    return out
