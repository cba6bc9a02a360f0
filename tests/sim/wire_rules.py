"""Rules every frame sequence must keep, checked step by step over a whole run (main era only)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lesson.sim import Run
from lesson.sim import events as ev
from lesson.sim.frames import HostBuilt, HttpRequest, HttpResponse, SseEvent, StdioLine, StreamEnd
from tests import schemas

MODERN_POST = {"Accept", "MCP-Protocol-Version", "Mcp-Method"}
_valid: set[str] = set()


@dataclass
class WireWatch:
    """What is open between each pair, and which clients have not yet said their first word."""

    open: dict[tuple[str, str], set] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)  # legacy clients whose next message must be initialize
    # Legacy resumption: each SSE event id a server sent the host, with the stream it came on (the request
    # whose response it was, or "GET"); and the stream a GET with Last-Event-ID resumed, until the next message.
    event_ids: dict[str, dict[str, object]] = field(default_factory=dict)
    last_sent: dict[str, object] = field(default_factory=dict)
    resumed: dict[str, object] = field(default_factory=dict)
    # Bearer tokens: the Authorization each server last saw, and every one a server refused with 401.
    last_bearer: dict[str, str | None] = field(default_factory=dict)
    refused: set[str] = field(default_factory=set)
    # Modern caching: servers whose last tools/list the host still holds fresh (a ttlMs above 0, and no
    # list_changed since).
    fresh_lists: set[str] = field(default_factory=set)
    # The body of the host's last POST to each server: a 401 to it means the server read none of it.
    last_post: dict[str, dict] = field(default_factory=dict)
    # Each tool's arguments as its server last listed them: (server, tool) -> (required, every property).
    arguments: dict[tuple[str, str], tuple[set[str], set[str]]] = field(default_factory=dict)

    def check(self, run: Run, prev: Run, event: ev.Event) -> None:
        frames = run.last.wire if run.last else []
        before = prev.state
        if run.last is None or run.last.rejected:
            assert frames == []
            return
        if isinstance(event, ev.AddServer):
            self.fresh.add(event.server)
            # a new client is a new connection: its ids start afresh, and nothing of the old one is open
            self.open.pop(("host", event.server), None)
            self.open.pop((event.server, "host"), None)
        if isinstance(event, ev.SwitchEra):  # a client that changes era starts a new connection
            old = prev.state.host.clients
            self.fresh |= {n for n, c in run.state.host.clients.items() if n in old and old[n].era != c.era}
        if isinstance(event, ev.ServerBack) and event.transport:
            srv = before.servers.get(event.server)
            # Back on the same HTTP endpoint, a server that never issued a session id has nothing for a
            # legacy client to renew: the client carries on without a new initialize.
            if srv is None or srv.transport != event.transport or srv.issues_session_id:
                self.fresh.add(event.server)
        self._auth_first(run, before, event)
        # a legacy client GETs a stream only if it listens, or had one open to reopen or resume: its GET
        # stream, or a call's broken response stream, resumed from an event id that stream sent (2025-11-25
        # resumability; _resumption checks the id)
        for m in frames:
            if isinstance(m, HttpRequest) and m.method == "GET":
                had = before.host.clients.get(m.receiver)
                resumes = m.headers.get("Last-Event-ID") in self.event_ids.get(m.receiver, {})
                assert before.host.auto_listen or (had is not None and had.listen.open) or resumes, (
                    f"GET to {m.receiver}, which the host never opened a stream to"
                )
        # A sign-in is a new access token: what the host sends after it never carries the one before it.
        signed_in = self.last_bearer.get(event.server) if isinstance(event, ev.Reauthenticate) else None
        for m in frames:
            if signed_in and isinstance(m, HttpRequest) and m.receiver == event.server:
                assert m.headers.get("Authorization") != signed_in, f"{m.http} after a sign-in, with the old token"
        polling = isinstance(event, (ev.TakeTurn, ev.StartCall, ev.AskUserInput))  # a call is a turn of its own too
        for m in frames:
            method = (m.payload or {}).get("method") if m.on_wire else None
            if polling and method == "tools/call":
                polling = False  # what a call brings on is not the turn's own re-listing
            if polling and m.sender == "host" and method == "tools/list":
                # Before a turn the host asks again only for a list it may not reuse: one a server said is
                # stale at once (ttlMs 0), or that a notice made stale (caching.mdx).
                assert m.receiver not in self.fresh_lists, f"re-listed {m.receiver}, whose list is still fresh"
            self._caching(m, method)
            self._arguments(m, method)
            self._one(run, before, m, event)

    @staticmethod
    def _auth_first(run: Run, before, event: ev.Event) -> None:
        """Auth before session work: a client whose token is bad when the step's messages start gets 401
        to its first HTTP request, never a session's 404, a handshake's 200 or a 202."""
        if isinstance(event, ev.TokenRefreshed):
            return
        relaunched = getattr(event, "server", None) if isinstance(event, (ev.RestartServer, ev.ServerBack)) else None
        for name, c in before.host.clients.items():
            srv = run.state.servers[c.server]
            bad = c.token in ("expired", "revoked")
            if relaunched == c.server and srv.auth_in_process and srv.transport == "http" and c.token == "valid":
                bad = True  # the new process's in-process authorization server never issued this token
            if not bad or srv.transport != "http":
                continue
            first = next(
                (m for m in run.last.wire if isinstance(m, HttpResponse) and (m.sender, m.receiver) == (name, "host")),
                None,
            )
            if first is not None:
                assert first.status == 401, f"{name} answered {first.http} to a client whose token is {c.token}"

    def _one(self, run: Run, before, m, event) -> None:
        servers = run.state.servers
        # stdio has no HTTP parts
        if m.transport == "stdio":
            assert isinstance(m, (StdioLine, StreamEnd, HostBuilt)), f"{m.kind} on stdio"
            assert m.headers == {} and m.http is None, f"HTTP parts on stdio: {m.http} {m.headers}"
            if m.on_wire:  # a line is a message: stdio has no empty frames (no 202, no GET)
                assert m.payload is not None and "jsonrpc" in m.payload
        # what never crossed the wire is typed so, and the host builds only for the model
        if isinstance(m, HostBuilt):
            assert (m.sender, m.receiver, m.on_wire) == ("host", "model", False)
            assert m.payload is not None and "jsonrpc" not in m.payload
        if not m.on_wire:
            if isinstance(m, StreamEnd) and m.how == "eof":
                self.fresh.add(m.sender)  # the next stdio process is met from scratch
                # and nothing the old process asked or was asked is open with the new one: nothing is sent
                # to a process that never asked, and its ids are its own
                self.open.pop(("host", m.sender), None)
                self.open.pop((m.sender, "host"), None)
            return
        self._resumption(m)
        self._bearer(servers, m)
        if isinstance(m, HttpRequest) and m.method == "POST" and m.sender == "host":
            self.last_post[m.receiver] = m.payload or {}
        elif isinstance(m, HttpResponse) and m.status == 401 and (refused := self.last_post.pop(m.sender, None)):
            # Refused before it was read: a request it carried is not open, an answer it carried not given.
            if "method" in refused and "id" in refused:
                self.open.get(("host", m.sender), set()).discard(refused["id"])
            elif "id" in refused:
                self.open.setdefault((m.sender, "host"), set()).add(refused["id"])
        # no frame comes from a server that was not running before the step and is not running after it
        if m.sender in servers and m.sender in before.servers:
            assert before.servers[m.sender].up or servers[m.sender].up, f"{m.sender} is down but sent {m.http}"
        if isinstance(event, ev.ServerDies) and m.sender == event.server:
            raise AssertionError(f"{event.server} died this step but sent {m.payload}")
        # every modern POST carries the SEP-2243 headers, and Mcp-Name mirrors the target
        if isinstance(m, HttpRequest) and m.method == "POST" and m.era == "modern":
            assert set(m.headers) >= MODERN_POST, f"modern POST without {MODERN_POST - set(m.headers)}"
            assert "application/json" in m.headers["Accept"] and "text/event-stream" in m.headers["Accept"]
            method = (m.payload or {}).get("method")
            assert m.headers["Mcp-Method"] == method
            if method in ("tools/call", "prompts/get"):
                assert m.headers["Mcp-Name"] == m.payload["params"]["name"]
            assert "Mcp-Session-Id" not in m.headers
        if isinstance(m, HttpResponse) and m.sse:
            assert m.headers.get("X-Accel-Buffering") == "no", "an SSE response as the SDK sends it, in either era"
        if isinstance(m, HttpRequest) and m.method == "POST" and m.era == "legacy":
            assert "application/json" in m.headers["Accept"] and "text/event-stream" in m.headers["Accept"]
        p = m.payload
        if p is None:
            return
        # every message validates against its era's schema
        key = json.dumps([m.era, p, [c.model_dump() for c in m.checks]], sort_keys=True)
        if key not in _valid:
            assert m.checks, f"no schema check for {p}"
            for c in m.checks:
                assert schemas.errors(p, m.era, c.definition, c.pointer) == [], f"{c.definition}: {p}"
            _valid.add(key)
        # a legacy client's first message is initialize
        # (A client that never saw the restart, with no stream open to lose, still sends its old session
        # id: the new process takes it if it kept its sessions, else answers 404 and the client's next
        # message is initialize.)
        stale = m.era == "legacy" and "Mcp-Session-Id" in m.headers and p.get("method") != "initialize"
        if m.sender == "host" and m.era == "legacy" and m.receiver in self.fresh and not stale:
            assert p.get("method") == "initialize", f"legacy client for {m.receiver} began with {p.get('method')}"
        if m.sender == "host" and m.receiver in self.fresh and not stale:
            self.fresh.discard(m.receiver)
        # every response answers exactly one open request of the same pair, in either direction
        if "method" in p and "id" in p:
            ids = self.open.setdefault((m.sender, m.receiver), set())
            assert p["id"] not in ids, f"request id {p['id']} reused while open"
            ids.add(p["id"])
        elif "id" in p and ("result" in p or "error" in p):
            ids = self.open.setdefault((m.receiver, m.sender), set())
            assert p["id"] in ids, f"{m.sender} answered {p['id']}, which {m.receiver} never asked or was answered"
            ids.discard(p["id"])

        # status by era: a modern -32602 over HTTP is a 400; a legacy request is answered 200 with its body,
        # whatever the handler returned (400 is only for a body that is not JSON-RPC)
        if isinstance(m, HttpResponse) and "error" in p and p["error"]["code"] == -32602:
            assert m.status == (400 if m.era == "modern" else 200), f"{m.era} -32602 with HTTP {m.status}"
        # and a 2026-07-28 server's UnsupportedProtocolVersionError (-32022) is a 400, whoever asked (its schema)
        if isinstance(m, HttpResponse) and "error" in p and p["error"]["code"] == -32022:
            assert m.status == 400, f"-32022 with HTTP {m.status}"
        if isinstance(m, HttpResponse) and m.status == 400:
            code = p.get("error", {}).get("code")
            assert (m.era == "modern" and code == -32602) or code == -32022, f"HTTP 400 for {p}"

    def _caching(self, m, method: str | None) -> None:
        """Which lists the host may still reuse: a modern tools/list result with a ttlMs above 0 is fresh
        until a list_changed (or a new connection) makes it stale."""
        p = m.payload if m.on_wire else None
        if m.receiver == "host" and p is not None and isinstance(p.get("result"), dict) and "tools" in p["result"]:
            if p["result"].get("ttlMs", 0) > 0:
                self.fresh_lists.add(m.sender)
            else:
                self.fresh_lists.discard(m.sender)
        if method == "notifications/tools/list_changed" or (m.sender != "host" and not m.on_wire):
            self.fresh_lists.discard(m.sender)

    def _arguments(self, m, method: str | None) -> None:
        """A host calls a tool with the arguments its server listed for it: every required one, none it did
        not declare (a handle an earlier result returned is declared too; tools.mdx, stateful tools)."""
        p = m.payload if m.on_wire else None
        if m.receiver == "host" and p is not None and isinstance(p.get("result"), dict):
            for tool in p["result"].get("tools") or []:
                schema = tool["inputSchema"]
                self.arguments[(m.sender, tool["name"])] = (set(schema.get("required", [])), set(schema["properties"]))
        if method == "tools/call" and m.sender == "host" and p is not None:
            known = self.arguments.get((m.receiver, p["params"]["name"]))
            if known is not None:  # a tool the server never listed is its own lesson (an unknown tool's error)
                sent = set(p["params"].get("arguments") or {})
                required, declared = known
                assert required <= sent <= declared, f"{p['params']['name']} called with {sorted(sent)}, listed {known}"

    def _bearer(self, servers, m) -> None:
        """Every HTTP request to a server that wants a token carries ``Authorization: Bearer``, and none to a
        server that wants none; a token a server refused with 401 is never sent again (refreshed or signed in
        anew, the client holds a new one)."""
        if isinstance(m, HttpRequest):
            srv = servers[m.receiver]
            token = m.headers.get("Authorization")
            if srv.auth:
                assert token is not None and token.startswith("Bearer "), f"{m.http} to {m.receiver} without a token"
                assert token not in self.refused, f"{m.http} to {m.receiver} with a token it refused with 401"
            else:
                assert token is None, f"{m.http} to {m.receiver}, which wants no token, carries one"
            self.last_bearer[m.receiver] = token
        elif isinstance(m, HttpResponse) and m.status == 401:
            token = self.last_bearer.get(m.sender)
            assert token is not None, f"{m.sender} answered 401 to a request that carried no token"
            self.refused.add(token)

    def _resumption(self, m) -> None:
        """Resume only from an id the stream sent, and replay a stream's messages only on that stream."""
        if m.sender == "host" and isinstance(m, HttpRequest):
            server, p = m.receiver, m.payload or {}
            self.resumed.pop(server, None)
            self.last_sent[server] = "GET" if m.method == "GET" else p.get("id") if "method" in p else None
            last = m.headers.get("Last-Event-ID")
            if last is not None:
                sent = self.event_ids.get(server, {})
                assert last in sent, f"Last-Event-ID {last!r} is no id {server} sent (it sent {sorted(sent)})"
                self.resumed[server] = sent[last]
            return
        if m.receiver != "host" or not isinstance(m, (HttpResponse, SseEvent)):
            return
        server, p = m.sender, m.payload or {}
        if isinstance(m, HttpResponse):
            if m.status != 200:
                self.resumed.pop(server, None)
            owner = self.last_sent.get(server)
        else:
            owner = p["id"] if "id" in p and "method" not in p else "GET" if "method" in p and "id" not in p else None
            if server in self.resumed and ("result" in p or "error" in p):
                assert p["id"] == self.resumed[server], (
                    f"{server} replayed the answer to {p['id']} on the stream of {self.resumed[server]}"
                )
        event_id = getattr(m, "event_id", None)  # a response's first event, or a later event
        if event_id is not None:
            self.event_ids.setdefault(server, {})[event_id] = owner
