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


def _export_scorm(args: argparse.Namespace) -> int:
    import os

    from .content import ContentError
    from .scorm import ScormError, export

    server = args.server or os.environ.get("LESSON_PUBLIC_URL")
    if not server:
        print("export-scorm: give --server URL (or set LESSON_PUBLIC_URL): where the lesson is served", file=sys.stderr)
        return 2
    try:
        out = export(args.lesson, server, args.output, args.content, args.mastery)
    except (ScormError, ContentError) as err:
        print(f"export-scorm: {err}", file=sys.stderr)
        return 1
    print(f"SCORM 1.2 package written: {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lesson", description="MCP Churn Lab")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the lesson")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    check = sub.add_parser("check", help="validate content/ and exit non-zero on the first error")
    check.add_argument("--content", type=Path, default=None, help="content folder (default: the repo's)")
    scorm = sub.add_parser("export-scorm", help="write a SCORM 1.2 package that frames LESSON from a server")
    scorm.add_argument("lesson", help="the lesson's slug, e.g. hot-swapping")
    scorm.add_argument("-o", "--output", type=Path, required=True, help="the .zip file to write")
    scorm.add_argument("--server", help="the public URL the lesson is served at (default: $LESSON_PUBLIC_URL)")
    scorm.add_argument("--mastery", type=int, default=80, help="passing score in percent (default 80)")
    scorm.add_argument("--content", type=Path, default=None, help="content folder (default: the repo's)")
    args = parser.parse_args(argv)
    if args.command == "export-scorm":
        return _export_scorm(args)
    if args.command == "serve":
        return _serve(args.host, args.port)
    return _check(args.content)


if __name__ == "__main__":
    raise SystemExit(main())
