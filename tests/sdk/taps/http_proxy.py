"""A logging reverse proxy on 127.0.0.1 between a host and a Streamable HTTP server.

    python http_proxy.py LOG NAME LISTEN_PORT UPSTREAM_PORT LIFETIME

Every exchange is logged before it is passed on: the request (method, path, headers, JSON body), the
response's status and headers, then its JSON body, or each event of its SSE stream as it arrives
(comments such as keep-alive pings are not messages and are not logged). The proxy ends itself after
LIFETIME seconds.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record import Log  # noqa: E402

HOP = {"connection", "keep-alive", "transfer-encoding", "host", "content-length"}


def parse(body: bytes) -> object:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return {"unparsed": body.decode(errors="replace")}


def sse_events(buffer: str) -> tuple[list[dict[str, str]], str]:
    """The complete events in ``buffer`` (each its fields) and what is left of it."""
    events = []
    buffer = buffer.replace("\r\n", "\n")
    while "\n\n" in buffer:
        block, buffer = buffer.split("\n\n", 1)
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            fields[key] = fields[key] + "\n" + value if key in fields else value
        if fields:
            events.append(fields)
    return events, buffer


def app(log: Log, name: str, upstream: str) -> Starlette:
    client = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=None))
    exchanges = iter(range(1, 1 << 30))  # numbers each exchange, so a response and its events name their request

    async def forward(request: Request) -> Response:
        body = await request.body()
        n = f"{os.getpid()}-{next(exchanges)}"  # unique across restarts of the proxy
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        log.write(
            kind="request",
            server=name,
            exchange=n,
            method=request.method,
            path=request.url.path,
            headers={k.lower(): v for k, v in headers.items()},
            msg=parse(body),
        )
        req = client.build_request(request.method, upstream + request.url.path, headers=headers, content=body)
        resp = await client.send(req, stream=True)
        out_headers = {k: v for k, v in resp.headers.items() if k.lower() not in HOP}
        lowered = {k.lower(): v for k, v in out_headers.items()}
        if lowered.get("content-type", "").startswith("text/event-stream"):
            log.write(
                kind="response", server=name, exchange=n, status=resp.status_code, headers=lowered, sse=True, msg=None
            )

            async def relay():
                buffer = ""
                try:
                    async for chunk in resp.aiter_raw():
                        buffer += chunk.decode()
                        events, buffer = sse_events(buffer)
                        for event in events:
                            if "data" in event:
                                log.write(
                                    kind="event",
                                    server=name,
                                    exchange=n,
                                    id=event.get("id"),
                                    msg=parse(event["data"].encode()),
                                )
                        yield chunk
                finally:
                    await resp.aclose()

            return StreamingResponse(relay(), status_code=resp.status_code, headers=out_headers)
        data = await resp.aread()
        await resp.aclose()
        log.write(
            kind="response",
            server=name,
            exchange=n,
            status=resp.status_code,
            headers=lowered,
            sse=False,
            msg=parse(data),
        )
        return Response(data, status_code=resp.status_code, headers=out_headers)

    methods = ["GET", "POST", "DELETE"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)])


def main() -> None:
    log_path, name, port, upstream_port, lifetime = sys.argv[1:]
    timer = threading.Timer(float(lifetime), lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    upstream = f"http://127.0.0.1:{upstream_port}"
    uvicorn.run(app(Log(log_path), name, upstream), host="127.0.0.1", port=int(port), log_level="warning")


if __name__ == "__main__":
    main()
