"""Differential harness: real SDK servers and clients on loopback, every frame that crosses recorded, and
the recording held against ``lesson trace`` of the same flow.

A ``Lab`` starts servers (``servers/lab_server.py``) as processes: over HTTP behind a logging reverse
proxy (``taps/http_proxy.py``), over stdio behind a pass-through tap (``taps/stdio_tap.py``) that the
SDK client launches as if it were the server. All of them append to one log, in the order things cross.
``LabHost`` (host.py) drives SDK clients the way the simulated host drives its own. ``normalise`` turns both the
log and the trace into the same comparable frames, leaving out only what may differ (ids, session ids,
server names, texts), and applying the allowed variants of ``allowed_variants.yaml``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psutil
import yaml

from lesson.live.frames import calls_made
from lesson.sim.run import Playground, advance, begin
from lesson.sim.starts import STARTS
from lesson.sim.trace import trace
from lesson.sim.wire import INPUT_KEY
from tests.ports import free_port

HERE = Path(__file__).parent
REPO = HERE.parent.parent
PY = sys.executable
LIFETIME = 120.0  # seconds a server, tap or proxy may live, whatever happens to the test (beyond a flow's limit)
WAIT = 15.0  # seconds to wait for a condition (a port open, a frame logged) before failing
VARIANTS = yaml.safe_load((HERE / "allowed_variants.yaml").read_text())["variants"]
TEARDOWN = -1  # the step of what crosses once the flow is over (never compared)
SETUP = -2  # the step of what crosses before the scenario starts (never compared)


def server_spec(start: str, name: str, options: dict[str, Any]) -> dict[str, Any]:
    """What the SDK server for ``name`` offers: the simulation's own definitions at that start."""
    servers, _ = STARTS[start](options)
    srv = next(s for s in servers if s.name == name)
    return {
        "title": srv.title,
        "list_changed": srv.list_changed,
        "auth": srv.auth,  # it wants a bearer token
        "tools": [t.model_dump() for t in srv.tools],
        "upcoming": [t.model_dump() for t in srv.upcoming],
        "input_key": INPUT_KEY,
    }


def wait_for(condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll ``condition`` until it returns something true; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
        return True
    except OSError:
        return False


class Forked:
    """A server the zygote forked: not this process's child, so it is watched by pid."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        try:
            alive = psutil.Process(self.pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            alive = False
        return None if alive else 0

    def wait(self, timeout: float) -> int:
        wait_for(lambda: self.poll() is not None, f"process {self.pid} to end", timeout)
        return 0


class Zygote:
    """``servers/zygote.py``: forks HTTP servers from a process that has already imported the SDK."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="zygote-")  # a short path: a Unix socket's is at most 107 bytes
        self.socket = os.path.join(self.dir, "fork.sock")
        self.proc = subprocess.Popen(
            [PY, str(HERE / "servers" / "zygote.py"), str(LIFETIME * 20), self.socket],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
            cwd=REPO,
            text=True,
        )
        # Ready once it has imported the SDK and listens: a stdio tap may connect from then on.
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n", "the zygote did not start"

    def fork(self, argv: list[str]) -> Forked:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(argv) + "\n")
        self.proc.stdin.flush()
        return Forked(int(self.proc.stdout.readline()))

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(WAIT)
        shutil.rmtree(self.dir, ignore_errors=True)


ZYGOTE: Zygote | None = None  # set for the session by conftest.py


