"""The ``lesson`` command: ``serve``, ``check``, ``schema``, ``trace`` and ``export-scorm``."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any


def _check(root: Path | None) -> int:
    from .check import check
    from .content import default_root

    report = check(root or default_root())
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if not report.ok:
        n = len(report.problems)
        print(f"{n} problem{'s' if n > 1 else ''} in {report.root}", file=sys.stderr)
        return 1
    print(f"content OK: {report.summary()}")
    return 0


def _schema(out: Path | None, check_only: bool) -> int:
    from .content import default_root
    from .schema import stale, write

    out = out or default_root() / "schema"
    if check_only:
        old = stale(out)
        for name in old:
            print(f"{out / name}: out of date; run `lesson schema` to regenerate it", file=sys.stderr)
        return 1 if old else 0
    for path in write(out):
        print(f"wrote {path}")
    return 0


def _serve(host: str, port: int, reload: bool = False, workers: int = 0, threads: int = 1100) -> int:
    """One process on werkzeug by default; ``workers`` > 0 runs gunicorn (see lesson/web/server.py)."""
    import os
    import secrets

    from .content import ContentError
    from .settings import SettingsError
    from .web import create_app

    # One quiz-cookie key for every worker; each worker process builds its own app.
    os.environ.setdefault("LESSON_SECRET_KEY", secrets.token_hex(32))
    if reload:  # an environment setting, so gunicorn's workers reload too
        os.environ["LESSON_CONTENT_RELOAD"] = "true"
    try:
        app = create_app()
    except ContentError as err:
        print(f"content error: {err}", file=sys.stderr)
        return 1
    except SettingsError as err:
        print(err, file=sys.stderr)
        return 1
    if workers > 0:
        from .web.server import run_gunicorn

        print(f"MCP Churn Lab: {workers} worker(s) x {threads} threads on http://{host}:{port}/", flush=True)
        return run_gunicorn(host, port, workers, threads, int(app.config["PROXY_FIX"]))
    from .web.server import make_dev_server

    server = make_dev_server(host, port, app)
    print(f"MCP Churn Lab: serving on http://{host}:{server.server_port}/  (Ctrl-C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def _export_scorm(args: argparse.Namespace) -> int:
    import os

    from .content import ContentError
    from .scorm import ScormError, ScormOutputError, export

    server = args.server or os.environ.get("LESSON_PUBLIC_URL")
    if not server:
        print("export-scorm: give --server URL (or set LESSON_PUBLIC_URL): where the lesson is served", file=sys.stderr)
        return 1
    try:
        locale = args.lang or os.environ.get("LESSON_LOCALE") or "en"
        out = export(args.lesson, server, args.output, args.content, args.mastery, locale)
    except ScormOutputError as err:
        print(f"export-scorm: {err}", file=sys.stderr)
        return 2
    except (ScormError, ContentError) as err:
        print(f"export-scorm: {err}", file=sys.stderr)
        return 1
    print(f"SCORM 1.2 package written: {out}")
    return 0


def _trace(source: str) -> int:
    """Print a playground's wire messages as JSON lines; a bad playground is an error on stderr, exit 2."""
    from pydantic import ValidationError

    from .sim.playground import MAX_EVENTS, Playground
    from .sim.trace import trace

    if source != "-" and Path(source).suffix in (".yaml", ".yml"):
        # A scenario file (content/scenarios/*.yaml): its start and scripted presses are a playground.
        from .scripts import load_scenario
        from .yamlfile import ContentError

        try:
            start, events = load_scenario(Path(source))
        except ContentError as err:
            print(f"trace: {err}", file=sys.stderr)
            return 2
        except OSError as err:
            print(f"trace: cannot read {source}: {err.strerror or err}", file=sys.stderr)
            return 2
        playground = Playground(start=start, events=events)
    else:
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


def _bounded(low: int, high: int) -> Any:
    """An argparse type: a whole number from ``low`` to ``high``, or a usage error saying so."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside {low}..{high}")
        return value

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lesson", description="MCP Churn Lab")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the lesson")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_bounded(0, 65535), default=8000, help="0 picks a free port")
    serve.add_argument("--reload", action="store_true", help="load content edits again on the next page load")
    serve.add_argument(
        "--workers",
        type=_bounded(0, 64),
        default=0,
        help="run the production server (gunicorn) with N worker processes",
    )
    serve.add_argument(
        "--threads",
        type=_bounded(1, 100_000),
        default=1100,
        help="threads per worker: each open WebSocket holds one (default 1100)",
    )
    check = sub.add_parser("check", help="validate the content; list every problem as file:line: what")
    check.add_argument(
        "--content", type=Path, default=None, help="content folder (default: $LESSON_CONTENT_ROOT, else the repo's)"
    )
    schema = sub.add_parser("schema", help="write the content files' JSON Schemas (default: <content>/schema)")
    schema.add_argument("--out", type=Path, default=None, help="folder to write into")
    schema.add_argument("--check", action="store_true", help="only report schemas that are out of date")
    scorm = sub.add_parser("export-scorm", help="write a SCORM 1.2 package that frames LESSON from a server")
    scorm.add_argument("lesson", help="the lesson's slug, e.g. hot-swapping")
    scorm.add_argument("-o", "--output", type=Path, required=True, help="the .zip file to write")
    scorm.add_argument("--server", help="the public URL the lesson is served at (default: $LESSON_PUBLIC_URL)")
    scorm.add_argument("--mastery", type=int, default=80, help="passing score in percent (default 80)")
    scorm.add_argument("--content", type=Path, default=None, help="content folder (default: the repo's)")
    scorm.add_argument(
        "--lang", help="locale of the launch page's UI strings (default: $LESSON_LOCALE, else en; pseudo for tests)"
    )
    trace = sub.add_parser("trace", help="print a playground's wire messages, one JSON object per line")
    trace.add_argument("playground", nargs="?", default="-", help="playground JSON or scenario YAML (default: stdin)")
    args = parser.parse_args(argv)
    if args.command == "export-scorm":
        return _export_scorm(args)
    if args.command == "serve":
        if args.workers and not args.port:
            parser.error("--port 0 (a free port) works only without --workers")
        return _serve(args.host, args.port, args.reload, args.workers, args.threads)
    if args.command == "schema":
        return _schema(args.out, args.check)
    if args.command == "trace":
        return _trace(args.playground)
    return _check(args.content)


if __name__ == "__main__":
    raise SystemExit(main())
