"""The WebSocket route and its plain-HTTP twin: decode, hand to the service, send the answer.

The socket loop also guards the server: frames too large, too fast or left unread, sockets that
never speak, and too many sockets from one address are closed with a code and a reason (see
docs/protocol.md). None of it touches other learners' sockets.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import struct
import threading
import time
from collections import Counter
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request
from simple_websocket import ConnectionClosed, ConnectionError, Server
from wsproto.events import CloseConnection
from wsproto.utilities import RemoteProtocolError

from .guard import origin_allowed
from .hints import origin_refusal

bp = Blueprint("frames", __name__)
log = logging.getLogger(__name__)

STATUS = {"too_large": 413, "unknown_panel": 404, "need_log": 409}

# Close codes (RFC 6455 and the private range): the page reads them to decide what to do next.
POLICY = 1008  # too fast, or frames left unread
TOO_BIG = 1009
TRY_LATER = 1013  # too many sockets from this address
IDLE = 4408  # no frame for a while; the page reconnects on its next press
GOING_AWAY = 1001  # the server is stopping (a deploy, a restart): the page reconnects
_LEAVING = object()  # put in a socket's input by ``Addresses.going_away``: its handler closes it


class Refusals:
    """Warnings for sockets the guards refuse or close, so an operator sees why learners reconnect (a
    class behind one address hitting the per-address cap, a portal's origin left out of the settings).
    One line per kind every ``every`` seconds, counting those in between: a client refused in a loop must
    not flood the log. One per app (its ``extensions["lesson.refusals"]``)."""

    def __init__(self, every: float = 60.0, clock: Any = time.monotonic) -> None:
        self.every = every
        self.clock = clock
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def note(self, kind: str, message: str) -> None:
        now = self.clock()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and now - last < self.every:
                self._held[kind] += 1
                return
            held = self._held.pop(kind, 0)
            self._last[kind] = now
        more = f" ({held} more like it in the last {now - last:.0f} s)" if held and last is not None else ""
        log.warning("%s%s", message, more)


def _service():
    from . import lesson_state

    return lesson_state().service


class _KeepOpen:
    """The connection's socket as simple-websocket's reader thread holds it, minus ``close``: the reader
    closes it as soon as the socket is closed, before the client's answer to a close has arrived, and
    the HTTP server would then read that answer as a new request. ``GuardedSocket.end`` closes it."""

    def __init__(self, sock: socket.socket) -> None:
        self.real = sock
        # What every frame uses, bound once: __getattr__ is for the rest.
        self.recv, self.send = sock.recv, sock.send

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def close(self) -> None:
        pass


class GuardedSocket(Server):
    """simple-websocket's server with a bound on frames received but not yet handled, a handler that
    always learns that its socket closed, and a close on a frame too big that reaches the client.

    Its reader thread keeps reading while the handler is blocked sending to a client that does not
    read; without a bound, the frames pile up in memory."""

    max_queued = 16
    linger = 2.0  # seconds to read what a refused client still sends, so the close frame reaches it
    linger_bytes = 1 << 20
    draining = False
    addr = "?"  # the client's address and the app's refusal log, set once the handshake is done
    refusals: Refusals | None = None

    @property
    def real_socket(self) -> socket.socket:
        """The connection's socket itself, not the wrapper that keeps the reader thread from closing it."""
        return self.sock.real if isinstance(self.sock, _KeepOpen) else self.sock

    def noted(self, kind: str, message: str) -> None:
        if self.refusals is not None:
            self.refusals.note(kind, f"socket from {self.addr}: {message}")

    def handshake(self) -> None:
        super().handshake()
        self.sock = _KeepOpen(self.sock)  # before the reader thread starts

    def _handle_events(self) -> bool:
        keep_going = super()._handle_events()
        if keep_going and len(self.input_buffer) > self.max_queued:
            self.input_buffer.clear()
            # Logged before the close goes out, so whoever sees the close can find the line.
            why = f"more than {self.max_queued} frames left unhandled (LESSON_WS_MAX_QUEUED)"
            self.noted("unhandled", f"closed (1008): {why}")
            self._give_up(POLICY, f"more than {self.max_queued} frames waiting; read the answers before sending more")
            return False
        if not keep_going:
            # The base class wakes the handler before it marks the socket closed (a frame too big, a
            # close from the client): the handler could go back to waiting until its idle timeout,
            # holding a thread and one of its address's sockets. Mark it closed, then wake it again.
            self.draining = bool(self.max_message_size) and self.incoming_message_len > self.max_message_size
            self.connected = False
            self.event.set()
            if self.draining:
                limit = self.max_message_size
                self.noted("too_big", f"closed (1009): a frame over {limit} bytes (LESSON_WS_MAX_MESSAGE_BYTES)")
                self._drain(self.linger)
        return keep_going

    def _drain(self, seconds: float) -> None:
        """Once the socket is closed, read (and drop) what the client still sends for a short while: the
        rest of a frame too big, its answer to our close. Closing with unread bytes sends a reset, which
        can overtake the close frame (the client would see 1006 instead of 1009 and its reason)."""
        deadline, left = time.monotonic() + seconds, self.linger_bytes
        with contextlib.suppress(OSError), selectors.DefaultSelector() as sel:
            self.sock.shutdown(socket.SHUT_WR)
            sel.register(self.sock, selectors.EVENT_READ)
            while left > 0 and (wait := deadline - time.monotonic()) > 0 and sel.select(wait):
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                left -= len(chunk)

    def end(self) -> None:
        """End the connection, the socket closed: let the reader take the client's last frames (briefly:
        a client may never answer), drop anything after them, and close it, so that the HTTP server
        finds the connection ended instead of reading those bytes as a request and answering it."""
        self.thread.join(self.linger + 1 if self.draining else 1.0)
        if not self.draining:
            self._drain(1.0)
        real = self.real_socket
        with contextlib.suppress(OSError):
            real.shutdown(socket.SHUT_RDWR)
        real.close()

    def _give_up(self, code: int, reason: str) -> None:
        """Close a client that does not read. Its buffers are full, so the close frame goes out only if
        there is room for it (a send would wait out the send timeout), and the handler's send, blocked
        on the same buffers, is ended at once by shutting the socket for writing."""
        if not self.connected:
            return
        out = self.ws.send(CloseConnection(code, reason))
        self.connected = False
        real = self.real_socket
        with contextlib.suppress(OSError):
            real.send(out, socket.MSG_DONTWAIT)
        with contextlib.suppress(OSError):
            real.shutdown(socket.SHUT_WR)
        self.event.set()

    def _refuse(self, code: int, reason: str) -> None:
        with contextlib.suppress(ConnectionClosed, OSError):
            self.close(code, reason)
        self.event.set()


class Addresses:
    """Open sockets, counted per client address, for one app (its ``extensions["lesson.addresses"]``)."""

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()
        self.sockets: set[GuardedSocket] = set()
        self.stopping = False  # set by ``going_away``: a socket opened after it is closed at once
        self._lock = threading.Lock()

    def enter(self, addr: str, cap: int, conn: GuardedSocket | None = None) -> bool:
        with self._lock:
            if self.stopping or self.open[addr] >= cap:
                return False
            self.open[addr] += 1
            if conn is not None:
                self.sockets.add(conn)
            return True

    def leave(self, addr: str, conn: GuardedSocket | None = None) -> None:
        with self._lock:
            self.open[addr] -= 1
            if self.open[addr] <= 0:
                del self.open[addr]
            self.sockets.discard(conn)

    def going_away(self) -> int:
        """The server is stopping: each socket's handler closes it with 1001 once its current answer,
        if any, is sent, and a socket opened from now on is closed the same way. It only queues a
        marker; called from a gunicorn worker's SIGTERM handler, it runs on the worker's main thread,
        which never holds these locks. Returns how many sockets were open."""
        with self._lock:
            self.stopping = True
            conns = list(self.sockets)
        for conn in conns:
            conn.input_buffer.append(_LEAVING)
            conn.event.set()
        return len(conns)


def send_timeout(sock: Any, seconds: float) -> None:
    """A send blocked ``seconds`` means the client stopped reading: it fails (EAGAIN), and the client is
    dropped rather than waited for. Set in the kernel (SO_SNDTIMEO), not as Python's socket timeout:
    with that one, every send and every recv on the socket first polls it, one more system call per
    frame each way. The socket stays blocking, so a send still hands over the whole answer."""
    micro = max(1, round(seconds * 1e6))  # 0 would mean no timeout at all
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", *divmod(micro, 1_000_000)))


class _Closed(Response):
    """What the route returns once the socket is done: nothing more may be written to it.

    Werkzeug's server treats a ConnectionError from the app as a dropped connection (quietly);
    gunicorn stops on StopIteration. Either way no stray HTTP bytes follow the close."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def __call__(self, environ: Any, start_response: Any) -> Any:
        if self.mode == "gunicorn":
            raise StopIteration()
        raise ConnectionAbortedError("websocket closed")


def _serve(conn: GuardedSocket, cfg: Any) -> None:
    service = _service()
    rate, burst = cfg["WS_RATE"], cfg["WS_BURST"]
    tokens, stamp = float(burst), time.monotonic()
    timeout = cfg["WS_HELLO_TIMEOUT"]
    while True:
        text = conn.receive(timeout=timeout)
        if text is _LEAVING:
            conn._refuse(GOING_AWAY, "the server is restarting; the page reconnects")
            return
        if text is None:
            if not conn.connected:
                return
            conn._refuse(IDLE, f"no frame for {timeout:g} s; the page reconnects on its next press")
            return
        timeout = cfg["WS_IDLE_TIMEOUT"]
        now = time.monotonic()
        tokens = min(burst, tokens + (now - stamp) * rate)
        stamp = now
        if tokens < 1:
            conn.noted("rate", f"closed (1008): more than {rate:g} frames a second (LESSON_WS_RATE, LESSON_WS_BURST)")
            conn._refuse(POLICY, f"more than {rate:g} frames a second")
            return
        tokens -= 1
        reply = service.handle_text(text, defer=True)
        try:
            conn.send(reply.text)
        finally:
            reply.finish()  # compacting the cached run can wait until the answer is on its way


@bp.route("/ws", websocket=True)
def ws() -> Response:
    cfg = current_app.config
    refusals: Refusals = current_app.extensions["lesson.refusals"]
    if not origin_allowed():
        origin = request.headers.get("Origin") or request.headers.get("Referer") or ""
        own = f"{request.scheme}://{request.host}"
        refusals.note("origin", origin_refusal(origin, own, request.headers, cfg))
        return Response("This origin may not open the playground socket.\n", 403, mimetype="text/plain")
    addr = request.remote_addr or "?"
    addresses: Addresses = current_app.extensions["lesson.addresses"]  # this app's sockets only
    try:
        conn = GuardedSocket(
            request.environ, ping_interval=cfg["WS_PING_INTERVAL"], max_message_size=cfg["WS_MAX_MESSAGE_BYTES"]
        )
    except (RemoteProtocolError, ConnectionError) as exc:
        return Response(f"Not a WebSocket handshake this server can accept: {exc}\n", 400, mimetype="text/plain")
    GuardedSocket.max_queued = cfg["WS_MAX_QUEUED"]
    conn.addr, conn.refusals = addr, refusals
    try:
        send_timeout(conn.sock, cfg["WS_SEND_TIMEOUT"])
        entered = addresses.enter(addr, cfg["WS_MAX_PER_ADDRESS"], conn)
        if not entered and addresses.stopping:
            conn._refuse(GOING_AWAY, "the server is restarting; the page reconnects")
        elif not entered:
            cap = cfg["WS_MAX_PER_ADDRESS"]
            conn.noted("per_address", f"refused (1013): {cap} sockets already open from it (LESSON_WS_MAX_PER_ADDRESS)")
            conn._refuse(TRY_LATER, "too many open connections from this address; try again later")
        else:
            try:
                _serve(conn, cfg)
            finally:
                addresses.leave(addr, conn)
    except (TimeoutError, BlockingIOError):  # a send blocked for WS_SEND_TIMEOUT
        why = f"an answer waited {cfg['WS_SEND_TIMEOUT']:g} s to be read (LESSON_WS_SEND_TIMEOUT)"
        conn.noted("send_timeout", f"dropped: {why}")
    except (ConnectionClosed, OSError):
        pass  # the client went away: nothing to log
    if conn.connected:
        conn._refuse(1000, "bye")
    conn.end()
    return _Closed(conn.mode)


@bp.post("/api/frame")
def frame() -> Response:
    """The same frames over HTTP, for networks whose proxies block WebSockets."""
    if request.mimetype != "application/json":
        return Response('{"error": "send frames as application/json"}', 415, mimetype="application/json")
    reply = _service().handle_text(request.get_data(cache=False))
    status = 200 if reply.code is None else STATUS.get(reply.code, 400)
    return Response(reply.text, status=status, mimetype="application/json")


@bp.errorhandler(413)
def frame_too_large(err: Exception) -> Response:
    """A body over LESSON_MAX_CONTENT_LENGTH gets an error frame, as a smaller one over the limit does."""
    size, limit = current_app.config["MAX_CONTENT_LENGTH"], _service().max_frame_bytes
    reply = _service().error("too_large", f"frame is over the limit of {limit} bytes (the body was over {size})")
    return Response(reply.text, 413, mimetype="application/json")


def init_app(app: Flask) -> None:
    app.extensions["lesson.addresses"] = Addresses()
    app.extensions["lesson.refusals"] = Refusals()
    app.register_blueprint(bp)
