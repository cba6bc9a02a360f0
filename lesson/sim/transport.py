"""How messages travel between the host and one server: framing per transport and era.

Streamable HTTP: every client message is a POST (requests get a JSON body or an SSE stream back;
notifications and responses get 202 with no body), the legacy era adds a GET stream and DELETE.
stdio: one JSON-RPC message per line, nothing else: no status, no headers, no 202, no GET; a process
that exits is an EOF the host observes.
"""

from __future__ import annotations

from typing import Any

from . import frames as f
from .model import VERSION, Client, Era, Said, SimServer, said
from .step import Step
from .wire import digest

JSON = "application/json"
SSE = "text/event-stream"
# Every SSE response the SDK sends, in both eras (the legacy transport's sse-starlette sets it too):
# no proxy may hold events back.
SSE_HEADERS = {"Content-Type": SSE, "X-Accel-Buffering": "no"}


def bearer(c: Client, srv: SimServer) -> dict[str, str]:
    """``Authorization: Bearer <token>`` on every HTTP request to a server that wants a token (both eras'
    authorization pages: every request, even within one session), as the SDK client's auth adds it. The
    client sends the token it holds, even one that has expired or was revoked: only the server's 401 says so."""
    if srv.transport != "http" or not srv.auth or c.token == "none":
        return {}
    return {"Authorization": f"Bearer {access_token(c)}"}


def access_token(c: Client) -> str:
    """The client's current access token: a new one after each refresh or sign-in."""
    return "at_" + digest("token", c.server, c.token_serial, n=24)


def post_headers(c: Client, srv: SimServer, payload: dict[str, Any]) -> dict[str, str]:
    """The headers of a POST carrying ``payload``, as the era's SDK client sends them."""
    method = payload.get("method")
    h = {"Content-Type": JSON, "Accept": f"{JSON}, {SSE}", **bearer(c, srv)}
    if c.era == "modern":
        # SEP-2243: the method (and its target) in headers, so gateways can route without parsing the body.
        h["MCP-Protocol-Version"] = VERSION["modern"]
        if method:
            h["Mcp-Method"] = method
        params = payload.get("params") or {}
        if method in ("tools/call", "prompts/get"):
            h["Mcp-Name"] = params["name"]
        elif method == "resources/read":
            h["Mcp-Name"] = params["uri"]
        return h
    if method != "initialize":
        if c.session_id:
            h["Mcp-Session-Id"] = c.session_id
        h["MCP-Protocol-Version"] = VERSION["legacy"]
    return h


def status_for(era: Era, payload: dict[str, Any]) -> int:
    """The HTTP status of a request's answer. 2026-07-28 (basic/index.mdx) answers invalid params (-32602)
    with 400. 2025-11-25 answers a request with a JSON or SSE body, whatever the handler returned: 200, as
    the SDK's legacy transport does (its 400 is for a body that is not JSON-RPC, which this host never sends)."""
    code = payload.get("error", {}).get("code")
    if era == "modern" and code == -32602:
        return 400
    if code == -32022:  # a 2026-07-28 server's UnsupportedProtocolVersionError: 400 over HTTP (its schema)
        return 400
    return 200


