"""A pass-through tap between a host and a stdio server: every line that crosses is logged, then
forwarded unchanged, in the order it crossed.

    python stdio_tap.py LOG NAME LIFETIME -- python server.py ...

The host launches the tap as if it were the server. The tap starts the server as its child (same
process group, so a host that kills the tree kills both), relays stdin and stdout, forwards SIGUSR1
(an operator action) to the server, and exits when the server's stdout ends, so the host reads EOF
exactly when it would without the tap. It ends itself and the server after LIFETIME seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contextlib

from record import Log  # noqa: E402


def parse(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return {"unparsed": line.decode(errors="replace")}


def main() -> None:
    log_path, name, lifetime, sep, *command = sys.argv[1:]
    assert sep == "--", "usage: stdio_tap.py LOG NAME LIFETIME -- command ..."
    log = Log(log_path)
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
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
            log.write(kind="stdio", server=name, sender="host", msg=parse(line))
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
        log.write(kind="stdio", server=name, sender="server", msg=parse(line))
        out.write(line)
        out.flush()
    child.wait()
    end(0)


if __name__ == "__main__":
    main()
