"""Starts HTTP lab servers by forking a process that has already imported the SDK: most of a server's start
is importing it, and a flow starts and restarts several.

    python zygote.py LIFETIME

Each line on stdin is a server's arguments as a JSON list; the answer on stdout is the new server's pid.
Each server is a session and process group of its own (a kill of the group ends it), with its stdin and
stdout on /dev/null; the zygote reaps the ones that end. It ends when stdin closes, or after LIFETIME
seconds, whatever happens to the tests.
"""

from __future__ import annotations

import json
import os
import signal
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


def main() -> None:
    timer = threading.Timer(float(sys.argv[1]), lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    signal.signal(signal.SIGCHLD, reap)
    for line in sys.stdin:
        argv = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.setsid()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            try:
                lab_server.main(argv)
            finally:
                os._exit(0)
        print(pid, flush=True)


if __name__ == "__main__":
    main()