class Lab:
    """The processes of one flow and the log they share. ``close`` kills every process group it started."""

    def __init__(self, tmp: Path, start: str, options: dict[str, Any] | None = None, **server_args: str) -> None:
        self.log_path = tmp / "wire.jsonl"
        self.log_path.touch()
        self.start, self.options, self.server_args = start, options or {}, server_args
        self.procs: list[subprocess.Popen | Forked] = []
        self.http: dict[str, dict[str, Any]] = {}  # name -> ports, processes, server args
        self.fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND)

    # --- the log ---------------------------------------------------------------------------------

    def mark(self, **record: Any) -> None:
        os.write(self.fd, (json.dumps(record) + "\n").encode())

    def step(self, n: int) -> None:
        """What crosses from now on belongs to event ``n`` of the playground (0: the opening)."""
        self.mark(kind="step", n=n)

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line]

    def wait_logged(self, match: Callable[[dict[str, Any]], bool], what: str, after: int = 0) -> dict[str, Any]:
        return wait_for(lambda: next((r for r in self.records()[after:] if match(r)), None), what)

    # --- processes ---------------------------------------------------------------------------------

    def server_command(
        self, name: str, transport: str, port: int = 0, script: str = "lab_server.py", **extra: str
    ) -> list[str]:
        """``script``: the server's program in ``servers/`` (``legacy_only.py``: a server of one era)."""
        spec = server_spec(self.start, name, self.options)
        cmd = [PY, str(HERE / "servers" / script), "--spec", json.dumps(spec), "--transport", transport]
        cmd += ["--lifetime", str(LIFETIME), "--port", str(port)]
        for key, value in {**self.server_args, **extra}.items():
            if key != "tokens_file" or spec["auth"]:  # the lab's tokens protect the servers that want one
                cmd += [f"--{key.replace('_', '-')}", value]
        return cmd

    def spawn(self, cmd: list[str]) -> subprocess.Popen | Forked:
        # Its own process group: a kill reaches it and anything it started, even if the test fails.
        if ZYGOTE is not None and cmd[1].endswith("lab_server.py"):
            proc: subprocess.Popen | Forked = ZYGOTE.fork(cmd[2:])
            self.procs.append(proc)
            return proc
        proc = subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL, cwd=REPO)
        self.procs.append(proc)
        return proc

    def start_http(self, *names: str, each: dict[str, dict[str, str]] | None = None, **extra: str) -> None:
        """Start (or start again, on the same ports) each server over HTTP behind its logging proxy; ``extra``
        server arguments for this start only (``each``: by server). They start side by side: most of a start is
        importing the SDK."""
        units = [self.http.setdefault(n, {"up": free_port(), "public": free_port()}) for n in names]
        for name, unit in zip(names, units, strict=True):
            args = {**extra, **(each or {}).get(name, {})}
            unit["server"] = self.spawn(self.server_command(name, "http", unit["up"], **args))
            if "proxy" not in unit or unit["proxy"].poll() is not None:
                proxy = [PY, str(HERE / "taps" / "http_proxy.py"), str(self.log_path), name, str(unit["public"])]
                unit["proxy"] = self.spawn(proxy + [str(unit["up"]), str(LIFETIME)])
        for name, unit in zip(names, units, strict=True):
            wait_for(lambda u=unit: port_open(u["up"]) and port_open(u["public"]), f"{name} and its proxy to listen")

    def start_replicas(self, name: str, count: int) -> None:
        """``name`` as ``count`` replicas, each a process of its own on a port of its own, behind one proxy: the
        load balancer, which sends every exchange to the first until ``land`` routes them to another."""
        self.start_http(name)
        unit = self.http[name]
        unit["replicas"] = [unit["up"]] + [free_port() for _ in range(count - 1)]
        for port in unit["replicas"][1:]:
            self.spawn(self.server_command(name, "http", port))
        for port in unit["replicas"][1:]:
            wait_for(lambda port=port: port_open(port), f"a replica of {name} to listen")

    def land(self, name: str, replica: int) -> None:
        """The load balancer sends ``name``'s new exchanges to ``replica`` (from 1); those open stay where they are.
        The route file is replaced whole, so the proxy never reads half of it."""
        route = self.log_path.parent / f"route-{name}"
        route.with_suffix(".new").write_text(str(self.http[name]["replicas"][replica - 1]))
        route.with_suffix(".new").replace(route)

    def url(self, name: str, client: str = "host") -> str:
        port = self.http[name]["public"] if client == "host" else self.http[name]["clients"][client]
        return f"http://127.0.0.1:{port}/mcp"

    def start_gateway(self, name: str, backends: list[str], joined: list[str], others: list[str]) -> None:
        """The gateway ``name`` in front of ``backends`` (``joined`` at first; the rest may join), with a
        logging proxy for this host and one for each of the ``others`` hosts. Backends are reached directly:
        what the gateway says to them is not on the host's wire."""
        urls = {}
        for b in backends:
            port = free_port()
            self.spawn(self.server_command(b, "http", port))
            urls[b] = f"http://127.0.0.1:{port}/mcp"
        for b in backends:
            wait_for(lambda b=b: port_open(int(urls[b].split(":")[2].split("/")[0])), f"backend {b} to listen")
        unit = self.http[name] = {"up": free_port(), "public": free_port(), "clients": {}}
        self.control = self.log_path.parent / "operator.txt"
        cmd = [PY, str(HERE / "servers" / "gateway.py"), "--backends", json.dumps(urls), "--joined", ",".join(joined)]
        cmd += ["--control", str(self.control), "--port", str(unit["up"]), "--lifetime", str(LIFETIME)]
        unit["server"] = self.spawn(cmd)
        wait_for(lambda: port_open(unit["up"]), f"gateway {name} to listen")
        for client in ["host", *others]:
            port = unit["public"] if client == "host" else free_port()
            unit["clients"][client] = port
            proxy = [PY, str(HERE / "taps" / "http_proxy.py"), str(self.log_path), name, str(port)]
            proc = self.spawn(proxy + [str(unit["up"]), str(LIFETIME), client])
            unit["proxy" if client == "host" else f"proxy {client}"] = proc
        for port in unit["clients"].values():
            wait_for(lambda port=port: port_open(port), "the gateway's proxies to listen")

    def operate(self, name: str, action: str) -> None:
        """An operator action on the gateway ("fails B", "joins C"...), from outside any request."""
        self.control.write_text(action)
        os.kill(self.http[name]["server"].pid, signal.SIGUSR1)

    def stdio_command(self, name: str, **extra: str) -> tuple[str, list[str]]:
        """The command a host launches for ``name`` over stdio: the tap, which starts the server."""
        zygote = ZYGOTE.socket if ZYGOTE is not None else ""  # forks lab servers that have imported the SDK
        tap = [str(HERE / "taps" / "stdio_tap.py"), str(self.log_path), name, str(LIFETIME), zygote, "--"]
        return PY, tap + self.server_command(name, "stdio", **extra)

    def stdio_pid(self, name: str) -> int:
        spawns = [r for r in self.records() if r.get("kind") == "spawn" and r["server"] == name]
        assert spawns, f"{name} was never launched over stdio"
        return spawns[-1]["pid"]

    def pid(self, name: str) -> int:
        return self.http[name]["server"].pid if name in self.http else self.stdio_pid(name)

    def deploy(self, name: str) -> None:
        """The operator deploys the server's next tool, from outside any request."""
        os.kill(self.pid(name), signal.SIGUSR1)

    def announce(self, name: str) -> None:
        """The server says its list changed, though nothing did (a timer, or a notice it never declared)."""
        os.kill(self.pid(name), signal.SIGUSR2)

    def wants_token(self, name: str) -> bool:
        return bool(self.server_args.get("tokens_file")) and server_spec(self.start, name, self.options)["auth"]

    def kill(self, name: str) -> None:
        """The process dies: SIGKILL, no goodbye; every exchange still open with it breaks. Over HTTP, what a
        client sends meanwhile waits for the server to be back (the proxy holds it)."""
        if name not in self.http:
            os.kill(self.stdio_pid(name), signal.SIGKILL)
            return
        proc = self.http[name]["server"]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(WAIT)
        # A forked server counts as ended once its main thread is a zombie, but its other threads may still
        # hold its listening socket for a moment: a connection accepted there then is reset, and a restart's
        # readiness check would be answered by the dying process. Wait until the port refuses.
        wait_for(lambda: not port_open(self.http[name]["up"]), f"{name}'s old process to stop listening")

    # --- the authorization server: the tokens the servers accept, kept outside any server process ---------

    def tokens_file(self) -> str:
        path = self.log_path.parent / "tokens.json"
        if not path.exists():
            path.write_text("{}")
            self.valid: dict[str, str] = {}  # token -> the role of the user it was issued to
            self.refreshable: set[str] = set()
            self.roles: dict[str, str] = {}  # every token ever issued -> its user's role
            self.issued = itertools.count(1)
        return str(path)

    def _write_tokens(self) -> None:
        Path(self.tokens_file()).write_text(json.dumps(self.valid))

    def issue_token(self, role: str = "member") -> str:
        """A new access token (and its refresh grant) for a user signed in as ``role``."""
        self.tokens_file()
        token = f"token-{next(self.issued)}"
        self.valid[token] = self.roles[token] = role
        self.refreshable.add(token)
        self._write_tokens()
        return token

    def expire(self, token: str) -> None:
        """The access token expires; its refresh grant still works."""
        self.valid.pop(token, None)
        self._write_tokens()

    def refresh(self, token: str) -> str | None:
        """A new access token for a refreshable one; None once the grant is gone (the user signs in again)."""
        if token not in self.refreshable:
            return None
        self.refreshable.discard(token)
        self.valid.pop(token, None)
        return self.issue_token(self.roles[token])

    def forget_tokens(self) -> None:
        """An authorization server inside the server's process restarted: every token and grant is gone."""
        self.valid, self.refreshable = {}, set()
        self._write_tokens()

    def close(self) -> None:
        # Stdio servers a zygote forked are no children of their tap: make sure none outlives the flow.
        for r in self.records():
            if r.get("kind") == "spawn":
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(r["pid"], signal.SIGKILL)
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired, AssertionError):
                proc.wait(WAIT)
        os.close(self.fd)


