"""The WebSocket route (flask-sock) and its plain-HTTP twin: decode, hand to the service, send the answer.

The socket also guards the server, each guard on flask-sock's and simple-websocket's public names (those
of the ``Server``'s public attributes its documentation does not describe are read in ``beneath.py``
only; docs/classroom.md): the origin is checked before the handshake
(``guard.check_origin``, a ``before_request``); the message size and the pings are
``SOCK_SERVER_OPTIONS``; the rate and the hello and idle timeouts are kept by the route's loop
(``_serve``), on ``Guarded``, a wrapper of the socket object flask-sock hands the route; the
per-address cap is ``Addresses``; a send left blocked by a client that does not read, the frames that
pile up meanwhile, and the sockets to close when the server stops are seen to by ``Watch``, one thread
per app. Each closes only the offending socket, with a code and a reason (docs/protocol.md), and none
touches other learners' sockets. What they do beneath the libraries' API is in ``beneath.py``, each
with its reason.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections import Counter
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed, ConnectionError, Server
from werkzeug.routing.exceptions import WebsocketMismatch
from wsproto.utilities import RemoteProtocolError

from . import beneath
from .budget import Buckets, Replays
from .state import lesson_state

bp = Blueprint("frames", __name__)
sock = Sock()
log = logging.getLogger(__name__)

# Close codes (RFC 6455 and the private range): the page reads them to decide what to do next.
POLICY = 1008  # too fast, or frames left unread
TRY_LATER = 1013  # too many sockets from this address
IDLE = 4408  # no frame for a while; the page reconnects on its next press (static/js/transport.js: IDLE)
GOING_AWAY = 1001  # the server is stopping (a deploy, a restart): the page reconnects
LEAVING_REASON = "the server is restarting; the page reconnects"


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
    return lesson_state().service


class Leaving(Exception):
    """The server is stopping: the socket is closed with 1001."""


class Guarded:
    """The socket flask-sock hands the route, with the guards a handler applies itself.

    The connection's socket is also held open (``beneath.hold_open``): the library's reader thread
    closes the socket as soon as it stops reading, and a socket closed with bytes still unread sends a
    reset, which can overtake the close frame just sent (a frame too big would reach the client as 1006,
    not 1009). Held, the socket is closed by ``end`` instead, once what the client still sends has been
    read."""

    linger = 2.0  # seconds to read what a refused client still sends, so the close frame reaches it
    linger_bytes = 1 << 20

    def __init__(
        self, ws: Server, raw: socket.socket, hold: Any, addr: str, refusals: Refusals, max_queued: int
    ) -> None:
        self.ws = ws
        self.raw = raw
        self.hold = hold  # a file object on ``raw``: the descriptor stays open until ``end`` closes it
        self.addr = addr
        self.refusals = refusals
        self.max_queued = max_queued
        self.leaving = False  # set by ``Addresses.going_away``
        self.waiting = False  # the handler is waiting for a frame (``Watch`` may close it then)
        self.sending_since = 0.0  # when the send under way began (monotonic); 0 when none is
        self.writing = threading.Lock()  # one writer of frames at a time: the handler, or ``Watch``
        self.dropped = ""  # set once ``Watch`` has shut the socket (it logged why): it looks no more

    def noted(self, kind: str, message: str) -> None:
        self.refusals.note(kind, f"socket from {self.addr}: {message}")

    @property
    def too_big(self) -> bool:
        """Whether the library closed the socket on a frame over its limit (it sent 1009 itself)."""
        limit = self.ws.max_message_size
        return not self.ws.connected and bool(limit) and beneath.incoming_length(self.ws) > limit

    def receive(self, timeout: float) -> str | None:
        """The next frame; None after ``timeout`` seconds without one. Raises ConnectionClosed once the
        socket is closed (by the client, the library, or ``Watch`` when the server stops), Leaving when
        the server stops while this handler was busy."""
        if self.leaving:
            raise Leaving()
        if beneath.frames_waiting(self.ws) > self.max_queued:
            why = f"more than {self.max_queued} frames left unhandled (LESSON_WS_MAX_QUEUED)"
            self.noted("unhandled", f"closed (1008): {why}")
            self.close(POLICY, f"more than {self.max_queued} frames waiting; read the answers before sending more")
            raise ConnectionClosed()
        self.waiting = True
        try:
            text = self.ws.receive(timeout=timeout)
        finally:
            self.waiting = False
        if text is None and not self.ws.connected:
            raise ConnectionClosed()
        return text

    def send(self, text: str) -> None:
        with self.writing:
            self.sending_since = time.monotonic()
            try:
                self.ws.send(text)
            finally:
                self.sending_since = 0.0

    def close(self, code: int, reason: str) -> None:
        with self.writing, contextlib.suppress(ConnectionClosed, OSError):
            self.sending_since = time.monotonic()  # a close frame can block on a client that does not read
            try:
                self.ws.close(code, reason)
            finally:
                self.sending_since = 0.0

    def wake(self) -> None:
        """Wake a handler waiting for a frame on a socket that is closed: the library wakes it before
        it marks the socket closed, and the handler could wait on until its idle timeout."""
        if self.waiting and not self.ws.connected:
            beneath.wake(self.ws)

    def leave_now(self) -> None:
        """The server stops and this handler waits for a frame: close its socket with 1001 (from
        ``Watch``), unless the handler is writing (it closes the socket itself once its answer is
        sent) or the client's buffers are full (shut the socket then: the frame could not go out)."""
        if not self.waiting or not self.ws.connected or not self.writing.acquire(blocking=False):
            return
        try:
            if beneath.has_room(self.raw):
                with contextlib.suppress(ConnectionClosed, OSError):
                    self.ws.close(GOING_AWAY, LEAVING_REASON)
            else:
                beneath.shut(self.raw)
        finally:
            self.writing.release()
        beneath.wake(self.ws)

    def give_up(self, kind: str, message: str) -> None:
        """Shut the socket at once (from ``Watch``): the client does not read, so no close frame would
        reach it, and the handler's send blocked on it fails now instead of never."""
        self.dropped = kind
        self.noted(kind, message)
        beneath.shut(self.raw)

    def end(self) -> None:
        """End the connection: let the reader take the client's answer to the close (briefly: a client
        may never answer), drop anything after it, and shut the socket, so that the HTTP server finds the
        connection ended instead of reading those bytes as a request, and writes nothing after the close."""
        if self.ws.connected:
            self.close(1000, "bye")
        beneath.join_reader(self.ws, 1.0)
        # what the client still sends: the rest of a frame too big, its answer to the close
        beneath.drain(self.raw, self.linger if self.too_big else 0.2, self.linger_bytes)
        beneath.shut(self.raw)
        self.hold.close()


