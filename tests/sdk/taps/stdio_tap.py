"""A pass-through tap between a host and a stdio server: every line that crosses is logged, then
forwarded unchanged, in the order it crossed.

    python stdio_tap.py LOG NAME LIFETIME ZYGOTE -- python server.py ...

The host launches the tap as if it were the server. The tap starts the server as its child (same
process group, so a host that kills the tree kills both), relays stdin and stdout, forwards SIGUSR1
(an operator action) to the server, and exits when the server's stdout ends, so the host reads EOF
exactly when it would without the tap. It ends itself and the server after LIFETIME seconds.

With ZYGOTE (a Unix socket; "" for none) a lab server is forked by ``servers/zygote.py`` instead, which has
already imported the SDK: the tap hands it the two pipes, so the server answers the host's first message
at once instead of after an import a busy machine can stretch past the SDK client's fixed 10 s wait. That
server is no child of the tap: the tap kills it when it ends, and if the tap is killed the server reads EOF
on its stdin and ends too.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contextlib

from record import Log  # noqa: E402


def logged_line(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return {"unparsed": line.decode(errors="replace")}


class Forked:
    """A server the zygote forked, with the tap's ends of its stdin and stdout pipes."""

    def __init__(self, pid: int, stdin: int, stdout: int) -> None:
        self.pid = pid
        self.stdin, self.stdout = os.fdopen(stdin, "wb"), os.fdopen(stdout, "rb")

    def poll(self) -> int | None:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return 0
        return None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def send_signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

    def wait(self) -> None:
        """Its stdout has ended: the server is gone or going (the zygote reaps it)."""


def forked(zygote: str, argv: list[str]) -> Forked:
    server_in, tap_in = os.pipe()  # the server reads its stdin from the first
    tap_out, server_out = os.pipe()  # and writes its stdout to the second
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(zygote)
        socket.send_fds(conn, [json.dumps(argv).encode() + b"\n"], [server_in, server_out])
        reply = conn.makefile("rb").readline()
    os.close(server_in)
    os.close(server_out)
    return Forked(int(reply), tap_in, tap_out)


def main() -> None:
    log_path, name, lifetime, zygote, sep, *command = sys.argv[1:]
    assert sep == "--", "usage: stdio_tap.py LOG NAME LIFETIME ZYGOTE -- command ..."
    log = Log(log_path)
    child: subprocess.Popen | Forked = (
        forked(zygote, command[2:])
        if zygote and command[1].endswith("lab_server.py")
        else subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    )
    log.write(kind="spawn", server=name, pid=child.pid)

    def end(code: int) -> None:
        if child.poll() is None:
            child.kill()
        os._exit(code)

    timer = threading.Timer(float(lifetime), end, args=(3,))
    timer.daemon = True
    timer.start()
    signal.signal(signal.SIGUSR1, lambda *_: child.send_signal(signal.SIGUSR1))
    signal.signal(signal.SIGTERM, lambda *_: end(0))

    def host_to_server() -> None:
        stdin = sys.stdin.buffer
        for line in iter(stdin.readline, b""):
            log.write(kind="stdio", server=name, sender="host", msg=logged_line(line))
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
        with contextlib.suppress(BrokenPipeError):
            child.stdin.close()

    threading.Thread(target=host_to_server, daemon=True).start()
    out = sys.stdout.buffer
    for line in iter(child.stdout.readline, b""):
        log.write(kind="stdio", server=name, sender="server", msg=logged_line(line))
        out.write(line)
        out.flush()
    child.wait()
    end(0)


if __name__ == "__main__":
    main()
