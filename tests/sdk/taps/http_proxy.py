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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record import Log  # noqa: E402


def parse(body: bytes) -> object:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return {"unparsed": body.decode(errors="replace")}


def head_of(raw: bytes) -> tuple[str, list[tuple[str, str]]]:
    first, *lines = raw.decode("latin-1").split("\r\n")
    headers = []
    for line in lines:
        if line:
            key, _, value = line.partition(":")
            headers.append((key.strip(), value.strip()))
    return first, headers


def header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


class Events:
    """An SSE parser fed with the body as it arrives."""

    def __init__(self) -> None:
        self.buffer = ""

    def feed(self, data: bytes) -> list[dict[str, str]]:
        self.buffer += data.decode()
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
    def __init__(self, log: Log, name: str, upstream_port: int, client: str) -> None:
        self.log, self.name, self.upstream_port, self.client = log, name, upstream_port, client
        self.count = 0

    async def upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        while True:  # nothing listens: the server is down or restarting; hold the request
            with contextlib.suppress(OSError):
                return await asyncio.open_connection("127.0.0.1", self.upstream_port)
            await asyncio.sleep(0.02)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        current = [""]  # the exchange under way on this connection, for the error record
        try:
            while await self.exchange(reader, writer, current):
                pass
        except Exception as err:
            # The server died mid-exchange (or something unforeseen broke it): so does the client's connection.
            # Logged, so that a flow that fails on it says what broke where (the comparison skips this kind).
            self.log.write(
                kind="proxy_error", server=self.name, client=self.client, exchange=current[0], error=repr(err)
            )
            writer.transport.abort()
        finally:
            writer.close()

    async def exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, current: list[str]) -> bool:
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False  # the client closed its connection between requests
        first, headers = head_of(raw)
        method, path, _ = first.split(" ", 2)
        body = await reader.readexactly(int(header(headers, "content-length") or 0))
        self.count += 1
        n = current[0] = f"{os.getpid()}-{self.count}"
        up_reader, up_writer = await self.upstream()
        try:
            self.log.write(
                kind="request",
                server=self.name,
                client=self.client,
                exchange=n,
                method=method,
                path=path,
                headers={k.lower(): v for k, v in headers},
                msg=parse(body),
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
                self.log.write(
                    kind="response",
                    server=self.name,
                    exchange=n,
                    status=status,
                    headers=lowered,
                    sse=False,
                    msg=parse(data),
                )
                writer.write(raw_head(status_line, out_headers, len(data)) + data)
                await writer.drain()
                return True  # the upstream hop closes after each exchange; the client's connection stays
            self.log.write(kind="response", server=self.name, exchange=n, status=status, headers=lowered, sse=True)
            writer.write(raw)
            await writer.drain()
            events = Events()
            async for piece, data in chunks(up_reader, chunked):
                for event in events.feed(data):
                    msg = parse(event["data"].encode())
                    self.log.write(kind="event", server=self.name, exchange=n, id=event.get("id"), msg=msg)
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


async def chunks(reader: asyncio.StreamReader, chunked: bool):
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


def main() -> None:
    log_path, name, port, upstream_port, lifetime, *client = sys.argv[1:]
    timer = threading.Timer(float(lifetime), lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    proxy = Proxy(Log(log_path), name, int(upstream_port), client[0] if client else "host")

    async def run() -> None:
        server = await asyncio.start_server(proxy.serve, "127.0.0.1", int(port), reuse_address=True)
        async with server:
            await server.serve_forever()

    asyncio.run(run())


if __name__ == "__main__":
    main()