class Addresses:
    """Open sockets, counted per client address, for one app (its ``extensions["lesson.addresses"]``)."""

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()
        self.sockets: set[Guarded] = set()
        self.stopping = False  # set by ``going_away``: a socket opened after it is closed at once
        self._lock = threading.Lock()

    def enter(self, addr: str, cap: int, conn: Guarded | None = None) -> bool:
        with self._lock:
            if self.stopping or self.open[addr] >= cap:
                return False
            self.open[addr] += 1
            if conn is not None:
                self.sockets.add(conn)
            return True

    def leave(self, addr: str, conn: Guarded | None = None) -> None:
        with self._lock:
            self.open[addr] -= 1
            if self.open[addr] <= 0:
                del self.open[addr]
            self.sockets.discard(conn)

    def held(self) -> list[Guarded]:
        with self._lock:
            return list(self.sockets)

    def going_away(self) -> int:
        """The server is stopping: each socket is closed with 1001 once its current answer, if any, is
        sent (by its handler, or by ``Watch`` if the handler waits for a frame), and a socket opened
        from now on is closed the same way. It only sets flags; called from a gunicorn worker's
        SIGTERM handler, it runs on the worker's main thread, which never holds these locks. Returns
        how many sockets were open."""
        with self._lock:
            self.stopping = True
            conns = list(self.sockets)
        for conn in conns:
            conn.leaving = True
        return len(conns)