class Link:
    """One client's connection to its server. One method per kind of thing that can cross it."""

    def __init__(self, st: Step, c: Client) -> None:
        self.st, self.c = st, c

    @property
    def srv(self) -> SimServer:
        return self.st.s.servers[self.c.server]

    @property
    def stdio(self) -> bool:
        return self.srv.transport == "stdio"

    # --- host to server -------------------------------------------------------------------------

    def request(self, payload: dict[str, Any], note: Said | None = None) -> None:
        """A JSON-RPC request: a POST, or a line on the process's stdin."""
        c = self.c
        if self.stdio:
            self.st.show(f.stdio_line(c.era, "host", c.server, payload, note=note))
        else:
            h = post_headers(c, self.srv, payload)
            self.st.show(f.http_request(c.era, "host", c.server, "POST", h, payload, note))

    def tell(self, payload: dict[str, Any], answers: str | None = None, note: Said | None = None) -> None:
        """A notification, or the client's answer to a server's request: a POST (caller shows the 202), or a line."""
        c = self.c
        if self.stdio:
            self.st.show(f.stdio_line(c.era, "host", c.server, payload, answers=answers, note=note))
            return
        h = post_headers(c, self.srv, payload)
        self.st.show(f.http_request(c.era, "host", c.server, "POST", h, payload, note, answers=answers))

    def get_stream(self, *, last_event_id: str | None, note: Said) -> None:
        """Legacy HTTP: GET the session's SSE stream (``last_event_id``: resume from there)."""
        c = self.c
        h = {"Accept": SSE, **bearer(c, self.srv)}
        if c.session_id:
            h["Mcp-Session-Id"] = c.session_id
        h["MCP-Protocol-Version"] = VERSION["legacy"]
        if last_event_id is not None:
            h["Last-Event-ID"] = last_event_id
        self.st.show(f.http_request(c.era, "host", c.server, "GET", h, note=note))

    def delete(self, note: Said) -> None:
        c = self.c
        h = {**bearer(c, self.srv), "Mcp-Session-Id": c.session_id or "", "MCP-Protocol-Version": VERSION["legacy"]}
        self.st.show(f.http_request(c.era, "host", c.server, "DELETE", h, note=note))

    def close(self, note: Said) -> None:
        """The client closes a stream it holds open (stdio: it cancels the pending request instead)."""
        c = self.c
        self.st.show(f.stream_end(c.era, "host", c.server, self.srv.transport, "closed", note))

    # --- server to host -------------------------------------------------------------------------

    def reply(
        self,
        payload: dict[str, Any],
        answers: str,
        *,
        stream: bool = False,
        headers: dict[str, str] | None = None,
        note: Said | None = None,
    ) -> str | None:
        """The server's answer to the POST just sent: a JSON body, or the first event of an SSE stream.
        Returns that event's id, when the server stores its events (the id to resume the stream from)."""
        c = self.c
        if self.stdio:
            self.st.show(f.stdio_line(c.era, c.server, "host", payload, answers=answers, note=note))
            return None
        h = {**(SSE_HEADERS if stream else {"Content-Type": JSON}), **(headers or {})}
        event_id = self.stored_event_id() if stream else None
        self.st.show(
            f.http_response(
                c.era,
                c.server,
                "host",
                status_for(c.era, payload),
                headers=h,
                payload=payload,
                sse=stream,
                answers=answers,
                note=note,
                event_id=event_id,
            )
        )
        return event_id

    def stream_opened(self, note: Said | None = None) -> None:
        """HTTP 200 with an SSE stream and no event yet (a legacy GET stream)."""
        c = self.c
        self.st.show(f.http_response(c.era, c.server, "host", 200, headers=dict(SSE_HEADERS), sse=True, note=note))

    def stored_event_id(self) -> str | None:
        """Legacy HTTP: the id of the next SSE event, when the server stores its events (else events carry no id)."""
        c, srv = self.c, self.srv
        if c.era != "legacy" or srv.transport != "http" or not srv.event_store:
            return None
        srv = self.srv
        srv.event_seq += 1
        return str(srv.event_seq)

    def primed(self, note: Said) -> str | None:
        """Legacy HTTP, a server that stores events: a request's response opens an SSE stream whose first event
        carries only an id (no data), so the client has an id to resume that stream from. None elsewhere."""
        event_id = self.stored_event_id()
        if event_id is not None:
            c = self.c
            self.st.show(
                f.http_response(
                    c.era, c.server, "host", 200, headers=dict(SSE_HEADERS), sse=True, note=note, event_id=event_id
                )
            )
        return event_id

    def event(
        self, payload: dict[str, Any], answers: str | None = None, note: Said | None = None, event_id: str | None = None
    ) -> None:
        """A message on a stream that is already open; on stdio, a line on the process's stdout."""
        c = self.c
        if self.stdio:
            self.st.show(f.stdio_line(c.era, c.server, "host", payload, answers=answers, note=note))
            return
        if event_id is None:
            # A server that stores events numbers them; the client remembers the last one to resume from.
            event_id = self.stored_event_id()
            if event_id is not None and "id" not in payload and c.listen.open:  # a notification: on the GET stream
                c.listen = c.listen.model_copy(update={"last_event_id": event_id})
        self.st.show(f.sse_event(c.era, c.server, "host", payload, answers=answers, event_id=event_id, note=note))

    def status(
        self,
        code: int,
        *,
        headers: dict[str, str] | None = None,
        payload: dict[str, Any] | None = None,
        note: Said | None = None,
    ) -> None:
        """An HTTP status with at most a JSON body (202, 401, 404). Never on stdio."""
        assert not self.stdio, "stdio has no HTTP status"
        c = self.c
        h = dict(headers or {})
        if payload is not None:
            h["Content-Type"] = JSON
        self.st.show(f.http_response(c.era, c.server, "host", code, headers=h, payload=payload, note=note))

    def accepted(self) -> None:
        """HTTP only: the 202 a notification or a response gets."""
        if not self.stdio:
            self.status(202)

    # --- what the host sees without anything crossing -----------------------------------------------

    def dropped(self, note: Said) -> None:
        """The server's end went away: an open HTTP stream breaks, or stdout reaches EOF."""
        c = self.c
        how = "eof" if self.stdio else "dropped"
        self.st.show(f.stream_end(c.era, c.server, "host", self.srv.transport, how, note))

    def refused(self, what: str) -> None:
        """Nothing listens at the server's address: the POST never got through."""
        c = self.c
        note = said("narration.note.refused", method=what)
        self.st.show(f.stream_end(c.era, "host", c.server, "http", "refused", note))

    def host_built(self, body: dict[str, Any], note: Said) -> None:
        self.st.show(f.host_built(self.c.era, self.srv.transport, body, note))
