"""Starts lab servers by forking a process that has already imported the SDK: most of a server's start is
importing it, and a flow starts and restarts several. A stdio server started from scratch can miss the SDK
client's fixed 10 s wait for its first answer on a busy machine; a forked one answers at once.

    python zygote.py LIFETIME SOCKET

HTTP servers: each line on stdin is a server's arguments as a JSON list; the answer on stdout is the new
server's pid, and the server's stdin and stdout are /dev/null. Stdio servers: a stdio tap connects to the
Unix socket SOCKET and sends the server's arguments (JSON) with two file descriptors, the server's stdin and
stdout; the answer is the pid. Each server is a session and process group of its own (a kill of the group
ends it); the zygote reaps the ones that end. It prints "ready" once it listens, and ends when stdin
closes, or after LIFETIME seconds, whatever happens to the tests. One thread serves both (a fork from a
process whose other thread sits in a read of stdin would leave that read's lock held in the child).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab_server  # noqa: E402  (imported once, here: the point of the zygote)


def reap(*_: object) -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def fork(argv: list[str], stdin: int, stdout: int, close: list[int]) -> int:
    pid = os.fork()
    if pid == 0:
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        for fd in close:  # the zygote's own ends: the server must not hold them open
            os.close(fd)
        try:
            lab_server.main(argv)
        finally:
            os._exit(0)
    return pid


def main() -> None:
    timer = threading.Timer(float(sys.argv[1]), lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    signal.signal(signal.SIGCHLD, reap)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sys.argv[2])
    listener.listen(16)
    own = [listener.fileno()]
    null = os.open(os.devnull, os.O_RDWR)
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ, "stdin")
    sel.register(listener, selectors.EVENT_READ, "socket")
    print("ready", flush=True)
    pending = b""
    while True:
        for key, _ in sel.select():
            if key.data == "stdin":
                chunk = os.read(0, 65536)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    print(fork(json.loads(line), null, null, own + [null]), flush=True)
            else:
                conn, _ = listener.accept()
                with conn:
                    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 2)
                    while not data.endswith(b"\n"):  # the arguments end with a newline
                        data += conn.recv(1 << 16)
                    pid = fork(json.loads(data), fds[0], fds[1], own + [null, conn.fileno(), *fds])
                    for fd in fds:
                        os.close(fd)
                    conn.sendall(f"{pid}\n".encode())


if __name__ == "__main__":
    main()
