"""A live playground: the outage playground's servers as real SDK server processes on 127.0.0.1, an SDK host
driving its clients the way the simulated host does, and the simulation run beside it on the same presses.

Each press is first applied to the simulation, which decides what the model does (the tools it calls and
their arguments): only the protocol is real here, not the model. A press the simulation refuses does nothing
live either. Then the same press is done for real (a deploy is SIGUSR1 to the server's process, a death is
SIGKILL, a return is a new process behind the same address) and every frame a recording proxy saw cross, with what
the host saw (a stream that broke, the error it built for the model), is the press's real wire.

Each playground runs its own event loop in a thread of its own (an anyio blocking portal); the web layer
calls ``press`` and ``close`` from the socket's thread. ``Registry`` bounds how many playgrounds and server
processes run, per playground and in total; every process is its own process group, ends itself after
``lifetime`` seconds or as soon as the lesson server is gone, and is killed when its playground closes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.from_thread import start_blocking_portal

from lesson.content.panels import PlaygroundPanel

from .. import narration
from ..i18n import DEFAULT
from ..sim import advance, begin
from ..sim.model import PromptTool, Said, said
from ..sim.step import changed as change_msg
from ..sim.step import msg
from ..sim.view import NextPrompt, PromptEntry, ServerRow
from .frames import calls_made, to_frames
from .host import SdkHost
from .proxy import Proxy
from .record import WAIT, Recorder

# What a live playground can do for real: the outage playground's buttons.
SUPPORTED = {"deploy_tool", "add_server", "start_call", "server_dies", "server_back", "take_turn"}


class LiveRefused(Exception):
    """A live playground cannot start or go on; ``message`` says why and which setting bounds it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class LiveServerRow(ServerRow):
    """A server-table row of a live playground: the simulation's, with the real process's id."""

    pid: int | None = None


@dataclass(frozen=True)
class Limits:
    playgrounds: int = 2  # LESSON_LIVE_MAX_PLAYGROUNDS
    processes: int = 8  # LESSON_LIVE_MAX_PROCESSES: server processes alive, all playgrounds together
    per_playground: int = 3  # LESSON_LIVE_PROCESSES_PER_PLAYGROUND
    lifetime: float = 900.0  # LESSON_LIVE_LIFETIME: seconds a server process may live
    press: float = 45.0  # LESSON_LIVE_PRESS_TIMEOUT: seconds a press (or the opening) may take


