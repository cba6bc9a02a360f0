"""The modern (2026-07-28) client: no initialize and no session; every request carries its ``_meta``;
``server/discover`` describes a known server; ``subscriptions/listen`` opens the notification stream,
acknowledged first; nothing is replayed; a server's question comes back as ``input_required`` and the
client retries with a new id, the answers and the sealed ``requestState`` (MRTR)."""

from __future__ import annotations

from typing import ClassVar

from .. import servers
from .. import wire as w
from ..model import Era, ListenStream, PendingInput, ToolDef
from ..step import CallRecord
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
                note="A 2025-11-25-only server has no server/discover: an unknown method.",
            )
            if not self.st.s.host.dual_era:
                return self.no_common_era()
            self.say(
                f"{c.server} does not know server/discover: it speaks only 2025-11-25. The dual-era client "
                "falls back to that era: initialize, on the same connection.",
                "change",
            )
            c.era = "legacy"
            return LegacyClient(self.st, c).greet()
        self.link.reply(
            w.discover_result(f"d{n}", srv.title, srv.generation, srv.list_changed),
            "server/discover",
            note="Describes a server the host already knows; it finds no new ones.",
        )
        c.greeted = True
        if self.st.s.host.dual_era:
            self.say(f"{c.server} answered server/discover: it serves 2026-07-28, so the client speaks that era.")
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
            note="The response is an SSE stream that stays open." if http else "A request that stays pending.",
        )
        if self.stream_refused():
            return
        self.link.reply(
            w.acknowledged(rid), "subscriptions/listen", stream=True, note="Always the first message on the stream."
        )
        c.listen = ListenStream(open=True, request_id=rid, acknowledged=True)

    def reconnect(self) -> None:
        c, srv = self.c, self.srv
        if not c.greeted and not self.greet():
            return
        auto = self.st.s.host.auto_listen
        relisten = (
            "The client re-sends subscriptions/listen, waits for the acknowledgement, then re-lists, "
            if auto and srv.list_changed
            else "The client re-lists, "
        )
        self.say(
            f"{c.server} is back. There is no session to rebuild: the next request just works. "
            f"{relisten}because notifications sent while it was down are not replayed.",
            "change",
        )
        if auto:
            self.open_stream()
        if c.status == "connected":
            self.relist()

    def restarted_quietly(self) -> None:
        if self.c.pending_input is None:
            super().restarted_quietly()
            return
        key = (
            "Its requestState key is durable, so the retry should still verify."
            if self.srv.state_key_durable
            else "Its requestState key lived only in the old process, so the retry will fail with -32602 "
            "and the flow will start over: the user will be asked again."
        )
        self.say(
            f"{self.c.server} restarted while the user was thinking. Nothing was open: the first request "
            f"already finished with input_required, and the client holds the question and the requestState. {key}"
        )

    def begin_input(self, tool: ToolDef, args: dict[str, str]) -> None:
        c, srv = self.c, self.srv
        rid = self.rpc(self.call(tool.name, args))
        if rid is None:
            return
        state = servers.seal_state(srv)
        self.link.reply(
            w.input_required(rid, QUESTION, state),
            "tools/call",
            note="The request is finished; the client holds inputRequests and requestState.",
        )
        c.pending_input = PendingInput(
            tool=tool.name,
            arguments=args,
            question=QUESTION,
            call_id=rid,
            request_state=state,
            generation=srv.generation,
        )
        self.say(
            f"{c.server} answered input_required: the call is finished for now, and the client holds the "
            "question and the requestState. Nothing is open while the user thinks.",
            "model",
        )

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
                self.say(
                    "The retry (a new request id) reached the restarted server, which could still verify "
                    "the requestState (its key survived the restart): the call finished.",
                    "change",
                )
            else:
                self.say(f"The user answered {answer}; the retry (a new request id) finished the call.", "model")
            self.deliver(CallRecord(server=c.server, tool=p.tool, text=text, is_error=err))
            return
        self.link.reply(
            w.error(rid, -32602, "Invalid or expired requestState"),
            "tools/call",
            note="Invalid params: the state fails verification.",
        )
        why = (
            "it has expired"
            if after_expiry
            else "the restarted process cannot verify it (the key lived only in the old process)"
        )
        self.c.lost_answers += 1
        self.say(
            f"The server rejected the requestState: {why}. The user's answer is lost: the client starts "
            "the flow again and the user is asked again.",
            "error",
        )
        self.begin_input(tool, p.arguments)

    def stream_dropped(self) -> None:
        c = self.c
        self.link.dropped("The listen stream breaks with no result.")
        self.say(
            f"The listen stream to {c.server} dropped. Nothing is replayed in this era, so the client "
            "re-sends subscriptions/listen, waits for the ack, and re-lists.",
            "warn",
        )
        self.open_stream()
        if c.status == "connected":
            self.relist()

    def leave(self) -> None:
        c = self.c
        if c.listen.open and self.srv.up:
            if self.srv.transport == "http":
                self.link.close("The client closes its listen stream.")
            else:
                self.link.tell(w.cancelled(c.listen.request_id or ""), note="On stdio a listen ends by cancelling it.")
