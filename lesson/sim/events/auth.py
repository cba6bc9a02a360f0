"""Tokens expire and are renewed; the user signs in again as someone else."""

from __future__ import annotations

from typing import Literal

from ..clients import client_for
from ..model import Role
from ..step import Rejected, Step
from .base import EventBase, handles


class TokenExpires(EventBase):
    label = "the token for {server} expires"
    kind: Literal["token_expires"] = "token_expires"
    server: str


@handles(TokenExpires)
def _token_expires(st: Step, e: TokenExpires) -> None:
    c = st.client(e.server)
    if st.srv(e.server).transport == "stdio":
        raise Rejected("On stdio there is no token: credentials come from the environment.")
    if not st.srv(e.server).auth:
        raise Rejected(f"{e.server} asks for no token.")
    if c.token != "valid":
        raise Rejected(f"The token for {e.server} is already {c.token}.")
    c.token = "expired"
    st.say(
        f"The user's token for {e.server} expired. The next request will get 401, then the client refreshes it.", "warn"
    )


class TokenRefreshed(EventBase):
    label = "the token for {server} is renewed"
    kind: Literal["token_refreshed"] = "token_refreshed"
    server: str


@handles(TokenRefreshed)
def _token_refreshed(st: Step, e: TokenRefreshed) -> None:
    c = st.client(e.server)
    if c.token == "valid":
        raise Rejected(f"The token for {e.server} is valid; there is nothing to refresh.")
    srv = st.s.servers[e.server]
    if srv.auth_in_process and not srv.up:  # the user signs in there: nobody can while the process is gone
        raise Rejected(f"{e.server} signs users in inside its own process, which is not running: no new token now.")
    was = c.token
    c.token = "valid"
    c.token_serial += 1  # a new access token
    if was == "revoked":  # only an in-process authorization server revokes: its server is up
        st.say(f"The user signed in again; {e.server} accepts the new token.", "change")
        if c.status == "reconnecting":
            c.status = "connected"
            c.last_error = None
            client = client_for(st, c)
            if not c.greeted and not client.greet():
                return
            if st.s.host.auto_listen and not c.listen.open:
                client.open_stream()
            if c.status == "connected":
                client.relist()
    else:
        st.say(f"The client refreshed the token for {e.server} before its next request.", "change")


class Reauthenticate(EventBase):
    """The user signs in again with other permissions; the tool list may vary by authorization."""

    label = "the user signs in to {server} as {role}"
    kind: Literal["reauthenticate"] = "reauthenticate"
    server: str
    role: Role


@handles(Reauthenticate)
def _reauth(st: Step, e: Reauthenticate) -> None:
    c = st.client(e.server)
    if c.role == e.role:
        raise Rejected(f"The user is already signed in to {e.server} as {e.role}.")
    if c.status != "connected":
        raise Rejected(f"{e.server} is {c.status}.")
    c.role = e.role
    st.say(
        f"The user signed in to {e.server} again, now as {e.role}. The tool list may vary by "
        "authorization, so the set of tools the server shows this user can change.",
        "change",
    )
    # Nothing changed on the server, so it has nothing to announce: the client knows its credentials
    # changed, and the list it holds was fetched under the old ones.
    why = (
        "The cached list had cacheScope: private (it belonged to the old credentials), so the client "
        "re-listed under the new ones. No list_changed is involved."
        if c.era == "modern"
        else "The list the client holds was fetched under the old credentials, so the client re-listed. "
        "No list_changed is involved."
    )
    client_for(st, c).relist(why)