# --- from the log to frames shaped like ``lesson trace``'s ----------------------------------------


def sdk_frames(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log as frames: ``step``, ``from``, ``to``, ``transport``, ``http``, ``msg``, ``on_wire``.

    An HTTP response follows its own request (exchanges may overlap on the wire); an SSE response to a POST
    carries its first event as its message, like the trace's; later events are frames of their own."""
    out: list[dict[str, Any]] = []
    step = 0
    requests: dict[str, dict[str, Any]] = {}
    heads: dict[str, dict[str, Any]] = {}
    for r in records:
        kind = r.get("kind")
        if kind == "step":
            step = r["n"]
        elif kind == "stdio":
            sender = "host" if r["sender"] == "host" else r["server"]
            receiver = r["server"] if sender == "host" else "host"
            out.append(frame(step, sender, receiver, "stdio", None, r["msg"]))
        elif kind == "request":
            who = r.get("client", "host")
            f = frame(step, who, r["server"], "http", {"method": r["method"], "path": r["path"]}, r["msg"])
            f["http"]["headers"] = r["headers"]
            f["exchange"] = r["exchange"]
            requests[r["exchange"]] = f
            out.append(f)
        elif kind == "response":
            http = {"status": r["status"], "headers": r["headers"], "sse": r["sse"]}
            who = requests[r["exchange"]]["from"]
            f = frame(step, r["server"], who, "http", http, r.get("msg"))
            f["events"], f["exchange"] = 0, r["exchange"]
            f["asked"] = requests[r["exchange"]]["http"]["method"]
            out.insert(out.index(requests[r["exchange"]]) + 1, f)
            if r["sse"] and requests[r["exchange"]]["http"]["method"] == "POST":
                heads[r["exchange"]] = f
        elif kind == "event":
            head = heads.pop(r["exchange"], None)
            carrier = next((f for f in out if f.get("exchange") == r["exchange"] and "events" in f), None)
            if carrier is not None:
                carrier["events"] += 1
            if head is not None:
                head["msg"] = r["msg"]
            else:
                http = {"status": 200, "headers": {}, "sse": True}
                who = requests[r["exchange"]]["from"]
                out.append(frame(step, r["server"], who, "http", http, r["msg"]))
        elif kind == "local_error":
            out.append({**frame(step, "host", "model", r["transport"], None, None), "on_wire": False})
    return out


def frame(step: int, sender: str, receiver: str, transport: str, http: Any, msg: Any) -> dict[str, Any]:
    return {"step": step, "from": sender, "to": receiver, "transport": transport, "http": http, "msg": msg}


def sim_frames(playground: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in trace(Playground.model_validate(playground)):
        if not r["on_wire"]:
            r = {**r, "msg": None}  # the host's own message: compared as "the host saw a local error"
        out.append(r)
    return out


# --- normalisation -----------------------------------------------------------------------------------


def media(value: str | None) -> str | None:
    return value.split(";")[0].strip() if value else None


def accepts(value: str | None) -> list[str]:
    return sorted(media(v) or "" for v in (value or "").split(",") if v.strip())


def request_headers(method: str, h: dict[str, str], variants: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "accept": accepts(h.get("accept"))
        if method in ("POST", "GET")
        else None,  # the spec names no Accept for DELETE
        "mcp-protocol-version": h.get("mcp-protocol-version"),
        "mcp-method": h.get("mcp-method"),
        "mcp-name": h.get("mcp-name"),
        "mcp-session-id": "mcp-session-id" in h,
        "last-event-id": h.get("last-event-id") is not None,
        "authorization": "authorization" in h,
    }
    if method == "POST":
        out["content-type"] = media(h.get("content-type"))
    if method == "GET" and "get-accept-extra" in variants and "text/event-stream" in out["accept"]:
        out["accept"] = ["text/event-stream"]
    return out


def response_headers(
    status: int, sse: bool, h: dict[str, str], variants: set[str], opens: bool, body: bool
) -> dict[str, Any]:
    """``opens``: the response carries an initialize result, the one that must name the session."""
    out: dict[str, Any] = {
        "mcp-session-id": "mcp-session-id" in h,
        "www-authenticate": "www-authenticate" in h,
    }
    if sse:
        out["x-accel-buffering"] = h.get("x-accel-buffering")
    if body or sse:  # an empty body's content type says nothing
        out["content-type"] = media(h.get("content-type"))
    if "session-id-echoed" in variants and not opens:
        out.pop("mcp-session-id")  # whether a later response repeats the session id
    return out


def json_or_sse(wire: tuple) -> tuple:
    """A POST's answer, whether a JSON body or an SSE stream carrying it: the headers that come with an SSE
    stream go, and the content type is one of the two."""
    kind, status, sse, headers = wire
    headers = {k: v for k, v in headers.items() if k != "x-accel-buffering"}
    if headers.get("content-type") in ("application/json", "text/event-stream"):
        headers["content-type"] = "application/json or text/event-stream"
    return (kind, status, "json or sse", headers)


def shape(msg: dict[str, Any] | None, ref: Callable[[Any], str]) -> dict[str, Any] | None:
    """What a JSON-RPC message says at the protocol level: method, id (as a reference to its request),
    the parameters and result fields that carry meaning; not texts, names of servers or id values."""
    if msg is None:
        return None
    if msg.get("jsonrpc") != "2.0":  # a body that is no JSON-RPC message (an OAuth error, say)
        return {"not JSON-RPC": sorted(msg)}
    out: dict[str, Any] = {}
    if "method" in msg:
        out["method"] = msg["method"]
        params = msg.get("params") or {}
        meta = params.get("_meta") or {}
        if "id" in msg:
            out["id"] = "request"
        if "io.modelcontextprotocol/protocolVersion" in meta:
            out["meta.protocolVersion"] = meta["io.modelcontextprotocol/protocolVersion"]
        if "io.modelcontextprotocol/subscriptionId" in meta:
            out["subscription"] = ref(meta["io.modelcontextprotocol/subscriptionId"])
        for key in ("protocolVersion", "name", "notifications", "mode"):
            if key in params:
                out[key] = params[key]
        if "arguments" in params:
            out["arguments"] = sorted(params["arguments"] or {})
        if "inputResponses" in params:
            out["inputResponses"] = sorted(params["inputResponses"])
        if "requestState" in params:
            out["requestState"] = True
        if "requestId" in params:
            out["requestId"] = ref(params["requestId"])
        return out
    out["id"] = ref(msg.get("id"))
    if "error" in msg:
        out["error"] = msg["error"]["code"]
        return out
    result = msg.get("result") or {}
    out["result"] = True
    for key in ("resultType", "protocolVersion", "supportedVersions"):
        if key in result:
            out[key] = result[key]
    if "capabilities" in result:
        out["tools.listChanged"] = bool(((result["capabilities"] or {}).get("tools") or {}).get("listChanged"))
    if "tools" in result:
        out["tools"] = [t["name"] for t in result["tools"]]
    if isinstance(result.get("content"), list):
        out["content"] = [c["type"] for c in result["content"]]
        out["isError"] = bool(result.get("isError"))
    elif "content" in result:  # an elicitation's answer: which fields the user filled in
        out["content"] = sorted(result["content"] or {})
    if "inputRequests" in result:
        out["inputRequests"] = {k: v["method"] for k, v in result["inputRequests"].items()}
    if "requestState" in result:
        out["requestState"] = True
    if "action" in result:
        out["action"] = result["action"]
    return out


def is_host(name: str) -> bool:
    """The host, the model it serves, or another host (``host-2``...) listening to the same gateway."""
    return name in ("host", "model") or name.startswith("host-")


def other_hosts_last(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Within each step, what crosses to and from other hosts after this host's frames, host by host: what
    travels on different hosts' connections has no order between them."""
    mine = [f for f in frames if not (f["from"].startswith("host-") or f["to"].startswith("host-"))]
    others = [f for f in frames if f not in mine]
    others.sort(key=lambda f: (f["step"], f["to"] if f["to"].startswith("host-") else f["from"]))
    out: list[dict[str, Any]] = []
    for step in sorted({f["step"] for f in frames}, key=frames_order(frames)):
        out += [f for f in mine if f["step"] == step] + [f for f in others if f["step"] == step]
    return out


def frames_order(frames: list[dict[str, Any]]) -> Callable[[int], int]:
    first = {}
    for i, f in enumerate(frames):
        first.setdefault(f["step"], i)
    return first.__getitem__


def reference(seen: dict[tuple[str, str, str], int], srv: str, asker: str, value: Any) -> str:
    key = (srv, asker, json.dumps(value))
    return f"request {seen[key]}" if key in seen else "earlier"


def opens(msg: dict[str, Any] | None) -> bool:
    return bool(msg and "protocolVersion" in (msg.get("result") or {}))


def normalise(frames: Iterable[dict[str, Any]], steps: set[int], variants: set[str]) -> list[tuple]:
    """Comparable frames: request ids become references to the request that carried them, counted per server
    from the first compared frame ("earlier" for a request made before)."""
    out: list[tuple] = []
    seen: dict[tuple[str, str, str], int] = {}  # (server, asker, id) -> ordinal of that request
    asked: dict[str, str] = {}  # server -> the HTTP method of the last request to it
    ordinals = itertools.count()

    def server_of(f: dict[str, Any]) -> str:
        return f["to"] if is_host(f["from"]) else f["from"]

    frames = [f for f in frames if f["step"] in steps]
    for f in frames:
        srv = server_of(f)
        msg = f["msg"]

        # An id in a message names a request of the side it is sent to (a response's id, a subscription id),
        # except in a host's own request or notification, where it names one of the host's (a cancellation).
        asker = f["from"] if is_host(f["from"]) and msg is not None and "method" in msg else f["to"]
        ref = functools.partial(reference, seen, srv, asker)
        http = f["http"]
        if http is None:
            wire = None
        elif "method" in http:
            asked[srv] = http["method"]
            wire = ("request", http["method"], http["path"], request_headers(http["method"], http["headers"], variants))
        else:
            if "oauth-error-body" in variants and http["status"] == 401:
                msg = None  # the bearer-token error body of RFC 6750, which MCP leaves open
            headers = response_headers(
                http["status"], http["sse"], http["headers"], variants, opens(msg), msg is not None
            )
            wire = ("response", http["status"], http["sse"], headers)
            # The listen stream is SSE whatever the server prefers: it is compared as it is.
            listen = msg is not None and msg.get("method") == "notifications/subscriptions/acknowledged"
            if "body-json-or-sse" in variants and asked.get(srv) == "POST" and not listen:
                wire = json_or_sse(wire)
        if msg is not None and "method" in msg and "id" in msg:
            seen[(srv, f["from"], json.dumps(msg["id"]))] = next(ordinals)
        if f.get("on_wire") is False:
            out.append((f["step"], "host", "model", "local error"))
            continue
        out.append(
            (
                f["step"],
                f["from"] if is_host(f["from"]) else "server",
                f["to"] if is_host(f["to"]) else "server",
                srv,
                f["transport"],
                wire,
                json.dumps(shape(msg, ref), sort_keys=True),
            )
        )
    return out


def without_idle_get_streams(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames without each GET that opened a stream nothing was ever sent on (the request and its 200),
    and without each GET that tried to reopen one after its server restarted and met 404 (the SDK's client
    retries its own stream by itself)."""
    out: list[dict[str, Any]] = []
    skip = False
    for i, f in enumerate(frames):
        if skip:
            skip = False
            continue
        http = f["http"] or {}
        after = frames[i + 1] if i + 1 < len(frames) else None
        if http.get("method") == "GET" and after is not None:
            reply = after["http"] or {}
            later = [g for g in frames[i + 2 :] if g["from"] == f["to"] and (g["http"] or {}).get("headers") == {}]
            events = after.get("events", len(later))
            if reply.get("status") == 200 and reply.get("sse") and after["msg"] is None and not events:
                skip = True
                continue
            if reply.get("status") == 404 and any(k.lower() == "mcp-session-id" for k in http.get("headers") or {}):
                skip = True
                continue
        out.append(f)
    return out


def compare(sim: list[dict[str, Any]], sdk: list[dict[str, Any]], variants: Iterable[str]) -> tuple[list, list]:
    """Both sides normalised over the steps the trace covers, with the named allowed variants applied."""
    names = set(variants)
    unknown = names - {v["id"] for v in VARIANTS}
    assert not unknown, f"variants not listed in allowed_variants.yaml: {sorted(unknown)}"
    if "body-json-or-sse" in names:
        # A POST answered with an SSE stream that ended before any message: a JSON answer that never came.
        sdk = [f for f in sdk if not (f.get("asked") == "POST" and f["http"]["sse"] and f.get("events") == 0)]
    sim, sdk = other_hosts_last(sim), other_hosts_last(sdk)
    if "get-stream-optional" in names:
        sim, sdk = without_idle_get_streams(sim), without_idle_get_streams(sdk)
    steps = {f["step"] for f in sim} | {f["step"] for f in sdk if f["step"] not in (SETUP, TEARDOWN)}
    if not any(f["step"] == 0 for f in sim):
        steps.discard(0)
    return normalise(sim, steps, names), normalise(sdk, steps, names)


def show(frames: list[tuple]) -> str:
    return "\n".join(" ".join(str(x) for x in f) for f in frames)


def diff(sim: list[tuple], sdk: list[tuple]) -> str:
    """Where the two wires part, as a unified diff of one line per frame."""
    import difflib

    lines = difflib.unified_diff(show(sim).splitlines(), show(sdk).splitlines(), "simulation", "sdk", lineterm="", n=2)
    return "\n".join(lines)


def sim_calls(playground: dict[str, Any]) -> dict[int, list[tuple[str, str, dict[str, str]]]]:
    """The tool calls the simulated model makes, by step: (server, tool, arguments), in the order it makes
    them, those the host answers itself included. The model is the simulation's; only the protocol is held
    against the SDK, so the SDK host makes the same calls (as the live playground's host does)."""
    pg = Playground.model_validate(playground)
    run = begin(pg.start)
    calls: dict[int, list[tuple[str, str, dict[str, str]]]] = {}
    for n, event in enumerate(pg.events, 1):
        run = advance(run, event)
        assert run.last is not None
        if made := calls_made(run.last):  # a turn's calls, or a call started outside a turn
            calls[n] = made
    return calls


def scenario_playground(path: Path, era: str | None = None) -> dict[str, Any]:
    """A scenario file (content/scenarios/) as the playground ``lesson trace`` makes of it; ``era``: start it
    in that era instead (the lesson's era switch)."""
    from lesson.content.scenarios import scenario_events

    start, events = scenario_events(path)
    if era is not None:
        start = start.model_copy(update={"era": era})
    return Playground(start=start, events=events).model_dump(mode="json")
