"""The modern (2026-07-28) client: no initialize and no session; every request carries its ``_meta``;
``server/discover`` describes a known server; ``subscriptions/listen`` opens the notification stream,
acknowledged first; nothing is replayed; a server's question comes back as ``input_required`` and the
client retries with a new id, the answers and the sealed ``requestState`` (MRTR)."""

from __future__ import annotations

from typing import ClassVar

from .. import servers
from .. import wire as w
from ..model import Era, ListenStream, PendingInput, ToolDef, said
from ..step import CallRecord, msg
from .base import QUESTION, BaseClient
from .legacy import LegacyClient


class ModernClient(BaseClient):
    era: ClassVar[Era] = "modern"

    def greet(self) -> bool:
        """server/discover: optional in this era and it finds nothing new; it tells the host the capabilities."""
        c = self.c
        n = self.rpc(lambda n: w.request("modern", f"d{n}", "server/discover"))
        if n is None:
            return False
        srv = self.srv
        if "modern" not in srv.speaks:
            self.link.reply(
                w.error(f"d{n}", w.METHOD_NOT_FOUND, "Method not found"),
                "server/discover",
                note=said("narration.note.no_discover"),
            )
            if not self.st.s.host.dual_era:
                return self.no_common_era()
            self.say("narration.discover_unknown_fallback", "change", server=c.server)
            c.era = "legacy"
            return LegacyClient(self.st, c).greet()
        self.link.reply(
            w.discover_result(f"d{n}", srv.title, srv.generation, srv.list_changed),
            "server/discover",
            note=said("narration.note.discover_known"),
        )
        c.greeted = True
        if self.st.s.host.dual_era:
            self.say("narration.discover_modern", server=c.server)
        return True

    def open_stream(self) -> None:
        c, srv = self.c, self.srv
        if not srv.list_changed:
            return
        c.listen_seq += 1
        rid = f"listen-{c.listen_seq}"
        http = srv.transport == "http"
        self.link.request(
            w.listen(rid),
            note=said("narration.note.listen_stream_open" if http else "narration.note.listen_request_pending"),
        )
        if self.stream_refused():
            return
        self.link.reply(
            w.acknowledged(rid),
            "subscriptions/listen",
            stream=True,
            note=said("narration.note.acknowledged_first"),
        )
        c.listen = ListenStream(open=True, request_id=rid, acknowledged=True)

    def reconnect(self) -> None:
        c, srv = self.c, self.srv
        if not c.greeted and not self.greet():
            return
        auto = self.st.s.host.auto_listen
        # A listen stream ends with the process. A host that listens (mark_down already closed its stream)
        # re-opens it; one that never listened had no notification to miss.
        had_stream = c.listen.open or (auto and srv.list_changed)
        c.listen = ListenStream()
        if srv.transport == "http" and srv.auth and c.token == "revoked":
            # The in-process authorization server took the token with it: nothing "just works" until sign-in.
            self.say("narration.back_modern_token_gone", "warn", server=c.server)
        elif not had_stream:
            # Nothing is replayed, but with no listen stream open there was no notification to miss: nothing to
            # re-list for (a cached list stays fresh until its ttlMs runs out), as after an idle restart. Over
            # stdio the host launched the new process and met it from scratch (greet, above).
            code = (
                "narration.back_modern_stdio_no_stream"
                if srv.transport == "stdio"
                else "narration.back_modern_no_stream"
            )
            self.say(code, "change", server=c.server)
        else:
            relisten = (
                msg("narration.relisten.listen_first")
                if auto and srv.list_changed
                else msg("narration.relisten.relist")
            )
            back = "narration.back_modern_stdio" if srv.transport == "stdio" else "narration.back_modern"
            self.say(back, "change", server=c.server, relisten=relisten)
        if not had_stream:
            return
        if auto:
            self.open_stream()
        if c.status == "connected":
            self.relist()

    def restarted_quietly(self) -> None:
        if self.c.pending_input is None:
            super().restarted_quietly()
            return
        key = msg("narration.key.durable") if self.srv.state_key_durable else msg("narration.key.lost")
        self.say("narration.restarted_while_asking", server=self.c.server, key=key)

    def begin_input(self, tool: ToolDef, args: dict[str, str], again: bool = False) -> None:
        c, srv = self.c, self.srv
        rid = self.rpc(self.call(tool.name, args))
        if rid is None:
            return
        state = servers.seal_state(srv)
        self.link.reply(
            w.input_required(rid, QUESTION, state),
            "tools/call",
            note=said("narration.note.input_required"),
        )
        c.pending_input = PendingInput(
            tool=tool.name,
            arguments=args,
            question=QUESTION,
            call_id=rid,
            request_state=state,
            generation=srv.generation,
        )
        # The server asks the user: not the model's doing, so no "Model:" label.
        code = "narration.input_required_again" if again else "narration.input_required"
        self.say(code, "info", server=c.server, question=QUESTION)

    def answer(self, answer: str, after_expiry: bool) -> None:
        c, srv = self.c, self.srv
        p = c.pending_input
        assert p is not None
        c.pending_input = None
        tool = next((t for t in srv.tools if t.name == p.tool), ToolDef(name=p.tool, description=""))
        responses = {w.INPUT_KEY: {"action": "accept", "content": {"state": answer}}}
        rid = self.rpc(self.call(p.tool, p.arguments, inputResponses=responses, requestState=p.request_state or ""))
        if rid is None:
            c.pending_input = p
            return
        if servers.verifies(srv, p.generation) and not after_expiry:
            text, err = servers.run_tool(self.st, c.server, p.tool, p.arguments)
            self.link.reply(w.result(rid, w.call_result_body("modern", text, err)), "tools/call")
            if p.generation != srv.generation:
                self.say("narration.retry_verified_after_restart", "change")
            else:
                self.say("narration.answered_retry_finished", "info", answer=answer)
            self.deliver(CallRecord(server=c.server, tool=p.tool, text=text, is_error=err))
            return
        self.link.reply(
            w.error(rid, -32602, "Invalid or expired requestState"),
            "tools/call",
            note=said("narration.note.state_fails"),
        )
        why = msg("narration.why.state_expired") if after_expiry else msg("narration.why.key_lost")
        # An expiry alone is the user's slowness, not a restart's doing: only an answer a restart made
        # unverifiable (its key gone with the process) counts as lost to a restart.
        if not servers.verifies(srv, p.generation):
            self.c.lost_answers += 1
        self.say("narration.request_state_rejected", "error", why=why)
        self.begin_input(tool, p.arguments, again=True)

    def stream_dropped(self) -> None:
        c = self.c
        self.link.dropped(said("narration.note.listen_stream_breaks"))
        self.say("narration.listen_stream_dropped", "warn", server=c.server)
        self.open_stream()
        if c.status == "connected":
            self.relist()

    def leave(self) -> None:
        c = self.c
        if c.listen.open and self.srv.up:
            if self.srv.transport == "http":
                self.link.close(said("narration.note.closes_listen"))
            else:
                self.link.tell(w.cancelled(c.listen.request_id or ""), note=said("narration.note.listen_cancelled"))
