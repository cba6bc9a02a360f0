"""A server that speaks only 2025-11-25, over stdio: the legacy side of the era-mismatch flows.

The SDK's servers serve both eras on every connection (the client's first request picks one), and its
public API has no switch to serve one era alone. So this server is a stub written from the 2025-11-25
schema: it answers ``initialize``, ``tools/list`` and ``tools/call`` with the tools of the simulation's
server (``--spec``, as ``lab_server.py`` takes it) and any other method, ``server/discover`` included, with
JSON-RPC's -32601. Only the client side of those flows is the SDK's.

    python legacy_only.py --spec JSON [--lifetime S] [other lab_server.py options, ignored]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

VERSION = "2025-11-25"


def answer(msg: dict, spec: dict) -> dict:
    method, rid = msg["method"], msg["id"]
    if method == "initialize":
        result = {
            "protocolVersion": VERSION,
            "capabilities": {"tools": {"listChanged": spec["list_changed"]}},
            "serverInfo": {"name": spec["title"], "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {
            "tools": [
                {
                    "name": t["name"],
                    "description": t["description"],
                    "inputSchema": {
                        "type": "object",
                        "properties": {t["arg"]: {"type": "string"}},
                        "required": [t["arg"]],
                    },
                }
                for t in spec["tools"]
            ]
        }
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"{msg['params']['name']} done"}]}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--spec", required=True)
    p.add_argument("--lifetime", type=float, default=60.0)
    args, _ = p.parse_known_args()
    timer = threading.Timer(args.lifetime, lambda: os._exit(3))  # never outlive the test
    timer.daemon = True
    timer.start()
    spec = json.loads(args.spec)
    for line in sys.stdin:
        msg = json.loads(line)
        if "method" in msg and "id" in msg:  # a request; notifications need no answer
            sys.stdout.write(json.dumps(answer(msg, spec)) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
