"""The two ways to serve: werkzeug's threaded server for one command on a laptop, and gunicorn's
threaded workers for a class. Each open WebSocket holds one thread for its life, so a gunicorn
worker gets more threads than the sockets it must hold, and as many connection slots."""

from __future__ import annotations

import gc
import logging
import signal
import sys
from typing import Any

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

SERVER_HEADER = "mcp-churn-lab"  # the Server header names no software versions
SWITCH_INTERVAL = 0.05  # seconds a thread may hold the interpreter while others wait (see load)


class _QuietHandler(WSGIRequestHandler):
    server_version = SERVER_HEADER
    sys_version = ""

    def version_string(self) -> str:
        return SERVER_HEADER


def make_dev_server(host: str, port: int, app: Any) -> BaseWSGIServer:
    return make_server(host, port, app, threaded=True, request_handler=_QuietHandler)


def forwarded_allow_ips(proxy_fix: int) -> str:
    """Whom gunicorn believes about the scheme and the mount point (X-Forwarded-Proto, a SCRIPT_NAME
    header): nobody unless ``LESSON_PROXY_FIX`` says proxies front the server. Its own default trusts
    127.0.0.1, so a client on the same machine could forge them (a SCRIPT_NAME the path does not start
    with turns a page into a 500). Behind proxies, gunicorn's peer is the nearest one: trusted, as the
    app's ProxyFix trusts the last ``proxy_fix`` hops."""
    return "*" if proxy_fix > 0 else ""


def _unreadable_body(err: Exception) -> Any:
    from .guard import error_answer

    return error_answer(f"the request's body could not be read ({type(err).__name__})", 400)


def run_gunicorn(host: str, port: int, workers: int, threads: int, proxy_fix: int = 0) -> int:
    from gunicorn.app.base import BaseApplication
    from gunicorn.http.errors import NoMoreData, ParseException

    loaded: dict[str, Any] = {}  # the worker's app, once ``load`` has made it

    def post_worker_init(worker: Any) -> None:
        # SIGTERM (a deploy, a restart) stops a worker gracefully: before gunicorn's own handler stops
        # its loop, every open socket is told to close with 1001 and a reason. Without this the
        # worker waits out its graceful timeout and the sockets end with no close frame at all.
        previous = signal.getsignal(signal.SIGTERM)

        def stopping(signum: int, frame: Any) -> None:
            loaded["app"].extensions["lesson.addresses"].going_away()
            if callable(previous):
                previous(signum, frame)

        signal.signal(signal.SIGTERM, stopping)

    class _App(BaseApplication):
        def load_config(self) -> None:
            options = {
                "bind": f"{host}:{port}",
                "workers": workers,
                "worker_class": "gthread",
                "threads": threads,
                "worker_connections": threads + 100,
                "backlog": 2048,
                "keepalive": 5,
                "timeout": 30,
                "graceful_timeout": 5,
                "accesslog": None,
                "errorlog": "-",
                "loglevel": "warning",
                "post_worker_init": post_worker_init,
                "forwarded_allow_ips": forwarded_allow_ips(proxy_fix),
            }
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            from . import create_app

            app = create_app()
            # A body gunicorn cannot read (a malformed chunk, one cut short) surfaces where a view reads
            # it, as gunicorn's own exception: a 400 that says so, not a 500 with a traceback.
            app.register_error_handler(ParseException, _unreadable_body)
            app.register_error_handler(NoMoreData, _unreadable_body)
            # The app's own warnings (sockets refused, the record store unreachable) in gunicorn's error
            # log, stamped like its lines; without a handler Python would print them bare.
            app_log = logging.getLogger("lesson")
            app_log.handlers = logging.getLogger("gunicorn.error").handlers
            app_log.setLevel(logging.WARNING)
            app_log.propagate = False
            # Content, panels and schemas live as long as the worker: keep the collector from walking
            # them on every full collection, which would otherwise pause every learner on it.
            gc.freeze()
            # A press makes some thousands of short-lived containers. At Python's default (a young
            # collection every 700) collections run in the middle of presses and move their temporaries
            # to the older generations, which then fill and trigger full passes every few seconds, each
            # pausing every learner on the worker for 50-300 ms. A young collection every 50,000 lets
            # a press's temporaries die young (bench/load_bench.py --parts crowd, README).
            gc.set_threshold(50_000, 20, 10)
            # A worker holds two threads a socket (simple-websocket's reader, then the handler). When
            # a burst of frames finds the interpreter busy, hundreds of them wait for it, and each
            # waiter wakes every switch interval to ask for it: at the default 5 ms that storm of
            # wake-ups starved the holder, and the crowd stalled (0.8-3.9 s) in 4 of 18 runs of
            # bench/load_bench.py; at 50 ms, in none of 12. A press hands the interpreter over at
            # its own system calls long before, and a replay after every event (README, "Figures").
            sys.setswitchinterval(SWITCH_INTERVAL)
            loaded["app"] = app
            return app

    logging.getLogger("gunicorn.error").setLevel(logging.WARNING)
    _App().run()
    return 0