class Registry:
    """Every live playground of this process, and the server processes they run."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.playgrounds: set[LivePlayground] = set()
        self.processes: dict[int, LivePlayground] = {}  # pid -> its playground, while it runs
        self.stopped = False
        self._lock = threading.Lock()

    def open(self, panel: PlaygroundPanel, era: str, locale: str = DEFAULT) -> LivePlayground:
        """A new live playground with its opening done (servers up, clients connected and listed)."""
        with self._lock:
            if self.stopped:
                raise LiveRefused("live_stopped", "the lesson server is stopping: no live playground starts now")
            if len(self.playgrounds) >= self.limits.playgrounds:
                raise LiveRefused(
                    "live_busy",
                    f"{len(self.playgrounds)} live playground(s) already run, the most LESSON_LIVE_MAX_PLAYGROUNDS "
                    "allows: close one (its page) or raise the setting",
                )
            pg = LivePlayground(self, panel, era, locale)
            self.playgrounds.add(pg)
        try:
            pg.start()
        except BaseException:
            pg.close()
            raise
        return pg

    def take(self, pg: LivePlayground, proc: Any = None) -> None:
        """Room for one more server process of ``pg``, or LiveRefused; ``proc``: record it once started."""
        with self._lock:
            if proc is not None:
                self.processes[proc.pid] = pg
                return
            mine = sum(1 for owner in self.processes.values() if owner is pg)
            if self.stopped or pg.closed:
                raise LiveRefused("live_stopped", "this live playground is closed")
            if mine >= self.limits.per_playground:
                raise LiveRefused(
                    "live_processes",
                    f"this playground already runs {mine} server process(es), the most "
                    "LESSON_LIVE_PROCESSES_PER_PLAYGROUND allows",
                )
            if len(self.processes) >= self.limits.processes:
                raise LiveRefused(
                    "live_processes",
                    f"{len(self.processes)} live server processes already run, the most LESSON_LIVE_MAX_PROCESSES "
                    "allows: close a live playground or raise the setting",
                )

    def ended(self, pid: int) -> None:
        with self._lock:
            self.processes.pop(pid, None)

    def forget(self, pg: LivePlayground) -> None:
        with self._lock:
            self.playgrounds.discard(pg)

    def close_all(self) -> None:
        """The lesson server stops: close every live playground (their processes are killed) and start none."""
        with self._lock:
            self.stopped = True
            playgrounds = list(self.playgrounds)
        for pg in playgrounds:
            pg.close()


class LivePlayground:
    def __init__(self, registry: Registry, panel: PlaygroundPanel, era: str, locale: str = DEFAULT) -> None:
        self.registry, self.panel, self.era, self.locale = registry, panel, era, locale
        self.run = begin(panel.start.model_copy(update={"era": era}))
        self.rec = Recorder()
        self.procs: dict[str, subprocess.Popen] = {}
        self.proxies: dict[str, Proxy] = {}
        self.urls: dict[str, str] = {}
        self.configured: list[str] = list(self.run.state.host.configured)
        self.holding: set[str] = set()  # servers with a call still running
        self.turns = 0
        self.last_prompt: list[tuple[str, str]] = []
        self.last_change: dict[str, Said] = {}  # the table's "last change" of each server
        self.closed = False
        self.host: SdkHost | None = None
        self._portal_cm: Any = None
        self._portal: Any = None
        self._stop: anyio.Event | None = None
        self._tg: Any = None
        self._pressing = threading.Lock()
        self._closing = threading.Lock()

    # --- life ------------------------------------------------------------------------------------

    def start(self) -> dict[str, Any]:
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._portal.start_task(self._main)
        mark = len(self.rec.records)
        self._portal.call(self._timed, self._opening)
        self.opening = self.answer(0, Said(code="narration.event.start"), mark, [])
        return self.opening

    async def _main(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        self._stop = anyio.Event()
        async with anyio.create_task_group() as tg:
            self._tg = tg
            task_status.started()
            await self._stop.wait()
            tg.cancel_scope.cancel()

    async def _timed(self, fn: Any, *args: Any) -> Any:
        with anyio.fail_after(self.registry.limits.press):
            return await fn(*args)

    async def _opening(self) -> None:
        await self.launch(self.configured)
        self.host = SdkHost(self.rec, self.era, self._tg, self.urls)
        for name in self.configured:
            await self.host.connect(name)
            self.last_change[name] = self.changed(0, "narration.table.connected")

    def close(self) -> None:
        """Kill every server process of this playground, end its clients and proxies, stop its event loop.
        Safe to call more than once, from any thread."""
        with self._closing:
            if self.closed:
                return
            self.closed = True
        try:
            for name in list(self.procs):
                self.kill_now(name)
            if self._portal is not None:
                with contextlib.suppress(Exception):
                    self._portal.call(self._shutdown)
                with contextlib.suppress(Exception):  # a press still under way is cancelled, not waited for
                    self._portal.call(self._portal.stop, True)
                with contextlib.suppress(Exception):
                    self._portal_cm.__exit__(None, None, None)
        finally:
            self.registry.forget(self)

    async def _shutdown(self) -> None:
        for proxy in self.proxies.values():
            await proxy.close()
        if self._stop is not None:
            self._stop.set()

    # --- processes ---------------------------------------------------------------------------------

    def spec(self, name: str) -> dict[str, Any]:
        """The server as the simulation defines it at this start (its tools and upcoming tools)."""
        srv = self.run.state.servers[name]
        return {
            "title": srv.title,
            "tools": [t.model_dump() for t in srv.tools],
            "upcoming": [t.model_dump() for t in srv.upcoming],
        }

    async def launch(self, names: list[str]) -> None:
        """Start each server (again) behind its recording proxy, which keeps its address; side by side, since
        most of a start is importing the SDK."""
        for name in names:
            self.registry.take(self)
            cmd = [sys.executable, "-m", "lesson.live.server", "--spec", json.dumps(self.spec(name))]
            cmd += ["--lifetime", str(self.registry.limits.lifetime), "--parent", str(os.getpid())]
            # Its own process group: a kill reaches it whatever it started. It picks its own port and says which.
            proc = subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
            self.procs[name] = proc
            self.registry.take(self, proc)
            if name not in self.proxies:
                proxy = self.proxies[name] = Proxy(self.rec.add, name, None, hold=self.registry.limits.lifetime)
                self.urls[name] = f"http://127.0.0.1:{await proxy.start()}/mcp"
        for name in names:
            proc = self.procs[name]
            assert proc.stdout is not None
            with anyio.fail_after(WAIT * 2):
                said = await anyio.to_thread.run_sync(proc.stdout.readline, abandon_on_cancel=True)
            proc.stdout.close()
            if not said.strip().isdigit():  # nothing (the process ended) or not a port
                raise LiveRefused("live_failed", f"{name}'s process ended as it started, or never said its port")
            self.proxies[name].upstream_port = int(said)

    def kill_now(self, name: str) -> None:
        """SIGKILL to the server's process group: no goodbye; every exchange still open with it breaks. Its
        proxy holds what comes next until the server is back: the old port is free for anyone to take."""
        if name in self.proxies:
            self.proxies[name].upstream_port = None
        proc = self.procs.pop(name, None)
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(WAIT)
        self.registry.ended(proc.pid)

    async def kill(self, name: str) -> None:
        await anyio.to_thread.run_sync(self.kill_now, name)

    # --- presses -----------------------------------------------------------------------------------

    def press(self, button_id: str) -> dict[str, Any]:
        button = self.panel.button(button_id)
        if button is None:
            raise LiveRefused("unknown_button", f"the {self.panel.id} playground has no button {button_id!r}")
        event = button.event
        if event.kind not in SUPPORTED:
            raise LiveRefused("not_live", f"{button.label!r} has no live counterpart")
        with self._pressing:
            if self.closed:
                raise LiveRefused("live_stopped", "this live playground is closed")
            run = advance(self.run, event)
            assert run.last is not None
            if run.last.rejected:  # the simulation refuses it: nothing is done for real either
                self.run = run
                return self.answer(run.state.step, event.describe(), len(self.rec.records), [])
            self.run = run
            mark = len(self.rec.records)
            lines: list[dict[str, str]] = []
            try:
                self._portal.call(self._timed, self.act, event, lines)
            except LiveRefused as err:
                # An error's English, as the service's refusals are, with its refusal's code beside it.
                lines.append({"text": err.message, "refusal": err.code, "tone": "error"})
            except TimeoutError as err:
                why = str(err) or self.say("live.too_long", seconds=f"{self.registry.limits.press:g}")
                lines.append(self.line("error", "live.unfinished", why=why))
            except Exception as err:
                lines.append(self.line("error", "live.press_failed", error=repr(err)))
            return self.answer(run.state.step, event.describe(), mark, lines)

    def say(self, code: str, **params: Any) -> str:
        """A message of the catalogue in this playground's locale."""
        return narration.sentence(code, params, self.locale)

    def changed(self, step: int, code: str) -> Said:
        """A server's "last change" cell, built as the simulation's table builds it (``step.changed``)."""
        change = change_msg(step, msg(code))
        return said(change["code"], **change["params"])

    def line(self, tone: str, code: str, **params: str) -> dict[str, str]:
        """One line of what the real host did: its message code and its sentence, as the simulation's lines."""
        return {"code": code, "text": self.say(code, **params), "tone": tone}

    def sim_calls(self) -> list[tuple[str, str, dict[str, str]]]:
        """The tool calls the simulated model made at this press: (server, tool, arguments), in order."""
        assert self.run.last is not None
        return calls_made(self.run.last)

    async def act(self, event: Any, lines: list[dict[str, str]]) -> None:
        host = self.host
        assert host is not None
        step = self.run.state.step
        kind, name = event.kind, getattr(event, "server", None)
        if kind == "deploy_tool":
            os.kill(self.procs[name].pid, signal.SIGUSR1)
            tools = await host.changed(name)
            self.last_change[name] = self.changed(step, "live.table.relisted")
            lines.append(self.line("change", "live.deployed", server=name, tools=", ".join(tools)))
        elif kind == "add_server":
            await self.launch([name])
            self.configured.append(name)
            await host.connect(name)
            self.last_change[name] = self.changed(step, "narration.table.added")
            lines.append(self.line("change", "live.added", server=name))
        elif kind == "start_call":
            self.take_turn()  # a turn whose call is left running, as in the simulation beside it
            for server, tool, args in self.sim_calls():
                mark = len(self.rec.records)
                self._tg.start_soon(host.call, server, tool, args, True)
                call = await self.rec.wait(
                    lambda r: r.get("kind") == "request" and (r.get("msg") or {}).get("method") == "tools/call",
                    "the call", mark,
                )  # fmt: skip
                if self.era == "legacy":
                    # The call runs once the server answered with its stream's head: a legacy POST that breaks
                    # before any response ends the SDK's whole client, a different story from the lesson's.
                    await self.rec.wait(
                        lambda r, x=call["exchange"]: r.get("kind") == "response" and r["exchange"] == x,
                        "the call's stream", mark,
                    )  # fmt: skip
                self.holding.add(server)
                lines.append(self.line("model", "live.call_sent", tool=tool, server=server))
        elif kind == "server_dies":
            mark = len(self.rec.records)
            await self.kill(name)
            # The stream the host held open (legacy GET, modern listen) breaks with the process: shown in this
            # press, not the next one.
            with contextlib.suppress(TimeoutError):
                await self.rec.wait(
                    lambda r: r.get("kind") == "proxy_error" and r["server"] == name, "the stream's end", mark, 5.0
                )
            await host.wait_lost(name)
            if name in self.holding:
                await host.wait_local_error(name)
                self.holding.discard(name)
            self.last_change[name] = self.changed(step, "live.table.killed")
            lines.append(self.line("error", "live.killed", server=name))
        elif kind == "server_back":
            mark = len(self.rec.records)
            await self.launch([name])
            if self.era == "legacy":
                # The SDK client's own GET retry meets the new process: 404, the session is gone. Then the host
                # starts a new session.
                with contextlib.suppress(TimeoutError):
                    await self.rec.wait(
                        lambda r: r.get("kind") == "response" and r["server"] == name and r["status"] == 404,
                        "a 404", mark,
                    )  # fmt: skip
                await host.connect(name)
            else:
                await host.back(name)
            self.last_change[name] = self.changed(step, "live.table.back_relisted")
            lines.append(self.line("change", "live.back", server=name))
        elif kind == "take_turn":
            self.take_turn()
            for server, tool, args in self.sim_calls():
                text = await host.call(server, tool, args)
                if text is None:
                    lines.append(self.line("failed", "live.call_failed", tool=tool, server=server))
                else:
                    lines.append(self.line("model", "live.call_answered", tool=tool, server=server, text=text))

    def take_turn(self) -> None:
        """The host calls the model: one more turn, and the prompt it saw is the last one."""
        self.turns += 1
        self.last_prompt = [(t.name, t.server) for t in self.prompt()]

    # --- what the page shows -----------------------------------------------------------------------

    def prompt(self) -> list[PromptEntry]:
        host = self.host
        out: list[PromptEntry] = []
        if host is None:
            return out
        before = set(self.last_prompt)
        for name in self.configured:
            conn = host.conns.get(name)
            if conn is None or name in host.down:
                continue
            for tool in conn.tools:
                new = self.turns > 0 and (tool, name) not in before
                out.append(PromptEntry(name=tool, server=name, change="new" if new else "unchanged"))
        return out

    def rows(self) -> list[LiveServerRow]:
        host = self.host
        rows = []
        for name in self.configured:
            conn = host.conns.get(name) if host else None
            down = host is None or name in host.down or conn is None
            if down:
                listen = said("narration.table.listen.none")
            elif self.era == "modern":
                listen = said("live.table.listen")
            else:
                listen = said("narration.table.listen.sse")
            rows.append(
                LiveServerRow(
                    name=name,
                    title=self.run.state.servers[name].title,
                    status="down" if down else "connected",
                    era=self.era,
                    transport="http",
                    listen=listen,
                    tools=[] if down or conn is None else list(conn.tools),
                    last_change=self.last_change.get(name),
                    last_error=said("live.table.process_gone") if down else None,
                    pid=self.procs[name].pid if name in self.procs else None,
                )
            )
        return rows

    def answer(self, step: int, label: Said, mark: int, lines: list[dict[str, str]]) -> dict[str, Any]:
        last = self.run.last
        words = narration.words(self.locale)
        prompt = self.prompt()
        now = {(t.name, t.server) for t in prompt}
        removed = [PromptTool(name=n, server=s) for n, s in self.last_prompt if (n, s) not in now]
        # The same models as the simulation's view (a live row adds its process id): what the page draws
        # for both cannot drift apart.
        next_prompt = NextPrompt(
            tools=prompt, removed=removed, cache_invalidations=0, batching=False, pending_changes=0, turns=self.turns
        )
        return {
            "type": "live",
            "panel": self.panel.id,
            "era": self.era,
            "step": step,
            "label": label.model_dump(mode="json", context=words),
            "servers": [row.model_dump(mode="json", context=words) for row in self.rows()],
            "next_prompt": next_prompt.model_dump(mode="json", context=words),
            "lines": lines,
            "wire": to_frames(list(self.rec.records[mark:]), self.era, self.say),
            "sim": {
                "lines": [line.model_dump(mode="json", context=narration.words(self.locale)) for line in last.lines]
                if last
                else [],
                "wire": [f.model_dump(mode="json", context=narration.words(self.locale)) for f in last.wire]
                if last
                else [],
            },
        }