class Watch:
    """One thread per app that does for the sockets what their handlers cannot while they wait: ends
    one whose send has been blocked ``send_timeout`` seconds on a client that does not read, or whose
    unhandled frames passed the bound while it was blocked (the library's reader keeps reading
    meanwhile); closes the waiting ones when the server stops; wakes a handler waiting on a socket
    the library closed. It looks every ``every`` seconds. (A handler that woke up every second to look
    for itself costs a thousand wake-ups a second per thousand sockets; see docs/classroom.md.)"""

    def __init__(self, addresses: Addresses, send_timeout: float, max_queued: int) -> None:
        self.addresses = addresses
        self.send_timeout = send_timeout
        self.max_queued = max_queued
        self.every = min(0.25, send_timeout / 4)
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if not self._started:
                self._started = True
                threading.Thread(target=self._run, name="lesson-socket-watch", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(self.every)
            with contextlib.suppress(Exception):  # the watch must outlive any one socket's trouble
                self.look(time.monotonic())

    def look(self, now: float) -> None:
        for conn in self.addresses.held():
            if conn.leaving:
                conn.leave_now()
            conn.wake()
            since = conn.sending_since
            if not since or conn.dropped:
                continue
            if now - since >= self.send_timeout:
                why = f"an answer waited {self.send_timeout:g} s to be read (LESSON_WS_SEND_TIMEOUT)"
                conn.give_up("send_timeout", f"dropped: {why}")
            elif beneath.frames_waiting(conn.ws) > self.max_queued:
                why = f"more than {self.max_queued} frames left unhandled (LESSON_WS_MAX_QUEUED)"
                conn.give_up("unhandled", f"dropped: {why} while an answer waited to be read")


def _serve(conn: Guarded, cfg: Any, spend: Any) -> None:
    service = _service()
    rate = cfg["WS_RATE"]
    frames = Buckets(rate, cfg["WS_BURST"])  # this socket's own bucket: one key
    timeout = cfg["WS_HELLO_TIMEOUT"]
    while True:
        text = conn.receive(timeout)
        if text is None:
            conn.close(IDLE, f"no frame for {timeout:g} s; the page reconnects on its next press")
            return
        timeout = cfg["WS_IDLE_TIMEOUT"]
        if frames.take("", 1) is None:
            conn.noted("rate", f"closed (1008): more than {rate:g} frames a second (LESSON_WS_RATE, LESSON_WS_BURST)")
            conn.close(POLICY, f"more than {rate:g} frames a second")
            return
        reply = service.handle_text(text, defer=True, spend=spend)
        try:
            conn.send(reply.text)
        finally:
            reply.finish()  # the cache's accounting can wait until the answer is on its way
        if reply.retry_after is not None:
            # Its address's replay budget is spent: this socket's next frame waits, so a client that
            # sends its log again at once costs one refusal a second, not one per frame it can send.
            time.sleep(reply.retry_after)


@bp.before_request
def _before_handshake() -> None:
    """Before the library takes the connection: the handshake is accepted without permessage-deflate
    (the client's offer is taken out before the library reads it: it accepts any offer, and inflates a
    frame without bound before its size check, so one 20 KB frame could become 20 MB in the server's
    memory; docs/classroom.md has the figures), and the socket is held open (see ``Guarded``)."""
    if request.endpoint == "frames.ws":
        beneath.decline_compression(request.environ)
        g.lesson_socket_hold = beneath.hold_open(beneath.connection_socket(request.environ))


@bp.errorhandler(RemoteProtocolError)
@bp.errorhandler(ConnectionError)
def _bad_handshake(exc: Exception) -> Response:
    """A request to /ws the library cannot take as a handshake (a header missing or wrong)."""
    version = request.headers.get("Sec-WebSocket-Version")
    if version is not None and version.strip() != "13":
        # The library names the header as missing; RFC 6455 (4.4) asks for the versions this server speaks.
        said = f"This server speaks WebSocket version 13, not {version[:20]!r}.\n"
        return Response(said, 426, mimetype="text/plain", headers={"Sec-WebSocket-Version": "13"})
    return Response(f"Not a WebSocket handshake this server can accept: {exc}\n", 400, mimetype="text/plain")


@bp.app_errorhandler(WebsocketMismatch)
def _not_a_socket_address(_err: WebsocketMismatch) -> Response:
    """A plain request to /ws (often through a proxy that drops the upgrade headers), or an upgrade to
    an address that takes none: said in words, not as a bare 400 page."""
    if request.path != "/ws":
        return Response(
            "This address takes no WebSocket connection; the playground's is /ws.\n", 400, mimetype="text/plain"
        )
    # The headers as werkzeug reads them: comma-separated tokens, any case.
    wanted = {"Upgrade": "websocket", "Connection": "Upgrade"}
    tokens = {k: {t.strip().lower() for t in request.headers.get(k, "").split(",")} for k in wanted}
    missing = [f"{k}: {v}" for k, v in wanted.items() if v.lower() not in tokens[k]]
    lacks = f", and this request lacks {' and '.join(missing)}" if missing else ""
    said = (
        f"Not a WebSocket handshake: /ws takes WebSocket connections only{lacks}. A proxy in front of the "
        "server may be dropping or rewriting the Upgrade and Connection headers.\n"
    )
    return Response(said, 400, mimetype="text/plain")


@sock.route("/ws", bp=bp)
def ws(conn_ws: Server) -> None:
    cfg = current_app.config
    refusals: Refusals = current_app.extensions["lesson.refusals"]
    addresses: Addresses = current_app.extensions["lesson.addresses"]  # this app's sockets only
    watch: Watch = current_app.extensions["lesson.watch"]
    replays = current_app.extensions["lesson.replays"]
    addr = request.remote_addr or "?"
    conn = Guarded(
        conn_ws, beneath.connection_socket(request.environ), g.lesson_socket_hold, addr, refusals, cfg["WS_MAX_QUEUED"]
    )
    watch.start()
    try:
        entered = addresses.enter(addr, cfg["WS_MAX_PER_ADDRESS"], conn)
        if not entered and addresses.stopping:
            conn.close(GOING_AWAY, LEAVING_REASON)
        elif not entered:
            cap = cfg["WS_MAX_PER_ADDRESS"]
            conn.noted("per_address", f"refused (1013): {cap} sockets already open from it (LESSON_WS_MAX_PER_ADDRESS)")
            conn.close(TRY_LATER, "too many open connections from this address; try again later")
        else:
            try:
                _serve(conn, cfg, replays.spender(addr, wait=cfg["REPLAY_WAIT"]))
            except Leaving:
                conn.close(GOING_AWAY, LEAVING_REASON)
            finally:
                addresses.leave(addr, conn)
    except (ConnectionClosed, OSError):
        if conn.too_big:
            limit = conn_ws.max_message_size
            conn.noted("too_big", f"closed (1009): a frame over {limit} bytes (LESSON_WS_MAX_MESSAGE_BYTES)")
        # otherwise the client went away, or ``Watch`` dropped it and said why: nothing more to log
    conn.end()


@bp.post("/api/frame")
def frame() -> Response:
    """The same frames over HTTP, for networks whose proxies block WebSockets (a body that does not say
    application/json is refused before this, by ``guard.api_guard``)."""
    spend = current_app.extensions["lesson.replays"].spender(request.remote_addr or "?", wait=0.0)
    reply = _service().handle_text(request.get_data(cache=False), spend=spend)
    resp = Response(reply.text, status=reply.http_status, mimetype="application/json")
    if reply.retry_after is not None:
        resp.headers["Retry-After"] = str(reply.retry_after)
    return resp


@bp.errorhandler(413)
def frame_too_large(err: Exception) -> Response:
    """A body over LESSON_MAX_CONTENT_LENGTH gets an error frame, as a smaller one over the limit does."""
    size, limit = current_app.config["MAX_CONTENT_LENGTH"], _service().max_frame_bytes
    reply = _service().error("too_large", f"frame is over the limit of {limit} bytes (the body was over {size})")
    return Response(reply.text, 413, mimetype="application/json")


def init_app(app: Flask) -> None:
    cfg = app.config
    # The library's own guards: a frame over the limit closes with 1009, a ping unanswered by the next
    # one closes with 1008.
    cfg["SOCK_SERVER_OPTIONS"] = {
        "ping_interval": float(cfg["WS_PING_INTERVAL"]) or None,
        "max_message_size": int(cfg["WS_MAX_MESSAGE_BYTES"]),
    }
    addresses = Addresses()
    app.extensions["lesson.addresses"] = addresses
    app.extensions["lesson.refusals"] = Refusals()
    app.extensions["lesson.watch"] = Watch(addresses, float(cfg["WS_SEND_TIMEOUT"]), int(cfg["WS_MAX_QUEUED"]))
    app.extensions["lesson.replays"] = Replays(float(cfg["REPLAY_RATE"]), int(cfg["REPLAY_BURST"]))
    sock.init_app(app)
    app.register_blueprint(bp)
