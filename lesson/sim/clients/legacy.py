"""The legacy (2025-11-25) client: initialize first, a session id if the server issues one, a GET
stream for what the server says unasked, 404 when the session died, resumption with Last-Event-ID
only where the server stores events, and elicitation as a server request on the call's stream."""

from __future__ import annotations

from typing import ClassVar

from .. import servers
from .. import wire as w
from ..model import VERSION, Era, InFlight, ListenStream, PendingInput, Said, ToolDef, said
from ..step import CallRecord, msg
from .base import QUESTION, BaseClient


class LegacyClient(BaseClient):
    era: ClassVar[Era] = "legacy"

    def greet(self) -> bool:
        """initialize, then notifications/initialized: before anything else, on every new session."""
        c = self.c
        c.session_id = None  # initialize never carries one
        rid = self.rpc(w.initialize)
        if rid is None:
            return False
        srv = self.srv
        if "legacy" not in srv.speaks:
            self.link.reply(
                w.unsupported_version(rid, VERSION["legacy"], [VERSION[e] for e in srv.speaks]),
                "initialize",
                note=said("narration.note.no_initialize"),
            )
            return self.no_common_era()
        sid = servers.new_session(srv, c.next_id)
        self.link.reply(
            w.initialize_result(rid, srv.title, srv.generation, srv.list_changed),
            "initialize",
            headers={"Mcp-Session-Id": sid} if sid else None,
        )
        c.session_id = sid
        c.greeted = True
        self.link.tell(w.INITIALIZED)
        self.link.accepted()
        return True

    def session_gone(self) -> bool:
        c, srv = self.c, self.srv
        if srv.transport != "http" or not c.session_id or servers.honours(srv, c.session_id):
            return False
        self.link.status(404, payload=w.SESSION_NOT_FOUND, note=said("narration.note.unknown_session"))
        return True

    def get(self, *, last_event_id: str | None, note: Said) -> str:
        """GET the session's SSE stream, through the server's front door (401 first, then 404): "ok" once open."""
        for _ in range(3):
            self.link.get_stream(last_event_id=last_event_id, note=note)
            status = self.admit()
            if status == "ok":
                self.link.stream_opened()
                return status
            if status in ("expired", "revoked") and self.after_401(status):
                continue
            return status
        return "expired"

    def open_stream(self) -> None:
        c, srv = self.c, self.srv
        if srv.transport == "stdio":
            c.listen = ListenStream(open=True)  # notifications arrive on the process's stdout
            return
        status = self.get(last_event_id=None, note=self.stream_note())
        if status == "404":
            self.say("narration.session_gone_reinitialize", "warn", server=c.server)
            if self.greet():
                status = self.get(last_event_id=None, note=self.stream_note())
        c.listen = ListenStream(open=status == "ok")  # no event id yet: nothing to resume from

    def stream_note(self) -> Said:
        """What a GET stream is: the session's, or, from a server that issued no session id, just a stream."""
        return said("narration.note.opens_session_stream" if self.c.session_id else "narration.note.opens_stream")

    def reconnect(self) -> None:
        c, srv = self.c, self.srv
        auto = self.st.s.host.auto_listen
        if srv.transport == "stdio" or not c.greeted:
            why = msg("narration.why.back_new_process") if srv.transport == "stdio" else msg("narration.why.back")
            self.say("narration.back_initialize_first", "change", server=c.server, why=why)
            if not self.greet():
                return
        elif c.session_id and not servers.honours(srv, c.session_id) and not (auto or c.listen.open):
            # It never opened a GET stream, so there is none to reopen: its next request meets the 404.
            self.say("narration.back_no_stream_to_reopen", "change", server=c.server)
            self.relist()
            return
        elif c.session_id and not servers.honours(srv, c.session_id):
            resume = c.listen.last_event_id if srv.event_store and c.listen.open else None
            status = self.get(last_event_id=resume, note=said("narration.note.tries_to_reopen"))
            if status != "404":
                return  # 401 and the user must sign in again (an expired token was refreshed and retried)
            get = msg("narration.get.new_stream") if auto else msg("narration.get.none")
            self.say("narration.back_session_unknown", "change", server=c.server, get=get)
            if not self.greet():
                return
        elif c.listen.open and c.listen.last_event_id:
            if self.get(last_event_id=c.listen.last_event_id, note=said("narration.note.resume_last_event")) != "ok":
                return
            self.say("narration.back_resumes_stream", "change", server=c.server)
            self.relist()
            return
        elif c.session_id is None:
            self.say("narration.back_no_session", "change", server=c.server)
        else:
            then = msg("narration.then.reopens") if auto else msg("narration.then.carries_on")
            self.say("narration.back_session_honoured", "change", server=c.server, then=then)
        if auto:
            self.open_stream()
        if c.status == "connected":
            self.relist()

    def restarted_quietly(self) -> None:
        if self.c.pending_input is None:
            super().restarted_quietly()
        else:
            self.resume_question()

    def recover(self, lost: list[InFlight]) -> None:
        super().recover(lost)
        self.resume_question()

    def resume_question(self) -> None:
        """The call that asked lost its stream in a restart. Where the session, its stored events and the
        unfinished work outlived the process, the client resumes that stream (GET with Last-Event-ID): the
        question still stands, and the answer will reach the new process."""
        c, srv = self.c, self.srv
        p = c.pending_input
        if not (p and p.stream_dropped and p.event_id and srv.sessions_durable and srv.event_store):
            return
        if c.status != "connected" or not servers.honours(srv, c.session_id):
            return
        note = said("narration.note.resumes_question_stream")
        if self.get(last_event_id=p.event_id, note=note) != "ok":
            return
        c.pending_input = p.model_copy(update={"stream_dropped": False, "resumed": True})
        self.say("narration.question_stream_resumed", "change", server=srv.name, tool=p.tool)

    def resume(self, call: InFlight) -> bool:
        c, srv = self.c, self.srv
        if not (srv.sessions_durable and call.event_id and servers.honours(srv, c.session_id)):
            return False
        note = said("narration.note.resumes_call_stream")
        if self.get(last_event_id=call.event_id, note=note) != "ok":
            return False
        text, err = servers.run_tool(self.st, c.server, call.tool, call.arguments)
        self.link.event(
            w.result(call.request_id, w.call_result_body(c.era, text, err)),
            "tools/call",
            note=said("narration.note.resumed_work_outlived"),
        )
        self.say("narration.call_resumed", "change", tool=call.tool, server=srv.name)
        self.deliver(CallRecord(server=c.server, tool=call.tool, text=text, is_error=err))
        return True

    def begin_input(self, tool: ToolDef, args: dict[str, str], again: bool = False) -> None:
        c, srv = self.c, self.srv
        rid = self.rpc(self.call(tool.name, args))
        if rid is None:
            return
        eid = srv.request_seq  # the server's own request ids, apart from the client's
        srv.request_seq += 1
        event_id = self.link.reply(
            w.elicit(eid, QUESTION),
            "tools/call",
            stream=True,
            note=said("narration.note.elicitation_on_call_stream"),
        )
        c.in_flight.append(InFlight(request_id=rid, tool=tool.name, arguments=args, idempotent=tool.idempotent))
        c.pending_input = PendingInput(
            tool=tool.name,
            arguments=args,
            question=QUESTION,
            call_id=rid,
            elicit_id=eid,
            generation=srv.generation,
            event_id=event_id,
        )
        code = "narration.elicitation_asked_again" if again else "narration.elicitation_asked"
        self.say(code, "info", server=c.server, question=QUESTION)  # the server asks the user: not the model's doing

    def answer(self, answer: str, after_expiry: bool) -> None:
        c, srv = self.c, self.srv
        p = c.pending_input
        assert p is not None and p.elicit_id is not None
        c.pending_input = None
        tool = next((t for t in srv.tools if t.name == p.tool), ToolDef(name=p.tool, description=""))
        if p.stream_dropped and srv.transport == "stdio":
            # The host launched the new process itself: it knows that process never asked, and sends it nothing.
            c.lost_answers += 1
            self.say("narration.answer_lost_stdio", "error")
            c.in_flight = [x for x in c.in_flight if x.request_id != p.call_id]
            self.begin_input(tool, p.arguments, again=True)
            return
        for _ in range(3):
            self.link.tell(w.elicit_result(p.elicit_id, answer), answers="elicitation/create")
            status = self.admit()
            if status not in ("expired", "revoked") or not self.after_401(status):
                break
        if status == "revoked":
            c.pending_input = p  # the question stays on screen until the user has signed in again
            return
        if status == "404":
            c.lost_answers += 1
            self.say("narration.answer_lost_404", "error")
            self.forget_session()
            if not self.greet():
                return
            self.relist()
        elif p.stream_dropped or (p.generation != srv.generation and not p.resumed):
            c.lost_answers += 1
            self.link.accepted()
            self.say("narration.answer_lost_process_gone", "error")
        else:
            self.link.accepted()
            c.in_flight = [x for x in c.in_flight if x.request_id != p.call_id]
            text, err = servers.run_tool(self.st, c.server, p.tool, p.arguments)
            self.link.event(
                w.result(p.call_id, w.call_result_body("legacy", text, err)),
                "tools/call",
                note=Said(
                    code="narration.note.resumed_call_finishes" if p.resumed else "narration.note.open_call_finishes"
                ),
            )
            self.say("narration.answered_call_finished", "info", answer=answer)
            self.deliver(CallRecord(server=c.server, tool=p.tool, text=text, is_error=err))
            return
        c.in_flight = [x for x in c.in_flight if x.request_id != p.call_id]
        self.begin_input(tool, p.arguments, again=True)

    def stream_dropped(self) -> None:
        c, srv = self.c, self.srv
        self.link.dropped(said("narration.note.stream_breaks"))
        if c.listen.last_event_id and servers.honours(srv, c.session_id):
            if self.get(last_event_id=c.listen.last_event_id, note=said("narration.note.resume_last_event")) != "ok":
                c.listen = ListenStream()
                return
            self.say("narration.get_stream_resumed", "warn", server=c.server, last_event_id=c.listen.last_event_id)
            return
        why = msg("narration.why.no_event_yet") if srv.event_store else msg("narration.why.no_event_store")
        self.say("narration.get_stream_reopened", "warn", server=c.server, why=why)
        self.open_stream()
        if c.status == "connected":
            self.relist()

    def leave(self) -> None:
        c = self.c
        if c.session_id and self.srv.up:
            for _ in range(3):
                self.link.delete(said("narration.note.ends_session"))
                status = self.admit()  # a DELETE meets the front door like any request: 401 first
                if status == "ok":
                    self.link.status(200)
                if status == "revoked":  # the session is left to expire on the server
                    self.token_gone()  # and the host knows the token is refused (the era switch says so)
                if status != "expired" or not self.after_401(status):
                    break
        c.session_id = None
