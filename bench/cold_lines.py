"""How much memory a press touches when every cache is cold, counted, not timed: the cache lines
(64 bytes) of machine code and data it reads or writes that are not in a simulated last-level cache
emptied just before it. At a learner's pace the machine idles between presses, its caches go to
other work, and a press costs about what it touches (see the README's figures); a count does not
vary with the machine's noise, so a change of one per cent shows.

It runs the service in process under valgrind's callgrind (cache simulation on), presses the outage
playground's round of buttons, empties the simulated caches before each counted press by writing
over 300 MB, and counts each press alone (markers: ``os.getppid`` before, ``os.getpgrp`` after).
The collector is frozen and off, as gunicorn's workers freeze it and a press makes no garbage to
collect. Its baseline is the same count for another revision of the code, in the same run:

    .venv/bin/python bench/cold_lines.py [--against HEAD~3] [--presses 10]

Needs valgrind (Debian: apt-get install valgrind); about a minute per revision.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run inside valgrind, from a tree that holds lesson/, content/, templates/ and static/.
PRESSES = r"""
import ctypes, gc, json, os, sys
sys.path.insert(0, sys.argv[1])
from lesson.content import default_root
from lesson.panels import load_panels
from lesson.service import Service

service = Service(load_panels(default_root()))
handle = service.handle_text('{"v": 2, "type": "open", "panel": "outage"}').data()["handle"]
buttons = ["call-a", "a-dies", "turn", "a-back", "turn"]  # every press changes the playground
seq = 0
def press():
    global seq
    seq += 1
    frame = {"v": 2, "type": "press", "handle": handle, "seq": seq, "button": buttons[seq % len(buttons)]}
    return json.dumps(frame)
for _ in range(10):  # warm: every code path run once, as in a server that has served a while
    service.handle_text(press())
gc.collect(); gc.freeze(); gc.disable()
size = 300 << 20  # over the simulated last-level cache
wipe = ctypes.create_string_buffer(size)
for i in range(int(sys.argv[2])):
    frame = press()
    ctypes.memset(wipe, i + 1, size)
    os.getppid()  # counters from here
    reply = service.handle_text(frame, defer=True)
    os.getpgrp()  # to here
    reply.finish()  # after the answer is sent, as the socket does
"""


def tree_of(rev: str, into: Path) -> Path:
    """The files a press needs at ``rev``, or at the working tree for ``rev`` = "."."""
    if rev == ".":
        return ROOT
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "lesson", "content", "templates", "static"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def count(tree: Path, presses: int, work: Path) -> dict[str, float]:
    """Mean lines per press: machine code (I), data read (Dr), data written (Dw)."""
    script = work / "presses.py"
    script.write_text(PRESSES)
    out = work / "callgrind.out"
    cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--zero-before=getppid", "--dump-after=getpgrp"]
    cmd += [f"--callgrind-out-file={out}", sys.executable, str(script), str(tree), str(presses)]
    subprocess.run(cmd, check=True, capture_output=True, cwd=work)
    rows = []
    for path in glob.glob(f"{out}.*"):
        for line in Path(path).read_text().splitlines():
            if line.startswith("events:"):
                names = line.split()[1:]
            elif line.startswith("summary:"):
                rows.append(dict(zip(names, map(int, line.split()[1:]), strict=True)))
    if len(rows) != presses:
        raise SystemExit(f"expected {presses} counted presses, found {len(rows)}")
    mean = {key: sum(r[key] for r in rows) / presses for key in ("Ir", "ILmr", "DLmr", "DLmw")}
    mean["lines"] = mean["ILmr"] + mean["DLmr"] + mean["DLmw"]
    return mean


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", default="HEAD", help="the baseline revision (default HEAD)")
    ap.add_argument("--presses", type=int, default=10)
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, rev in (("baseline " + args.against, args.against), ("this tree", ".")):
            work = Path(tmp) / str(len(results))
            work.mkdir()
            (work / "tree").mkdir()
            results[label] = count(tree_of(rev, work / "tree"), args.presses, work)
    base = results["baseline " + args.against]["lines"]
    for label, r in results.items():
        print(
            f"{label}: {r['lines']:.0f} cold lines per press (code {r['ILmr']:.0f}, data read {r['DLmr']:.0f}, "
            f"data written {r['DLmw']:.0f}; {r['Ir'] / 1e6:.2f} M instructions), {r['lines'] / base:.3f}x the baseline"
        )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")  # the same string hashes in both runs
    main()
