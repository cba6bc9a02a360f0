"""A second loopback origin for the embedding tests: a tiny static file server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.threads import serve_in_thread


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def site_and_app(folder: Path) -> Iterator[tuple[str, str]]:
    """A static site serving ``folder`` and the app, which lets that site's origin frame it and no
    other: (site origin, app URL). Both stop when the block ends."""
    from lesson.web import create_app
    from lesson.web.server import make_dev_server

    site = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    origin = f"http://127.0.0.1:{site.server_port}"
    server = make_dev_server("127.0.0.1", 0, create_app({"SECRET_KEY": "t", "EMBED_ORIGINS": origin}))
    for one in (site, server):
        serve_in_thread(one)
    try:
        yield origin, f"http://127.0.0.1:{server.server_port}"
    finally:
        for one in (site, server):
            one.shutdown()
            one.server_close()


@pytest.fixture
def static_origin() -> Iterator[Callable[[Path], str]]:
    """Serve a folder from its own origin; returns the base URL. Stopped at the end of the test."""
    servers: list[ThreadingHTTPServer] = []

    def serve(folder: Path) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
        serve_in_thread(server)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def embed_server() -> Iterator[str]:
    """The app, configured to be framed by the test LMS pages (any loopback port): the default
    `frame-ancestors 'self'` would refuse them."""
    from werkzeug.serving import make_server

    from lesson.web import create_app

    app = create_app({"SECRET_KEY": "e2e", "FRAME_ANCESTORS": "'self' http://127.0.0.1:*"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
