"""Notification streams: a stream drops, a server misuses list_changed, the host batches changes,
the host switches the era it speaks."""

from __future__ import annotations

from typing import Literal

from .. import wire as w
from ..clients import client_for
from ..model import ERA_LABEL, Era, ListenStream
from ..step import Rejected, Step, count
from ..transport import Link
from .base import EventBase, handles


class ListenDrops(EventBase):
    label = "the stream to {server} drops"
    kind: Literal["listen_drops"] = "listen_drops"
    server: str


@handles(ListenDrops)
def _listen_drops(st: Step, e: ListenDrops) -> None:
    c = st.client(e.server)
    if not c.listen.open:
        raise Rejected(f"The host has no open stream to {e.server}.")
    if st.srv(e.server).transport == "stdio":
        raise Rejected(
            f"On stdio the notifications come on {e.server}'s stdout: they stop only when the process exits."
        )
    client_for(st, c).stream_dropped()


class UndeclaredListChanged(EventBase):
    """The server sends list_changed although it never declared tools.listChanged."""

    label = "{server} sends list_changed without declaring it"
    kind: Literal["undeclared_list_changed"] = "undeclared_list_changed"
    server: str


@handles(UndeclaredListChanged)
def _undeclared(st: Step, e: UndeclaredListChanged) -> None:
    srv = st.srv(e.server)
    c = st.client(e.server)
    if srv.list_changed:
        raise Rejected(f"{e.server} did declare tools.listChanged; its notifications are legitimate.")
    if not srv.up or c.status != "connected":
        raise Rejected(f"{e.server} is not connected.")
    if c.era == "modern":
        st.say(
            f"{e.server} wants to send list_changed without having declared tools.listChanged. In this "
            "era the client never asked for that type on a listen stream, and a server must not send "
            "types the client did not ask for: nothing reaches the host, nothing changes.",
            "warn",
        )
        return
    link = Link(st, c)
    if srv.transport == "http" and not c.listen.open:
        raise Rejected(f"The host has no open stream to {e.server}: there is nowhere to send it.")
    link.event(w.list_changed("legacy", None), note="Sent without the capability: one the server never offered.")
    c.ignored_notifications += 1
    st.say(
        f"{e.server} sent list_changed without declaring tools.listChanged: the client goes by the "
        "declared capabilities and need not react. The host ignores it; nothing changes.",
        "warn",
    )


class TimerListChanged(EventBase):
    """The server fires list_changed on a timer, with nothing changed."""

    label = "{server}'s timer fires list_changed"
    kind: Literal["timer_list_changed"] = "timer_list_changed"
    server: str


@handles(TimerListChanged)
def _timer(st: Step, e: TimerListChanged) -> None:
    srv = st.srv(e.server)
    c = st.client(e.server)
    if not srv.list_changed:
        raise Rejected(f"{e.server} never declared tools.listChanged.")
    if c.status != "connected" or not c.listen.open or not srv.up:
        raise Rejected(f"The host has no open stream to {e.server}.")
    client = client_for(st, c)
    client.link.event(w.list_changed(c.era, c.listen.request_id), note="Fired by a timer: nothing changed.")
    if not client.relist():
        c.wasted_refetches += 1
        st.say(
            f"{e.server}'s timer fired list_changed with nothing changed. The client re-fetched for "
            f"nothing ({count(c.wasted_refetches, 'wasted re-fetch', 'wasted re-fetches')} so far).",
            "warn",
        )


class SetBatching(EventBase):
    label = "batching {on}"
    kind: Literal["set_batching"] = "set_batching"
    on: bool


@handles(SetBatching)
def _batching(st: Step, e: SetBatching) -> None:
    if st.s.host.batching == e.on:
        raise Rejected(f"Batching is already {'on' if e.on else 'off'}.")
    st.s.host.batching = e.on
    st.say(
        "The host now batches tool-list changes until the next turn."
        if e.on
        else "The host now rebuilds the tool list after every change."
    )


class SwitchEra(EventBase):
    label = "the host switches to the {era} era"
    kind: Literal["switch_era"] = "switch_era"
    era: Era
    server: str | None = None  # None: every client


@handles(SwitchEra)
def _switch_era(st: Step, e: SwitchEra) -> None:
    targets = [st.client(e.server)] if e.server else list(st.s.host.clients.values())
    if e.server is None:
        if st.s.host.dual_era and st.s.host.era != e.era:
            st.s.host.era = e.era
            st.say("The host speaks both eras: each client keeps the era its server answered in.")
            return
        if not targets and st.s.host.era != e.era:  # no client yet: only the era new clients will speak changes
            st.s.host.era = e.era
            st.say(f"The host now speaks {ERA_LABEL[e.era]}; it has no client yet.", "change")
            return
        st.s.host.era = e.era
    todo = [c for c in targets if c.era != e.era]
    if not todo:
        raise Rejected(f"Already speaking {ERA_LABEL[e.era]}.")
    for c in todo:
        srv = st.s.servers[c.server]
        old = client_for(st, c)
        # A new era is a new connection: nothing of the old one carries over, and the new client
        # starts with its era's opening (legacy initialize, modern discover) whenever it next can.
        # What was still running on the old one ends here, and the model and the user are told.
        old.abandon(f"The host moved its connection to {c.server} to {ERA_LABEL[e.era]} while this call was running")
        if c.status == "connected":
            old.leave()
        c.era = e.era
        c.session_id, c.greeted = None, False
        c.listen = ListenStream()
        c.pending_input, c.in_flight = None, []
        st.say(f"The client for {c.server} now speaks {ERA_LABEL[e.era]}.", "change")
        if srv.up and (c.status != "down" or c.era_refused):  # a refused greeting is tried again in the new era
            client_for(st, c).connect()
