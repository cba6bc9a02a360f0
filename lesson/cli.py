"""The ``lesson`` command: ``lesson serve``, ``lesson check`` and ``lesson trace``."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path


def _check(root: Path | None) -> int:
    from .content import ContentError, default_root, load_content
    from .panels import load_panels

    root = root or default_root()
    try:
        content = load_content(root)
        panels = load_panels(root)
    except ContentError as err:
        print(f"content error: {err}", file=sys.stderr)
        return 1
    quizzes = sum(len(q.questions) for q in content.quizzes.values())
    print(f"content OK: {len(content.lessons)} lessons, {quizzes} quiz questions, {len(panels)} panels ({root})")
    return 0


def _serve(host: str, port: int) -> int:
    from werkzeug.serving import make_server

    from .content import ContentError
    from .web import create_app

    try:
        app = create_app()
    except ContentError as err:
        print(f"content error: {err}", file=sys.stderr)
        return 1
    server = make_server(host, port, app, threaded=True)
    print(f"MCP Churn Lab: serving on http://{host}:{server.server_port}/  (Ctrl-C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def _trace(source: str) -> int:
    """Print a playground's wire messages as JSON lines; a bad playground is an error on stderr, exit 2."""
    from pydantic import ValidationError

    from .sim.playground import MAX_EVENTS, Playground
    from .sim.trace import trace

    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as err:
        print(f"trace: cannot read {source}: {err.strerror or err}", file=sys.stderr)
        return 2
    try:
        playground = Playground.model_validate_json(text)
    except ValidationError as err:
        print(f"trace: not a playground ({source}):\n{err}", file=sys.stderr)
        return 2
    if len(playground.events) > MAX_EVENTS:
        print(f"trace: a playground holds at most {MAX_EVENTS} events", file=sys.stderr)
        return 2
    try:
        for line in trace(playground):
            print(json.dumps(line, separators=(",", ":")))
    except KeyError as err:  # an unknown scenario name
        print(f"trace: {err.args[0]}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lesson", description="MCP Churn Lab")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the lesson")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    check = sub.add_parser("check", help="validate content/ and exit non-zero on the first error")
    check.add_argument("--content", type=Path, default=None, help="content folder (default: the repo's)")
    trace = sub.add_parser("trace", help="print a playground's wire messages, one JSON object per line")
    trace.add_argument("playground", nargs="?", default="-", help="playground JSON file (default: stdin)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args.host, args.port)
    if args.command == "trace":
        return _trace(args.playground)
    return _check(args.content)


if __name__ == "__main__":
    raise SystemExit(main())
