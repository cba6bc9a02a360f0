"""``lesson trace --format text|markdown``: one readable line per message (step, what happens, sender and
receiver, HTTP method or status, JSON-RPC method), host-side events shown as such, ``--era`` to pick a side,
and unknown servers or events refused with a non-zero exit."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from lesson.cli import main
from lesson.content.course import default_root

OUTAGE = {
    "start": {"name": "outage", "era": "legacy"},
    "events": [{"kind": "server_dies", "server": "C"}, {"kind": "take_turn"}],
}


def run(capsys, monkeypatch, playground: dict | None, *args: str) -> tuple[int, str, str]:
    if playground is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(playground)))
    code = main(["trace", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


LINE = re.compile(r"^\s*(\d+)  (.*?)\s+(\S+)\s+-> (\S+)\s+(\S+)\s+(.*)$")


def parsed(text: str) -> list[tuple[int, str, str, str, str, str]]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        assert m, line
        out.append((int(m[1]), m[2].strip(), m[3], m[4], m[5], m[6]))
    return out


def http_of(record: dict) -> str:
    http = record["http"]
    if http is None:
        return "stdio" if record["on_wire"] else "-"
    return str(http.get("method") or http.get("status"))


def rpc_of(record: dict) -> str | None:
    msg = record["msg"] or {}
    return msg.get("method")


def test_every_message_has_a_line_with_its_step_route_and_method(capsys, monkeypatch) -> None:
    code, text, _ = run(capsys, monkeypatch, OUTAGE, "--format", "text")
    assert code == 0
    _, js, _ = run(capsys, monkeypatch, OUTAGE)
    records = [json.loads(x) for x in js.splitlines()]
    lines = [line for line in parsed(text) if "host-side" not in line[5]]
    assert len(lines) == len(records)
    for line, rec in zip(lines, records, strict=True):
        assert (line[0], line[2], line[3], line[4]) == (rec["step"], rec["from"], rec["to"], http_of(rec))
        if rpc_of(rec):
            assert line[5].startswith(rpc_of(rec))


def test_a_step_that_sends_nothing_is_shown_as_host_side(capsys, monkeypatch) -> None:
    _, text, _ = run(capsys, monkeypatch, OUTAGE, "--format", "text")
    step1 = [line for line in parsed(text) if line[0] == 1]
    assert len(step1) == 1
    assert "C" in step1[0][1] and step1[0][2] == "host" and "host-side" in step1[0][5]


def test_a_scenario_files_steps_name_its_lines(capsys) -> None:
    path = default_root() / "scenarios" / "outage.yaml"
    code, text, _ = run(capsys, None, None, "--format", "text", str(path))
    assert code == 0
    steps = yaml.safe_load(path.read_text())["steps"]
    whats = {line[1] for line in parsed(text) if line[0] >= 1}
    named = {s.get("title") or s.get("narration") for s in steps}
    assert whats <= named and len(whats) >= 2


def test_markdown_is_a_table_with_a_row_per_line_and_each_step_named_once(capsys, monkeypatch) -> None:
    _, text, _ = run(capsys, monkeypatch, OUTAGE, "--format", "text")
    _, md, _ = run(capsys, monkeypatch, OUTAGE, "--format", "markdown")
    table = md.splitlines()
    assert table[0].startswith("| step |") and set(table[1]) <= set("|-: ")
    body = [[c.strip() for c in row.strip("|").split(" | ")] for row in table[2:]]
    assert len(body) == len(text.splitlines())
    named = [row[0] for row in body if row[1]]
    assert named == sorted(set(named), key=int) == [str(n) for n in range(len(OUTAGE["events"]) + 1)]


def test_era_picks_the_side(capsys, monkeypatch) -> None:
    modern = {**OUTAGE, "start": {**OUTAGE["start"], "era": "modern"}}
    _, as_picked, _ = run(capsys, monkeypatch, OUTAGE, "--format", "text", "--era", "modern")
    _, as_written, _ = run(capsys, monkeypatch, modern, "--format", "text")
    assert as_picked == as_written
    _, js, _ = run(capsys, monkeypatch, modern, "--era", "legacy")
    assert {json.loads(x)["era"] for x in js.splitlines()} == {"legacy"}


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_an_unknown_server_is_an_error(capsys, monkeypatch, fmt: str) -> None:
    pg = {"start": {"name": "outage", "era": "modern"}, "events": [{"kind": "server_dies", "server": "Z"}]}
    code, out, err = run(capsys, monkeypatch, pg, "--format", fmt)
    assert code != 0 and out == ""
    assert "Z" in err and "outage" in err


def test_an_unknown_event_is_an_error(capsys, monkeypatch) -> None:
    pg = {"start": {"name": "outage", "era": "modern"}, "events": [{"kind": "server_crashes", "server": "A"}]}
    code, out, err = run(capsys, monkeypatch, pg, "--format", "text")
    assert code != 0 and out == "" and "server_crashes" in err


def test_a_broken_scenario_file_is_an_error(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("id: broken\nsteps: []\n")
    code, out, err = run(capsys, None, None, "--format", "text", str(bad))
    assert code != 0 and out == "" and "broken.yaml" in err
