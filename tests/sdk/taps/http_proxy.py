"""A logging reverse proxy on 127.0.0.1 between a host and a Streamable HTTP server (HTTP/1.1).

    python http_proxy.py LOG NAME LISTEN_PORT UPSTREAM_PORT LIFETIME [CLIENT]

CLIENT names the host whose traffic goes through this proxy ("host" unless given): several hosts talking
to one server each get a proxy of their own.

Every exchange is logged before it is passed on: the request (method, path, headers, JSON body), the
response's status and headers, then its JSON body, or each event of its SSE stream before the bytes that
carry it (comments such as keep-alive pings are not messages and are not logged). Bytes are relayed as
they came.

When the server dies, the proxy ends each exchange still open abruptly, as the dead process would have.
It outlives the server: a request that arrives while nothing listens upstream waits until the server is
back (a held connection, not a refusal), so what a client retries on its own meets the new process
whatever the time it takes to start. To have a client's connection refused, kill the proxy as well. The
proxy ends itself after LIFETIME seconds.

It is also the load balancer in front of a server's replicas: once a file ``route-NAME`` beside LOG names
another port, each new exchange goes there, while those already open stay where they are.

The proxy is the live playground's (``lesson/live/proxy.py``); this process adds the shared log, the client's
name on each record, and exchange ids that name the process, since several proxies log into one file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record import Log  # noqa: E402

from lesson.live import end_after  # noqa: E402
from lesson.live.proxy import Proxy  # noqa: E402


class Balancer(Proxy):
    """The proxy, routing each new exchange to the port the route file names (if there is one)."""

    def __init__(self, route: Path, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.route = route

    async def upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        with contextlib.suppress(FileNotFoundError, ValueError):  # no route, or one being written
            self.upstream_port = int(self.route.read_text())
        return await super().upstream()


def main() -> None:
    log_path, name, port, upstream_port, lifetime, *client = sys.argv[1:]
    end_after(float(lifetime))
    log, who = Log(log_path), client[0] if client else "host"

    def record(**fields: object) -> None:
        log.write(**fields, client=who)

    # Held requests wait as long as the proxy lives: a restart in a flow may take long on a busy machine.
    route = Path(log_path).parent / f"route-{name}"
    proxy = Balancer(route, record, name, int(upstream_port), hold=float(lifetime), tag=str(os.getpid()))

    async def run() -> None:
        await proxy.start(int(port))
        assert proxy.server is not None
        async with proxy.server:
            await proxy.server.serve_forever()

    asyncio.run(run())


if __name__ == "__main__":
    main()
