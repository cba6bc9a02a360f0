"""Tokens expire and are renewed; the user signs in again as someone else."""

from __future__ import annotations

from typing import Literal

from ..clients import client_for
from ..model import Role
from ..step import Rejected, Step, changed, msg, word
from .base import EventBase, handles


class TokenExpires(EventBase):
    kind: Literal["token_expires"] = "token_expires"
    server: str


@handles(TokenExpires)
def _token_expires(st: Step, e: TokenExpires) -> None:
    c = st.client(e.server)
    if st.srv(e.server).transport == "stdio":
        raise Rejected("refusal.stdio_no_token")
    if not st.srv(e.server).auth:
        raise Rejected("refusal.no_token_asked", server=e.server)
    if c.token != "valid":
        raise Rejected("refusal.token_already", server=e.server, token=word("token", c.token))
    c.token = "expired"
    st.say("narration.token_expired", "warn", server=e.server)


class TokenRefreshed(EventBase):
    kind: Literal["token_refreshed"] = "token_refreshed"
    server: str


@handles(TokenRefreshed)
def _token_refreshed(st: Step, e: TokenRefreshed) -> None:
    c = st.client(e.server)
    if c.token == "valid":
        raise Rejected("refusal.token_valid", server=e.server)
    srv = st.s.servers[e.server]
    if srv.auth_in_process and not srv.up:  # the user signs in there: nobody can while the process is gone
        raise Rejected("refusal.sign_in_while_down", server=e.server)
    was = c.token
    c.token = "valid"
    c.token_serial += 1  # a new access token
    if was == "revoked":  # only an in-process authorization server revokes: its server is up
        st.say("narration.signed_in_again", "change", server=e.server)
        if c.status == "signed_out":
            c.status = "connected"
            c.last_error = None
            c.last_change = changed(st.s.step, msg("narration.table.signed_in"))  # a new list says more, below
            client = client_for(st, c)
            if not c.greeted and not client.greet():
                return
            if st.s.host.auto_listen and not c.listen.open:
                client.open_stream()
            if c.status == "connected":
                client.relist()
    else:
        st.say("narration.token_refreshed", "change", server=e.server)


class Reauthenticate(EventBase):
    """The user signs in again with other permissions; the tool list may vary by authorization."""

    kind: Literal["reauthenticate"] = "reauthenticate"
    server: str
    role: Role


@handles(Reauthenticate)
def _reauth(st: Step, e: Reauthenticate) -> None:
    c = st.client(e.server)
    if c.role == e.role:
        raise Rejected("refusal.already_signed_in_as", server=e.server, role=word("role", e.role))
    if c.status != "connected":
        raise Rejected("refusal.server_status", server=e.server, status=word("status", c.shown_status()))
    c.role = e.role
    c.token_serial += 1  # a sign-in is a new access token: the one the server reads the role from
    st.say("narration.signed_in_as", "change", server=e.server, role=word("role", e.role))
    # Nothing changed on the server, so it has nothing to announce: the client knows its credentials
    # changed, and the list it holds was fetched under the old ones.
    why = "narration.relisted_private_cache" if c.era == "modern" else "narration.relisted_old_credentials"
    client_for(st, c).relist(why)
