"""The ``lesson`` command: ``lesson serve`` and ``lesson check``."""

from __future__ import annotations

import argparse
import contextlib
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


def _serve(host: str, port: int, workers: int = 0, threads: int = 1100) -> int:
    """One process on werkzeug by default; ``workers`` > 0 runs gunicorn (see lesson/web/server.py)."""
    import os
    import secrets

    from .content import ContentError
    from .web import create_app

    # One quiz-cookie key for every worker; each worker process builds its own app.
    os.environ.setdefault("LESSON_SECRET_KEY", secrets.token_hex(32))
    try:
        app = create_app()
    except ContentError as err:
        print(f"content error: {err}", file=sys.stderr)
        return 1
    if workers > 0:
        from .web.server import run_gunicorn

        print(f"MCP Churn Lab: {workers} worker(s) x {threads} threads on http://{host}:{port}/", flush=True)
        return run_gunicorn(host, port, workers, threads)
    from .web.server import make_dev_server

    server = make_dev_server(host, port, app)
    print(f"MCP Churn Lab: serving on http://{host}:{server.server_port}/  (Ctrl-C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lesson", description="MCP Churn Lab")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the lesson")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers", type=int, default=0, help="run the production server (gunicorn) with N worker processes"
    )
    serve.add_argument(
        "--threads", type=int, default=1100, help="threads per worker: each open WebSocket holds one (default 1100)"
    )
    check = sub.add_parser("check", help="validate content/ and exit non-zero on the first error")
    check.add_argument("--content", type=Path, default=None, help="content folder (default: the repo's)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args.host, args.port, args.workers, args.threads)
    return _check(args.content)


if __name__ == "__main__":
    raise SystemExit(main())
