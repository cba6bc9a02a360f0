"""A plain round-robin TCP balancer for tests: each new connection goes to the next backend.
No stickiness and no shared store, as a portal's simplest load balancer would run."""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading


class RoundRobinProxy:
    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = itertools.cycle(backends)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.counts: dict[tuple[str, int], int] = {b: 0 for b in backends}
        self._lock = threading.Lock()
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                backend = next(self.backends)
                self.counts[backend] += 1
            try:
                upstream = socket.create_connection(backend, timeout=10)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self._stop = True
        self.listener.close()
