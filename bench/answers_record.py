"""Record the JSON answers of every panel's presses, to compare the simulation before and after a change.

    .venv/bin/python bench/answers_record.py record answers.json   # on the code before the change
    .venv/bin/python bench/answers_record.py compare answers.json  # after it: exit 1 on any difference

Every playground panel, each variant, in each era it can start in: every button pressed in order and
in reverse, undo, reset, era switches, then a seeded random walk; an open of the cached playground and
one rebuilt from its log; every stepper in both eras; every restart-lab situation, alone and with each
variant. Handles are random, so they are recorded as ``<handle>``.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from lesson import narration
from lesson.content.course import default_root, load_panels
from lesson.content.panels import PlaygroundPanel, RestartLabPanel, StepperPanel
from lesson.content.stepper import moment_views
from lesson.playground.service import Service

WALK = 40  # random changes per playground start


def _frame(**fields: Any) -> str:
    return json.dumps({"v": 2, **fields})


def _clean(answer: dict[str, Any]) -> dict[str, Any]:
    if "handle" in answer:
        answer["handle"] = "<handle>"
    return answer


def _playground(service: Service, panel: PlaygroundPanel, variant: str | None, era: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    log = {"panel": panel.id, "variant": variant, "era": era, "events": [], "seq": 0}
    first = json.loads(service.handle_text(_frame(type="open", id=0, panel=panel.id, log=log)).text)
    handle, seq, events = first["handle"], 0, []
    out.append(_clean(first))

    def send(kind: str, arg: str | None = None) -> None:
        nonlocal seq
        extra = {"button": arg} if kind == "press" else {"era": arg} if kind == "era" else {}
        text = service.handle_text(_frame(type=kind, id=seq + 1, handle=handle, seq=seq + 1, **extra)).text
        answer = json.loads(text)
        if answer["type"] == "view":
            seq = answer["seq"]
            if kind == "press":
                events.append(["p", arg])
            elif kind == "era":
                events.append(["e", arg])
            elif kind == "undo":
                events.pop()
            elif kind == "reset":
                events.clear()
        out.append(_clean(answer))

    buttons = [b.id for b in panel.buttons]
    for b in buttons + buttons[::-1]:
        send("press", b)
    send("undo")
    send("undo")
    if panel.era_choice:
        for target in ("legacy", "modern", "legacy" if era == "modern" else "modern"):
            send("era", target)
            for b in buttons:
                send("press", b)
    send("reset")
    changes: list[tuple[str, str | None]] = [("press", b) for b in buttons] + [("undo", None), ("reset", None)]
    if panel.era_choice:
        changes += [("era", "legacy"), ("era", "modern")]
    rng = random.Random(f"{panel.id}:{variant}:{era}")
    for _ in range(WALK):
        send(*rng.choice(changes))
    again = service.handle_text(_frame(type="open", id="again", panel=panel.id, handle=handle))
    out.append(_clean(json.loads(again.text)))
    log = {"panel": panel.id, "variant": first["variant"], "era": era, "events": events, "seq": seq}
    rebuilt = service.handle_text(_frame(type="open", id="log", panel=panel.id, log=log))
    out.append(_clean(json.loads(rebuilt.text)))
    return out


def record() -> dict[str, Any]:
    panels = load_panels(default_root())
    service = Service(panels)
    out: dict[str, Any] = {}
    for panel in sorted(panels.values(), key=lambda p: p.id):
        if isinstance(panel, PlaygroundPanel):
            eras = ("legacy", "modern") if panel.era_choice else (panel.start.era,)
            for variant in [None, *(v.id for v in panel.variants)]:
                for era in eras:
                    out[f"{panel.id}:{variant}:{era}"] = _playground(service, panel, variant, era)
        elif isinstance(panel, StepperPanel) and panel.start is not None:
            for era in ("legacy", "modern"):
                out[f"{panel.id}:{era}"] = [
                    v.model_dump(mode="json", context=narration.words()) for v in moment_views(panel, era)
                ]
        elif isinstance(panel, RestartLabPanel):
            for situation in panel.situations:
                for variants in [[], *([v.id] for v in panel.variants)]:
                    text = service.handle_text(
                        _frame(type="restart", id=1, panel=panel.id, situation=situation.id, variants=variants)
                    ).text
                    out[f"{panel.id}:{situation.id}:{','.join(variants)}"] = json.loads(text)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("record", "compare"):
        print(__doc__)
        return 2
    now = record()
    answers = sum(len(v) if isinstance(v, list) else 1 for v in now.values())
    if argv[1] == "record":
        with open(argv[2], "w") as f:
            json.dump(now, f, sort_keys=True)
        print(f"recorded {answers} answers of {len(now)} panel starts in {argv[2]}")
        return 0
    with open(argv[2]) as f:
        before = json.load(f)
    differ = [key for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key)]
    for key in differ:
        old, new = before.get(key), now.get(key)
        if isinstance(old, list) and isinstance(new, list):
            at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
            print(f"{key}: answer {at} differs")
        else:
            print(f"{key}: differs")
    print(f"compared {answers} answers of {len(now)} panel starts: {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
