"""A recording reverse proxy on 127.0.0.1 between the live host and one real server (HTTP/1.1), run on the
live playground's own event loop: every exchange is recorded before it is passed on (the request's method,
path, headers and JSON body; the response's status and headers, then its JSON body or each event of its SSE
stream), so the frames the page shows are the bytes that crossed, in the order they crossed.

When the server dies, each exchange still open with it ends abruptly, as the dead process would have. A
request that arrives while nothing listens upstream, or while the proxy has no upstream port (``None``: the
server is down, and its old port may be anyone's), waits until the server is back (what the SDK client
retries by itself meets the new process), for at most ``hold`` seconds. The host's address is the proxy's,
so a server that comes back on another port is, to the host, back where it was.

The differential suite runs this proxy as a process of its own (``tests/sdk/taps/http_proxy.py``), recording
into a file that several processes share.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

Record = Callable[..., None]


def logged_body(body: bytes) -> object:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return {"unparsed": body.decode(errors="replace")[:2000]}


def head_of(raw: bytes) -> tuple[str, list[tuple[str, str]]]:
    first, *lines = raw.decode("latin-1").split("\r\n")
    headers = []
    for line in lines:
        if line:
            key, _, value = line.partition(":")
            headers.append((key.strip(), value.strip()))
    return first, headers


class Events:
    """An SSE parser fed with the body as it arrives."""

    def __init__(self) -> None:
        self.buffer = ""

    def feed(self, data: bytes) -> list[dict[str, str]]:
        self.buffer += data.decode(errors="replace")
        self.buffer = self.buffer.replace("\r\n", "\n")
        events = []
        while "\n\n" in self.buffer:
            block, self.buffer = self.buffer.split("\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.split("\n"):
                if not line or line.startswith(":"):
                    continue
                key, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                fields[key] = fields[key] + "\n" + value if key in fields else value
            if "data" in fields:
                events.append(fields)
        return events


class Proxy:
    """``record``: called with each record's fields; ``tag``: what exchange ids start with (the server's
    name unless given: several proxies that record into one log need tags of their own)."""

    def __init__(self, record: Record, name: str, upstream_port: int | None, hold: float = 30.0, tag: str = "") -> None:
        self.record, self.name, self.upstream_port, self.hold = record, name, upstream_port, hold
        self.tag = tag or name
        self.count = 0
        self.server: asyncio.Server | None = None
        self.port = 0
        self.open: set[asyncio.StreamWriter] = set()

    async def start(self, port: int = 0) -> int:
        """Listen on 127.0.0.1 (``port``, or one the system picks); the port."""
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for writer in list(self.open):
            writer.transport.abort()

    async def upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        deadline = time.monotonic() + self.hold
        while True:  # nothing listens: the server is down or restarting; hold the request
            if self.upstream_port is not None:
                with contextlib.suppress(OSError):
                    return await asyncio.open_connection("127.0.0.1", self.upstream_port)
            if time.monotonic() > deadline:
                raise ConnectionRefusedError(f"{self.name} did not come back within {self.hold:g} s")
            await asyncio.sleep(0.02)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open.add(writer)
        current = [""]
        try:
            while await self.exchange(reader, writer, current):
                pass
        except Exception as err:
            # The server died mid-exchange: so does the client's connection.
            self.record(kind="proxy_error", server=self.name, exchange=current[0], error=repr(err))
            writer.transport.abort()
        finally:
            self.open.discard(writer)
            writer.close()

    async def exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, current: list[str]) -> bool:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return False  # the client closed its connection between requests
        first, headers = head_of(raw)
        method, path, _ = first.split(" ", 2)
        length = next((int(v) for k, v in headers if k.lower() == "content-length"), 0)
        body = await reader.readexactly(length)
        self.count += 1
        n = current[0] = f"{self.tag}-{self.count}"
        up_reader, up_writer = await self.upstream()
        try:
            self.record(
                kind="request",
                server=self.name,
                exchange=n,
                method=method,
                path=path,
                headers={k.lower(): v for k, v in headers},
                msg=logged_body(body),
            )
            keep = [(k, v) for k, v in headers if k.lower() != "connection"] + [("Connection", "close")]
            up_writer.write(f"{first}\r\n".encode() + "".join(f"{k}: {v}\r\n" for k, v in keep).encode() + b"\r\n")
            up_writer.write(body)
            await up_writer.drain()
            raw = await up_reader.readuntil(b"\r\n\r\n")
            status_line, out_headers = head_of(raw)
            status = int(status_line.split(" ")[1])
            lowered = {k.lower(): v for k, v in out_headers}
            sse = lowered.get("content-type", "").startswith("text/event-stream")
            chunked = lowered.get("transfer-encoding", "").lower() == "chunked"
            if not sse:
                data = await read_body(up_reader, lowered, chunked)
                self.record(
                    kind="response", server=self.name, exchange=n, status=status, headers=lowered, sse=False,
                    msg=logged_body(data),
                )  # fmt: skip
                writer.write(raw_head(status_line, out_headers, len(data)) + data)
                await writer.drain()
                return True  # the upstream hop closes after each exchange; the client's connection stays
            self.record(kind="response", server=self.name, exchange=n, status=status, headers=lowered, sse=True)
            writer.write(raw)
            await writer.drain()
            events = Events()
            async for piece, data in chunks(up_reader, chunked):
                for event in events.feed(data):
                    msg = logged_body(event["data"].encode())
                    self.record(kind="event", server=self.name, exchange=n, id=event.get("id"), msg=msg)
                writer.write(piece)
                await writer.drain()
            return chunked
        finally:
            up_writer.transport.abort()


def raw_head(status_line: str, headers: list[tuple[str, str]], length: int) -> bytes:
    """The response head for a body passed on whole: its length stated, the connection kept."""
    drop = {"content-length", "transfer-encoding", "connection"}
    lines = [status_line] + [f"{k}: {v}" for k, v in headers if k.lower() not in drop]
    lines.append(f"content-length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def read_body(reader: asyncio.StreamReader, headers: dict[str, str], chunked: bool) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if chunked:
        return b"".join([data async for _, data in chunks(reader, True)])
    return await reader.read()


async def chunks(reader: asyncio.StreamReader, chunked: bool) -> Any:
    """(the raw bytes to relay, the data they carry), chunk by chunk; the last chunk's bytes too.
    An end before the last chunk raises IncompleteReadError: the server died."""
    if not chunked:
        while data := await reader.read(65536):
            yield data, data
        return
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        data = await reader.readexactly(size + 2)
        yield size_line + data, data[:-2]
        if size == 0:
            return
