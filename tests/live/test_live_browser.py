"""Live mode in the browser, on loopback: the outage playground's "A dies" and "A is back" pressed against real
SDK servers; the live region shows their real table, prompt and wire beside the simulated frames, and no
server process is left once the page closes."""

from __future__ import annotations

import contextlib
import re

import psutil
import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.helpers import choose_era, message

pytestmark = pytest.mark.e2e

OUTAGE = "/lessons/an-outage"
START = 90_000  # ms: the opening starts two server processes, each importing the SDK


# What a client meets when A is back, in each era: legacy finds its session gone (404) and starts a new one;
# modern re-opens its listen stream. Then both list.
BACK = {"modern": ["subscriptions/listen", "tools/list"], "legacy": ["HTTP 404 Not Found", "initialize", "tools/list"]}


def done_for_real(step: int) -> str:
    """The live status after a press, up to the press's own label: "Step 1, done for real:"."""
    return message("live.step", step=step, label="\0").split("\0")[0].rstrip()


def test_a_dies_and_comes_back_on_real_servers_in_each_era(live_cli, browser: Browser) -> None:
    """One page walks both eras: modern first, then the era switch starts the live servers over, with a
    legacy host, and the same presses meet the real servers again."""
    page = browser.new_page()
    try:
        page.goto(live_cli.url + OUTAGE)
        section = page.get_by_role("region", name="Play out an outage")
        live = section.get_by_role("region", name=re.compile("Real servers on this machine"))
        expect(section.locator('[data-role="live-marker"]')).to_have_text("Live")
        status = live.get_by_role("status")
        table = live.get_by_role("region", name="Server table (real)")
        prompt = live.get_by_role("region", name="The model's next prompt (real)")
        real = live.get_by_role("region", name="Wire: real")
        simulated = live.get_by_role("region", name="Wire: simulated")
        row = table.get_by_role("row", name=re.compile(r"^A \(docs\)"))
        for era in ("modern", "legacy"):
            if era == "legacy":  # the era switch starts the live servers over, with a legacy host
                choose_era(section, "legacy")
            expect(status, f"{era}: the real servers start").to_contain_text(
                message("live.ready", era=era), timeout=START
            )
            expect(row).to_contain_text("connected")
            expect(prompt).to_contain_text("search_docs")
            kids = live_cli.children()
            assert len(kids) == 2, (era, kids)  # A and B, real processes

            section.get_by_role("button", name="A dies").click()
            expect(status).to_contain_text(done_for_real(1), timeout=START)
            expect(row).to_contain_text("down")
            expect(prompt).not_to_contain_text("search_docs")  # the model no longer sees A's tools
            expect(real).to_contain_text("stream closed")  # A's listen stream broke with the process
            expect(simulated).to_contain_text("stream closed")
            assert len(live_cli.children()) == 1, era  # only B runs

            section.get_by_role("button", name="A is back").click()
            expect(status).to_contain_text(done_for_real(2), timeout=START)
            expect(row).to_contain_text("connected")
            expect(prompt).to_contain_text("search_docs")
            # A new process, met again as the simulated frames say.
            for wire in (real, simulated):
                for text in BACK[era]:
                    expect(wire, f"{era}: {text}").to_contain_text(text)
            expect(real).to_contain_text("HTTP 200 OK")
            running = {k.pid for k in live_cli.children()}
            assert len(running) == 2 and len(running - {k.pid for k in kids}) == 1, era  # B as before, A anew
    finally:
        page.close()
    # The page went away: its socket closed, and the server killed every process it had started for it.
    _gone, alive = psutil.wait_procs(processes(live_cli.seen), timeout=30)
    assert not alive, f"left running after the page closed: {alive}"
    assert live_cli.children() == []
    assert live_cli.proc.poll() is None  # the lesson server itself goes on


def processes(pids) -> list[psutil.Process]:
    """The processes of ``pids`` still running: one may end between the question and the handle."""
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            found.append(psutil.Process(pid))
    return found
