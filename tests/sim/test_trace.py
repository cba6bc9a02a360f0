"""`lesson trace`: one JSON object per wire message; and the flows the lesson teaches, read from traces
and compared with what the SDK does (../shared/mcp-facts.md)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from lesson.cli import main

KEYS = {"step", "era", "from", "to", "transport", "http", "msg", "on_wire"}


def trace(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, playground: dict) -> list[dict]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(playground)))
    assert main(["trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    out = [json.loads(line) for line in lines]
    assert all(set(r) == KEYS for r in out)
    return out


def pg(name: str, era: str, events: list[dict], **options: object) -> dict:
    return {"start": {"name": name, "era": era, "options": options}, "events": events}


def names(records: list[dict], step: int | None = None) -> list[str]:
    """Each record as method, 'result', 'error', or the bare HTTP status."""
    out = []
    for r in records:
        if step is not None and r["step"] != step:
            continue
        m = r["msg"]
        if m is None:
            out.append(str(r["http"].get("status") or r["http"].get("method")))
        elif "method" in m:
            out.append(m["method"])
        else:
            out.append("error" if "error" in m else "result")
    return out


def test_each_record_has_the_documented_fields(capsys, monkeypatch) -> None:
    out = trace(
        capsys,
        monkeypatch,
        pg(
            "outage",
            "legacy",
            [
                {"kind": "server_dies", "server": "A"},
                {"kind": "take_turn", "calls": [{"server": "A", "tool": "search_docs"}]},
                {"kind": "deploy_tool", "server": "B"},
            ],
        ),
    )
    assert {r["step"] for r in out} == {0, 2, 3}, (
        "0 is the opening, then event indexes; a dead server's drop sends nothing"
    )
    host_made = [r for r in out if not r["on_wire"]]
    assert [(r["from"], r["to"], r["http"]) for r in host_made] == [("host", "model", None)]
    requests = [r for r in out if r["http"] and "method" in r["http"]]
    assert requests and all(k == k.lower() for r in requests for k in r["http"]["headers"])
    assert all(r["http"]["path"] == "/mcp" for r in requests)
    responses = [r for r in out if r["http"] and "status" in r["http"]]
    assert responses and all(set(r["http"]) == {"status", "headers", "sse"} for r in responses)


def test_stdio_records_have_no_http(capsys, monkeypatch) -> None:
    out = trace(
        capsys,
        monkeypatch,
        pg("restart", "legacy", [{"kind": "restart_server", "server": "W"}, {"kind": "take_turn"}], transport="stdio"),
    )
    assert out and all(r["transport"] == "stdio" and r["http"] is None for r in out)


def test_modern_list_changed_listen_ack_notification_relist(capsys, monkeypatch) -> None:
    out = [
        r
        for r in trace(capsys, monkeypatch, pg("outage", "modern", [{"kind": "deploy_tool", "server": "B"}]))
        if r["step"]
    ]
    assert names(out) == ["notifications/tools/list_changed", "tools/list", "result"]
    sub = out[0]["msg"]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
    assert sub.startswith("listen-") and out[0]["http"]["sse"] is True


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_modern_restart_with_a_listen_stream_relistens_waits_for_ack_then_relists(
    capsys, monkeypatch, transport
) -> None:
    out = trace(
        capsys,
        monkeypatch,
        pg("restart", "modern", [{"kind": "restart_server", "server": "W"}], listen=True, transport=transport),
    )
    out = [r for r in out if r["step"] == 1]
    # On stdio the new process is a new connection: the client opens it as it opened the first, with discover.
    opening = ["server/discover", "result"] if transport == "stdio" else []
    assert names(out) == [
        *opening,
        "subscriptions/listen",
        "notifications/subscriptions/acknowledged",
        "tools/list",
        "result",
    ]
    assert "initialize" not in names(out)


def test_legacy_http_restart_404_initialize_initialized_list(capsys, monkeypatch) -> None:
    out = trace(capsys, monkeypatch, pg("restart", "legacy", [{"kind": "restart_server", "server": "W"}], listen=True))
    out = [r for r in out if r["step"] == 1]
    assert names(out) == [
        "GET",
        "error",
        "initialize",
        "result",
        "notifications/initialized",
        "202",
        "GET",
        "200",
        "tools/list",
        "result",
    ]
    assert out[1]["http"]["status"] == 404
    assert "mcp-session-id" in out[0]["http"]["headers"] and "mcp-session-id" not in out[2]["http"]["headers"]
    assert out[3]["http"]["headers"]["mcp-session-id"] == out[8]["http"]["headers"]["mcp-session-id"]


@pytest.mark.parametrize(
    ("durable", "second"), [(True, ["tools/call", "result"]), (False, ["tools/call", "error", "tools/call", "result"])]
)
def test_mrtr_across_a_restart(capsys, monkeypatch, durable, second) -> None:
    out = trace(
        capsys,
        monkeypatch,
        pg(
            "restart",
            "modern",
            [
                {"kind": "ask_user_input", "server": "W"},
                {"kind": "restart_server", "server": "W"},
                {"kind": "user_answers", "server": "W"},
            ],
            state_key_durable=durable,
        ),
    )
    assert names(out, 1) == ["tools/call", "result"] and names(out, 2) == []
    assert names(out, 3) == second
    last = [r for r in out if r["step"] == 3][-1]["msg"]["result"]
    assert last["resultType"] == ("complete" if durable else "input_required")


def test_a_call_in_flight_when_the_server_dies(capsys, monkeypatch) -> None:
    out = trace(
        capsys,
        monkeypatch,
        pg("outage", "modern", [{"kind": "start_call", "server": "A"}, {"kind": "server_dies", "server": "A"}]),
    )
    died = [r for r in out if r["step"] == 2]
    assert [(r["from"], r["to"], r["on_wire"]) for r in died] == [("host", "model", False)]
    assert died[0]["msg"]["isError"] is True


def test_reads_a_file_and_rejects_bad_input(tmp_path: Path, capsys) -> None:
    good = tmp_path / "pg.json"
    good.write_text(json.dumps(pg("gateway", "legacy", [{"kind": "take_turn"}])))
    assert main(["trace", str(good)]) == 0
    assert capsys.readouterr().out.count("\n") > 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"start": {"name": "outage"}, "events": [{"kind": "no_such_event"}]}')
    assert main(["trace", str(bad)]) == 2
    assert "not a playground" in capsys.readouterr().err
    assert main(["trace", str(tmp_path / "missing.json")]) == 2
    bad.write_text('{"start": {"name": "nowhere"}, "events": []}')
    assert main(["trace", str(bad)]) == 2
    assert "unknown start" in capsys.readouterr().err


def test_trace_takes_a_scenario_file(capsys):
    """An instructor hands out the frames of a prepared run: a scenario file traces like a playground."""
    from lesson.content.course import default_root

    assert main(["trace", str(default_root() / "scenarios" / "outage.yaml")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(line["step"] >= 0 for line in lines) and lines[-1]["step"] >= 1
    # The scripted outage kills a server during a call: the host builds the error itself, off the wire.
    assert any(not line["on_wire"] and line["from"] == "host" for line in lines)


def test_trace_into_a_reader_that_stops_early_ends_quietly():
    """``lesson trace ... | head -1``: the reader closes the pipe; the command ends without a traceback. The
    trace (200 turns, about 390 KB) is more than a pipe holds, so the writer always meets the closed pipe."""
    import subprocess
    import sys

    playground = json.dumps({"start": {"name": "outage", "era": "modern"}, "events": [{"kind": "take_turn"}] * 200})
    trace = subprocess.Popen(
        [sys.executable, "-m", "lesson.cli", "trace"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert trace.stdin is not None and trace.stdout is not None
    trace.stdin.write(playground.encode())
    trace.stdin.close()
    assert trace.stdout.readline()
    trace.stdout.close()  # as head does after its first line
    err = trace.stderr.read() if trace.stderr else b""
    trace.wait(timeout=60)
    assert b"Traceback" not in err and trace.returncode == 0, err.decode()


def test_trace_reports_a_broken_scenario_file(tmp_path, capsys):
    bad = tmp_path / "broken.yaml"
    bad.write_text("id: broken\nsteps: []\n")
    assert main(["trace", str(bad)]) == 2
    assert "broken.yaml" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("era", "opening"),
    [
        ("modern", ["server/discover", "result", "subscriptions/listen", "notifications/subscriptions/acknowledged"]),
        ("legacy", ["initialize", "result", "notifications/initialized", "202", "GET", "200"]),
    ],
)
def test_step_0_is_the_opening_each_client_greets_listens_and_lists(capsys, monkeypatch, era, opening) -> None:
    """Every wire message, the opening included: before any event, each configured client does its era's
    greeting, opens its stream, then lists."""
    out = trace(capsys, monkeypatch, pg("outage", era, []))
    assert out and {r["step"] for r in out} == {0}
    for server in ("A", "B"):
        mine = [r for r in out if server in (r["from"], r["to"])]
        assert names(mine) == [*opening, "tools/list", "result"]
        assert mine[0]["from"] == "host" and mine[-1]["msg"]["result"]["tools"]
