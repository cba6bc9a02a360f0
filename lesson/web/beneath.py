"""What the socket's guards do beneath flask-sock's and simple-websocket's API, kept here, each for a
reason docs/classroom.md gives ("`/ws` is a flask-sock route"):

- the client's offer of permessage-deflate is taken out before the library reads it (the library
  accepts any offer and inflates a frame without bound before its size check);
- the connection's socket is read from the WSGI environ, where werkzeug and gunicorn put it (as
  flask-sock itself reads it), and held open through a file object until the handler ends (the
  library's reader closes it as soon as it stops reading, and a reset could overtake the close frame);
- a handler waiting in ``receive`` on a socket the library closed is woken through the library's
  ``event`` (the one attribute of the library written); the frames its reader has queued, the length of
  the frame it refused and its reader thread are read from its public attributes, here only;
- a socket is shut, drained or asked whether it has room below the library, since a handler blocked
  in a send, or a client that does not read, leaves the library nothing to do it with.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import time
from typing import IO, Any

from simple_websocket import Server


def decline_compression(environ: dict[str, Any]) -> None:
    """Before the handshake: the handshake is then answered without permessage-deflate."""
    environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)


def connection_socket(environ: dict[str, Any]) -> socket.socket:
    """The connection's socket, where the WSGI server puts it (werkzeug and gunicorn)."""
    return environ.get("werkzeug.socket") or environ["gunicorn.socket"]


def hold_open(raw: socket.socket) -> IO[bytes]:
    """A file object on the socket: Python closes a socket's descriptor only once its file objects are
    closed too, so the socket stays open until the handler closes this."""
    return raw.makefile("rb")


# The library's state read below its documented API: public attributes (no underscore) that its
# documentation does not describe, read only here.


def frames_waiting(ws: Server) -> int:
    """Frames the library's reader has queued that no ``receive`` has taken yet."""
    return len(ws.input_buffer)


def incoming_length(ws: Server) -> int:
    """The length of the frame the library was reading when it stopped (one over its limit, for one)."""
    return ws.incoming_message_len


def join_reader(ws: Server, timeout: float) -> None:
    """Wait for the library's reader thread to end, ``timeout`` seconds at most."""
    ws.thread.join(timeout)


def wake(ws: Server) -> None:
    """Wake a handler waiting in the library's ``receive``."""
    ws.event.set()


def has_room(raw: socket.socket) -> bool:
    """Whether a frame written now would go out without blocking."""
    with selectors.DefaultSelector() as sel:
        sel.register(raw, selectors.EVENT_WRITE)
        return bool(sel.select(0))


def shut(raw: socket.socket, how: int = socket.SHUT_RDWR) -> None:
    """Shut the socket (both ways by default): a send blocked on it fails at once."""
    with contextlib.suppress(OSError):
        raw.shutdown(how)


def drain(raw: socket.socket, seconds: float, max_bytes: int) -> None:
    """Stop writing, then read (and drop) what the client still sends, for at most ``seconds`` and
    ``max_bytes``: the rest of a frame too big, its answer to a close."""
    deadline, left = time.monotonic() + seconds, max_bytes
    with contextlib.suppress(OSError, ValueError), selectors.DefaultSelector() as sel:
        raw.shutdown(socket.SHUT_WR)
        sel.register(raw, selectors.EVENT_READ)
        while left > 0 and (wait := deadline - time.monotonic()) > 0 and sel.select(wait):
            chunk = raw.recv(65536)
            if not chunk:
                break
            left -= len(chunk)


__all__ = [
    "connection_socket",
    "decline_compression",
    "drain",
    "frames_waiting",
    "has_room",
    "hold_open",
    "incoming_length",
    "join_reader",
    "shut",
    "wake",
]
