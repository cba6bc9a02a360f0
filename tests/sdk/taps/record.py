"""One shared log of what crosses, a JSON object per line. Every writer appends whole lines with one
``write`` on a file opened for appending, so lines from the taps of several servers never interleave and
their order is the order in which they crossed."""

from __future__ import annotations

import json
import os
from typing import Any


class Log:
    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, **record: Any) -> None:
        os.write(self.fd, (json.dumps(record, separators=(",", ":")) + "\n").encode())
