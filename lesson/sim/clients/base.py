"""What every client does, whatever its era: send a request and recover from what the transport
says, list, call, serve a call's result, mark its server down, and hand the model a tool error the
host builds itself when the server cannot answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from .. import gateway, servers
from .. import wire as w
from ..model import VERSION, Client, Era, InFlight, ListenStream, Message, Said, SimServer, ToolCall, ToolDef, said
from ..prompt import ARGUMENTS
from ..step import CallRecord, Step, Tone, changed, joined, msg
from ..transport import Link

_TRIES = (1, 2, 3)  # a request is sent at most three times (see ``rpc``)
QUESTION = "Forecast for which Portland?"  # the facts file's example: the answer is a US state


# era -> its client class; legacy.py and modern.py each add theirs as they define it
_BY_ERA: dict[str, type[BaseClient]] = {}


def client_for(st: Step, c: Client) -> BaseClient:
    """The client of the era the host speaks to that server in."""
    return _BY_ERA[c.era](st, c)


class BaseClient:
    era: ClassVar[Era]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _BY_ERA[cls.era] = cls  # each era's client, for client_for

    def __init__(self, st: Step, c: Client) -> None:
        self.st, self.c, self.link = st, c, Link(st, c)

    @property
    def srv(self) -> SimServer:
        return self.st.s.servers[self.c.server]

    def say(self, code: str, tone: Tone = "info", **params: Any) -> None:
        self.st.say(code, tone, **params)

    def next_id(self) -> int:
        rid = self.c.next_id
        self.c.next_id += 1
        return rid

    # --- what each era does differently --------------------------------------------------------

    def greet(self) -> bool:
        """The era's opening exchange with a server; False if the server's front door refused it (401)."""
        raise NotImplementedError

    def open_stream(self) -> None:
        """Open the channel the server's notifications arrive on."""
        raise NotImplementedError

    def reconnect(self) -> None:
        """The server is reachable again after its process was replaced: what this era costs."""
        raise NotImplementedError

    def session_gone(self) -> bool:
        """Legacy: the server answered 404 to the session id. Modern: there is no session."""
        return False

    def request(self, method: str, params: dict[str, Any] | None = None) -> Callable[[int], dict]:
        return lambda rid: w.request(self.era, rid, method, params)

    def begin_input(self, tool: ToolDef, args: dict[str, str], again: bool = False) -> None:
        """Call a tool that asks the user a question; ``again``: the answer to the same question was lost."""
        raise NotImplementedError

    def answer(self, answer: str, after_expiry: bool) -> None:
        raise NotImplementedError

    def stream_dropped(self) -> None:
        raise NotImplementedError

    def leave(self) -> None:
        """The client stops talking this era (era switch): end what it holds open."""
        raise NotImplementedError

    # --- the same in both eras -------------------------------------------------------------------

    def connect(self) -> None:
        """Everything a client does to start talking to a server it has just been told about."""
        if not self.srv.up:
            self.mark_down("narration.down.not_running", server=self.c.server)
            return
        if self.st.s.host.dual_era and self.era != "modern":
            # A dual-era client probes with server/discover first (on stdio it SHOULD, to tell the eras apart).
            self.c.era = "modern"
            client_for(self.st, self.c).connect()
            return
        if not self.greet():
            return
        if self.c.era != self.era:  # a dual-era client fell back: the rest is done in the era agreed on
            client_for(self.st, self.c).connected()
            return
        self.connected()

    def connected(self) -> None:
        """The greeting went through: open the notification channel, then list."""
        self.c.status = "connected"
        self.c.last_error = None
        self.c.era_refused = False
        if self.st.s.host.auto_listen:
            self.open_stream()
        if self.c.status == "connected":
            self.relist()

    def send(self, payload: dict[str, Any]) -> str:
        """Send one request; say what the transport answered before any JSON-RPC."""
        if not self.srv.up:
            self.link.refused(payload["method"])
            return "refused"
        self.link.request(payload)
        return self.admit()

    def admit(self) -> str:
        """What the server's front door answers to the HTTP message just sent, before any JSON-RPC. The
        auth middleware wraps the whole endpoint (the SDK's does), so a bad token gets 401 before any
        session lookup or handshake: "expired", "revoked", then "404" (legacy: an unknown session), or "ok"."""
        if self.srv.transport == "http" and self.srv.auth and self.c.token in ("expired", "revoked"):
            self.unauthorized()
            return self.c.token
        if self.session_gone():
            return "404"
        return "ok"

    def unauthorized(self) -> None:
        self.link.status(401, headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})

    def after_401(self, status: str) -> bool:
        """True if the client refreshed an expired token and sends again; False if the user must sign in."""
        c = self.c
        if status == "expired":
            self.say("narration.token_refreshed_after_401", "warn", server=c.server)
            c.token = "valid"
            c.token_serial += 1  # a new access token: the retry carries it
            return True
        self.token_gone()
        self.say("narration.token_gone_sign_in", "error", server=c.server)
        return False

    def token_gone(self) -> None:
        """The server refused the token for good: nothing goes to it until the user signs in again."""
        c = self.c
        if c.status != "signed_out":
            c.last_change = changed(self.st.s.step, msg("narration.table.signed_out"))
        c.status = "signed_out"
        c.last_error = msg("narration.table.token_gone")
        c.listen = ListenStream()

    def stream_refused(self) -> bool:
        """A stream request meets the same 401 as any other; an expired token is refreshed and the stream retried."""
        c = self.c
        if self.srv.transport != "http" or not self.srv.auth or c.token not in ("expired", "revoked"):
            return False
        self.unauthorized()
        if self.after_401(c.token):
            self.open_stream()
        return True

    def rpc(self, build: Callable[[int], dict]) -> int | None:
        """A request with the recoveries a host does by itself; returns the id that got through."""
        c = self.c
        for _ in _TRIES:
            rid = self.next_id()
            payload = build(rid)
            status = self.send(payload)
            if status == "ok":
                return rid
            if status == "refused":
                self.mark_down("narration.down.refused", server=c.server)
                return None
            if status in ("expired", "revoked"):
                if self.after_401(status):
                    continue
                return None
            if status == "404":
                why = (
                    msg("narration.why.other_replica", replica=self.srv.replica)
                    if c.session_id in self.srv.sessions
                    else msg("narration.why.session_died")
                )
                self.say("narration.session_404_new_session", "warn", server=c.server, why=why)
                self.forget_session()
                if not self.greet():
                    return None
                if self.st.s.host.auto_listen:
                    self.open_stream()  # the new session's stream, as on connecting
                if payload["method"] != "tools/list":
                    self.relist()
        return None

    def forget_session(self) -> None:
        """The server answered 404 to the session: the next greeting starts a new one, and the table says so."""
        self.c.session_id = None
        self.c.last_change = changed(self.st.s.step, msg("narration.table.new_session"))

    def relist(self, why: str | None = None) -> bool:
        """tools/list; True if the list changed. ``why``: the code of a line saying why the client re-lists."""
        c = self.c
        rid = self.rpc(self.request("tools/list"))
        if rid is None:
            return False
        srv = self.srv
        tools = servers.visible_tools(self.st.s, srv, c.role)
        result = w.tools_list_result(c.era, rid, tools, srv.title, srv.generation, srv.list_changed)
        self.link.reply(result, "tools/list")
        c.refetches += 1
        same = [t.name for t in tools] == [t.name for t in c.tools] and c.listed_generation > 0
        if not same and c.listed_generation > 0:
            # The table's "last change" follows what the host saw, whichever path brought the new list.
            c.last_change = changed(self.st.s.step, _difference(c.tools, tools))
        c.tools = tools
        c.listed_generation, c.listed_seq = srv.generation, srv.change_seq
        if why:
            self.say(why)
        return not same

    def no_common_era(self) -> bool:
        """The server refused the greeting: it speaks no era this client speaks. The host cannot use it."""
        c, srv = self.c, self.srv
        c.era_refused = True
        if self.era == "modern":  # -32601 says only that server/discover is unknown, not which eras it speaks
            why = msg("narration.down.no_discover", server=c.server, ours=VERSION[c.era])
        else:  # -32022 names the versions the server supports
            why = msg(
                "narration.down.no_common_era",
                server=c.server,
                theirs=joined([VERSION[e] for e in srv.speaks]),
                ours=VERSION[c.era],
            )
        self.unusable(why, msg("narration.table.incompatible"))
        self.say("narration.marked_incompatible", "error", why=why, server=c.server)
        return False

    def mark_down(self, code: str, **params: Any) -> None:
        """The host marks the server down; ``code`` and ``params`` say why, in the log and as the table's last error."""
        why = msg(code, **params)
        self.unusable(why, msg("narration.table.down"))
        self.say("narration.marked_down", "error", why=why, server=self.c.server)

    def unusable(self, why: dict[str, Any], change: dict[str, Any]) -> None:
        """The host stops using the server (``c.shown_status()`` tells down from incompatible): ``why`` is
        the table's last error, ``change`` its last change."""
        c = self.c
        if c.status != "down":
            c.status = "down"
            c.last_change = changed(self.st.s.step, change)
        c.last_error = why
        c.listen = ListenStream()
        if self.srv.transport == "stdio":
            c.session_id, c.greeted, c.next_id = None, False, 1  # the next process is a new one, met from scratch

    def call(self, name: str, args: dict[str, str], **extra: Any) -> Callable[[int], dict]:
        return lambda rid: w.call(self.era, rid, name, args, **extra)

    def host_error(self, tool: str, text: str) -> CallRecord:
        """The tool error the host hands the model when the server cannot answer: built here, never sent."""
        self.link.host_built(
            w.call_result_body(self.era, text, True),
            said("narration.note.built_nothing_sent"),
        )
        return CallRecord(server=self.c.server, tool=tool, text=text, is_error=True, host_made=True)

    def unreachable(self, tool: str) -> CallRecord:
        if self.c.status == "signed_out":
            why = "needs the user to sign in again"
        elif self.c.era_refused:  # running, but it speaks no era this host can
            why = "speaks no protocol version this host does"
        else:
            why = "is not reachable"
        return self.host_error(
            tool, f"MCP server '{self.srv.title}' ({self.c.server}) {why}; the call was not executed."
        )

    def call_tool(self, call: ToolCall) -> CallRecord:
        c = self.c
        if c.status != "connected":
            return self.unreachable(call.tool)
        args = call.arguments or self.default_args(call.tool)
        rid = self.rpc(self.call(call.tool, args))
        if rid is None:
            return self.unreachable(call.tool)
        return self.serve(rid, call.tool, args)

    def serve(self, rid: int, tool_name: str, args: dict[str, str]) -> CallRecord:
        """The server runs a tool (or refuses), and its answer comes back."""
        c, srv = self.c, self.srv
        if srv.gateway:
            text = gateway.unavailable(self.st, srv, tool_name)
            if text:
                self.link.reply(
                    w.result(rid, w.call_result_body(c.era, text, True)),
                    "tools/call",
                    note=said("narration.note.gateway_tool_error"),
                )
                return CallRecord(server=c.server, tool=tool_name, text=text, is_error=True)
        if tool_name not in {t.name for t in servers.visible_tools(self.st.s, srv, c.role)}:
            text = f"Unknown tool: {tool_name}"
            self.link.reply(
                w.error(rid, -32602, text),
                "tools/call",
                note=said("narration.note.no_such_tool"),
            )
            return CallRecord(server=c.server, tool=tool_name, text=text, is_error=True)
        text, is_error = servers.run_tool(self.st, c.server, tool_name, args)
        self.link.reply(
            w.result(rid, w.call_result_body(c.era, text, is_error)),
            "tools/call",
            note=said("narration.note.tool_error") if is_error else None,
        )
        return CallRecord(server=c.server, tool=tool_name, text=text, is_error=is_error)

    def default_args(self, tool: str) -> dict[str, str]:
        arg, handle = "query", None
        for t in self.c.tools:  # a loop, not next() over a generator: closing one early raises inside it
            if t.name == tool:
                arg, handle = t.arg, t.handle
                break
        args = {arg: ARGUMENTS.get(arg, "release 2.0")}
        if handle:  # the last handle an earlier call returned
            handles = self.st.s.host.handles
            args = {handle: handles[-1] if handles else "", **args}
        return args

    def deliver(self, rec: CallRecord) -> None:
        self.st.s.host.conversation.append(Message(role="tool", text=f"{rec.tool}: {rec.text}"))

    def start_call(self, tool: ToolDef) -> bool:
        args = self.default_args(tool.name)
        rid = self.rpc(self.call(tool.name, args))
        if rid is None:
            return False
        event_id = self.link.primed(said("narration.note.primed_stream"))
        self.c.in_flight.append(
            InFlight(request_id=rid, tool=tool.name, arguments=args, idempotent=tool.idempotent, event_id=event_id)
        )
        return True

    def abandon(self, why: str) -> None:
        """The host drops this connection (an era switch, the server's removal): each call still running gets
        an error the host builds itself, and a question the server asked leaves the screen."""
        c = self.c
        for call in c.in_flight:
            self.deliver(
                self.host_error(
                    call.tool, f"{why}; the call was abandoned with the old connection and no result came back."
                )
            )
        if c.in_flight:
            self.say("narration.call_abandoned", "warn", tools=", ".join(x.tool for x in c.in_flight))
        if c.pending_input:
            self.say("narration.question_dropped", "warn", server=c.server, tool=c.pending_input.tool)
        c.in_flight, c.pending_input = [], None

    # --- notifications -----------------------------------------------------------------------------

    def list_changed(self, why: dict[str, Any], note: Said) -> None:
        """The server's list changed and it says so on the open stream: re-list. ``why`` is the change
        (a message), as the log says it."""
        c = self.c
        self.link.event(w.list_changed(c.era, c.listen.request_id), note=note)
        new_list = self.relist()
        code = "narration.list_changed_relisted" if new_list else "narration.list_changed_same_list"
        self.say(code, "change", server=c.server, why=why)
        # The table's last change stays what the new list showed (``relist``): the notice says no more
        # than that the list changed, and a gateway's names no backend.

    # --- the process dies and comes back --------------------------------------------------------------

    def on_death(self, *, restarting: bool) -> None:
        """What the host sees when the process ends, before any new one starts."""
        c, srv = self.c, self.srv
        lost, c.in_flight = c.in_flight, []
        p = c.pending_input
        if p and p.elicit_id is not None and not p.stream_dropped:
            # Legacy: the call that asked is still open, on an SSE stream (or stdout) that now ends.
            lost = [x for x in lost if x.request_id != p.call_id]
            c.pending_input = p.model_copy(update={"stream_dropped": True})
            if srv.transport == "http":
                self.link.dropped(said("narration.note.question_stream_ends"))
            if c.session_id and not srv.sessions_durable:
                then = msg("narration.then.new_session")
            elif p.event_id and srv.sessions_durable and srv.event_store:
                then = msg("narration.then.resume_question")
            else:
                then = msg("narration.then.ask_again")
            self.say("narration.question_stream_dropped", "warn", tool=p.tool, then=then)
        self.st.lost[c.server] = lost
        stdio = srv.transport == "stdio"
        if stdio:
            self.link.dropped(said("narration.note.stdio_eof"))
            # The next process is a new connection, met from scratch: its opening, and request ids counted afresh.
            c.session_id, c.greeted, c.next_id = None, False, 1
        elif c.listen.open or lost:
            listen = c.era == "modern" and c.listen.open
            self.link.dropped(said("narration.note.listen_ends_abruptly" if listen else "narration.note.ends_abruptly"))
        if restarting:
            return
        if stdio or c.listen.open or lost:
            if stdio:
                self.mark_down("narration.down.process_exited", server=srv.name)
            else:
                self.mark_down("narration.down.stream_dropped", server=srv.name)
            for call in lost:
                # Said in the log too: the error result is the host's own, and no message carried it.
                self.say("narration.call_cut_short", "failed", tool=call.tool, server=srv.name)
                self.deliver(
                    self.host_error(
                        call.tool,
                        f"MCP server '{srv.title}' ({c.server}) went away while this call was running; "
                        "no result came back.",
                    )
                )
        elif not p:
            self.say("narration.died_unnoticed", "warn", server=srv.name)

    def on_back(self, *, restarted: bool) -> None:
        c, srv = self.c, self.srv
        lost = self.st.lost.get(c.server, [])
        stdio = srv.transport == "stdio"
        # Over stdio the host launched the new process itself: it meets it from scratch, even when the old
        # one's end went unnoticed (an HTTP server, with nothing open, back over stdio).
        if c.status == "down" or (stdio and not c.greeted) or (restarted and (c.listen.open or lost or stdio)):
            c.status = "connected"
            c.last_error = None
            c.last_change = changed(self.st.s.step, msg("narration.table.back"))
            if stdio:
                self.say("narration.stdio_relaunch", server=c.server)
            self.reconnect()
            self.recover(lost)
        elif restarted:
            self.restarted_quietly()

    def restarted_quietly(self) -> None:
        """A restart the host had nothing open for: it notices nothing yet."""
        self.say("narration.restarted_idle", server=self.c.server)

    def recover(self, lost: list[InFlight]) -> None:
        c, srv = self.c, self.srv
        for call in lost:
            if c.status == "connected" and self.resume(call):
                continue
            if c.status != "connected":
                # Said in the log too: the error result is the host's own, and no message carried it.
                self.say("narration.call_lost_not_retried", "failed", tool=call.tool, server=c.server)
                self.deliver(
                    self.host_error(
                        call.tool,
                        f"MCP server '{srv.title}' ({c.server}) restarted during this call; it could not be retried.",
                    )
                )
                continue
            if not call.idempotent:
                self.say("narration.call_lost_not_idempotent", "warn", tool=call.tool)
                self.deliver(
                    self.host_error(
                        call.tool,
                        f"The call to {call.tool} was interrupted by a "
                        "server restart; it may or may not have taken effect.",
                    )
                )
                continue
            self.say("narration.call_lost_reissued", "change", tool=call.tool)
            self.deliver(self.call_tool(ToolCall(server=c.server, tool=call.tool, arguments=call.arguments)))

    def resume(self, call: InFlight) -> bool:
        """Legacy, when everything outlived the process: replay the result. Modern: never."""
        return False


def _difference(before: list[ToolDef], after: list[ToolDef]) -> dict[str, Any]:
    """What a new tools/list changed, as the table says it: "explain_query added", "x removed", both."""
    old, new = [t.name for t in before], [t.name for t in after]
    added, removed = [t for t in new if t not in old], [t for t in old if t not in new]
    parts = [msg("narration.table.tools_added", tools=", ".join(added))] if added else []
    parts += [msg("narration.table.tools_removed", tools=", ".join(removed))] if removed else []
    if len(parts) == 2:
        return msg("narration.table.both", first=parts[0], second=parts[1])
    return parts[0] if parts else msg("narration.table.relisted")
