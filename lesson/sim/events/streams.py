"""Notification streams: a stream drops, a server misuses list_changed, the host batches changes,
the host switches the era it speaks."""

from __future__ import annotations

from typing import Literal

from .. import wire as w
from ..clients import client_for
from ..model import VERSION, Era, ListenStream, said
from ..step import Rejected, Step, count, era_label
from ..transport import Link
from .base import EventBase, handles


class ListenDrops(EventBase):
    kind: Literal["listen_drops"] = "listen_drops"
    server: str


@handles(ListenDrops)
def _listen_drops(st: Step, e: ListenDrops) -> None:
    c = st.client(e.server)
    if not c.listen.open:
        raise Rejected("refusal.no_open_stream", server=e.server)
    if st.srv(e.server).transport == "stdio":
        raise Rejected("refusal.stdio_stream", server=e.server)
    client_for(st, c).stream_dropped()


class UndeclaredListChanged(EventBase):
    """The server sends list_changed although it never declared tools.listChanged."""

    kind: Literal["undeclared_list_changed"] = "undeclared_list_changed"
    server: str


@handles(UndeclaredListChanged)
def _undeclared(st: Step, e: UndeclaredListChanged) -> None:
    srv = st.srv(e.server)
    c = st.client(e.server)
    if srv.list_changed:
        raise Rejected("refusal.list_changed_declared", server=e.server)
    if not srv.up or c.status != "connected":
        raise Rejected("refusal.not_connected", server=e.server)
    if c.era == "modern":
        st.say("narration.undeclared_list_changed_not_sent", "warn", server=e.server)
        return
    link = Link(st, c)
    if srv.transport == "http" and not c.listen.open:
        raise Rejected("refusal.no_open_stream_to_send", server=e.server)
    link.event(w.list_changed("legacy", None), note=said("narration.note.undeclared"))
    c.ignored_notifications += 1
    st.say("narration.undeclared_list_changed_ignored", "warn", server=e.server)


class TimerListChanged(EventBase):
    """The server fires list_changed on a timer, with nothing changed."""

    kind: Literal["timer_list_changed"] = "timer_list_changed"
    server: str


@handles(TimerListChanged)
def _timer(st: Step, e: TimerListChanged) -> None:
    srv = st.srv(e.server)
    c = st.client(e.server)
    if not srv.list_changed:
        raise Rejected("refusal.list_changed_undeclared", server=e.server)
    if c.status != "connected" or not c.listen.open or not srv.up:
        raise Rejected("refusal.no_open_stream", server=e.server)
    client = client_for(st, c)
    client.link.event(w.list_changed(c.era, c.listen.request_id), note=said("narration.note.timer"))
    if not client.relist():
        c.wasted_refetches += 1
        st.say("narration.timer_wasted_refetch", "warn", server=e.server, wasted=count(c.wasted_refetches, "wasted"))


class SetBatching(EventBase):
    kind: Literal["set_batching"] = "set_batching"
    on: bool


@handles(SetBatching)
def _batching(st: Step, e: SetBatching) -> None:
    if st.s.host.batching == e.on:
        raise Rejected("refusal.batching_already_on" if e.on else "refusal.batching_already_off")
    st.s.host.batching = e.on
    st.say("narration.batching_on" if e.on else "narration.batching_off")


class SwitchEra(EventBase):
    kind: Literal["switch_era"] = "switch_era"
    era: Era
    server: str | None = None  # None: every client


@handles(SwitchEra)
def _switch_era(st: Step, e: SwitchEra) -> None:
    targets = [st.client(e.server)] if e.server else list(st.s.host.clients.values())
    if e.server is None:
        if st.s.host.dual_era and st.s.host.era != e.era:
            st.s.host.era = e.era
            st.say("narration.dual_era_switch")
            return
        if not targets and st.s.host.era != e.era:  # no client yet: only the era new clients will speak changes
            st.s.host.era = e.era
            st.say("narration.era_no_client_yet", "change", era=era_label(e.era))
            return
        st.s.host.era = e.era
    todo = [c for c in targets if c.era != e.era]
    if not todo:
        raise Rejected("refusal.already_speaking", era=era_label(e.era))
    for c in todo:
        srv = st.s.servers[c.server]
        old = client_for(st, c)
        # A new era is a new connection: nothing of the old one carries over, and the new client
        # starts with its era's opening (legacy initialize, modern discover) whenever it next can.
        # What was still running on the old one ends here, and the model and the user are told.
        moved_to = f"{e.era} ({VERSION[e.era]})"
        old.abandon(f"The host moved its connection to {c.server} to {moved_to} while this call was running")
        if c.status == "connected":
            old.leave()
        c.era = e.era
        c.session_id, c.greeted = None, False
        c.listen = ListenStream()
        c.pending_input, c.in_flight = None, []
        st.say("narration.client_now_speaks", "change", server=c.server, era=era_label(e.era))
        if c.status == "signed_out":
            # The server refused the token with 401 (said then): the new connection would only carry it
            # again. It opens once the user signs in (TokenRefreshed greets in the new era).
            st.say("narration.era_waits_for_sign_in", "warn", server=c.server)
        elif srv.up and (c.status != "down" or c.era_refused):  # a refused greeting is tried again in the new era
            client_for(st, c).connect()
