"""The ``lesson`` command: ``serve``, ``check``, ``schema``, ``trace``, ``export-scorm``, ``outbox`` and
``lti-keys``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any


def _check(root: Path | None) -> int:
    from .content.check import check
    from .content.course import default_root

    report = check(root or default_root())
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if not report.ok:
        n = len(report.problems)
        print(f"{n} problem{'s' if n > 1 else ''} in {report.root}", file=sys.stderr)
        return 1
    print(f"content OK: {report.summary()}")
    return 0


def _schema(out: Path | None, check_only: bool) -> int:
    from .content.course import default_root
    from .content.schema import stale, write

    out = out or default_root() / "schema"
    if check_only:
        old = stale(out)
        for name in old:
            print(f"{out / name}: out of date; run `lesson schema` to regenerate it", file=sys.stderr)
        return 1 if old else 0
    for path in write(out):
        print(f"wrote {path}")
    return 0


def _live_refusal(config: Any, host: str, workers: int) -> str | None:
    """Why live mode (docs/live.md) may not run with these settings, naming what to change; None if it may."""
    from .live import loopback, sdk_missing

    if not config.get("LIVE"):
        return None
    if missing := sdk_missing():
        return missing
    if not loopback(host) and not config.get("LIVE_ALLOW_REMOTE"):
        return (
            f"refusing live mode on {host}: it starts server processes on this machine for whoever opens the page. "
            "Bind to 127.0.0.1 (the default), or allow it with --live-allow-remote (LESSON_LIVE_ALLOW_REMOTE=true)"
        )
    if workers > 0:
        return "live mode runs on the single-process server: leave out --workers"
    return None


def _serve(
    host: str, port: int, reload: bool = False, workers: int = 0, threads: int = 1100, live: bool = False,
    live_allow_remote: bool = False,
) -> int:  # fmt: skip
    """One process on werkzeug by default; ``workers`` > 0 runs gunicorn (see lesson/web/server.py)."""
    import os
    import secrets
    import signal

    from .content.course import ContentError
    from .settings import SettingsError
    from .web import create_app

    # One quiz-cookie key for every worker; each worker process builds its own app.
    os.environ.setdefault("LESSON_SECRET_KEY", secrets.token_hex(32))
    if reload:  # an environment setting, so gunicorn's workers reload too
        os.environ["LESSON_CONTENT_RELOAD"] = "true"
    if live:
        os.environ["LESSON_LIVE"] = "true"
    if live_allow_remote:
        os.environ["LESSON_LIVE_ALLOW_REMOTE"] = "true"
    try:
        app = create_app()  # with LESSON_LIVE on and no SDK, a SettingsError that names the install command
    except ContentError as err:
        print(f"content error: {err}", file=sys.stderr)
        return 1
    except SettingsError as err:
        print(err, file=sys.stderr)
        return 1
    if why := _live_refusal(app.config, host, workers):
        print(why, file=sys.stderr)
        return 2
    # Which lessons: an author editing a copy of the content sees at once whether it is the one served.
    content = f"  content: {app.config['CONTENT_ROOT']}"
    if workers > 0:
        from .web.reach import startup_lines
        from .web.server import run_gunicorn

        how = f"{workers} worker(s) x {threads} threads"
        # gunicorn mounts the app under SCRIPT_NAME from the environment (docs/embedding.md).
        mount = os.environ.get("SCRIPT_NAME", "")
        print("\n".join([*startup_lines(host, port, how, mount), content]), flush=True)
        return run_gunicorn(host, port, workers, threads, int(app.config["PROXY_FIX"]))
    from .web.server import make_dev_server

    server = make_dev_server(host, port, app)
    from .web.reach import startup_lines

    print("\n".join([*startup_lines(host, server.server_port, "serving"), content]), flush=True)
    live_registry = app.extensions.get("lesson.live")
    if live_registry is not None:
        print("Live mode: the outage playground runs on real MCP SDK servers on this machine.", flush=True)

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    # SIGTERM (a deploy) ends the server as Ctrl-C does, through a clean exit: live processes are killed
    # and the outbox hands its lease back. Ctrl-C works even when whoever started the server ignores or
    # blocks SIGINT (a script's background job, a test runner), as gunicorn's own handlers do.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
    finally:
        if live_registry is not None:
            live_registry.close_all()
    return 0


def _export_scorm(args: argparse.Namespace) -> int:
    from .content.course import ContentError
    from .portal.scorm import ScormError, ScormOutputError, export
    from .settings import SettingsError, load_settings

    server, locale = args.server, args.lang
    if not (server and locale):  # what the command line leaves out comes from the settings, checked as the app does
        try:
            settings = load_settings()
        except SettingsError as err:
            print(f"export-scorm: {err}", file=sys.stderr)
            return 1
        server, locale = server or settings.PUBLIC_URL, locale or settings.LOCALE
    if not server:
        print("export-scorm: give --server URL (or set LESSON_PUBLIC_URL): where the lesson is served", file=sys.stderr)
        return 1
    try:
        out = export(args.lesson, server, args.output, args.content, args.mastery, locale)
    except ScormOutputError as err:
        print(f"export-scorm: {err}", file=sys.stderr)
        return 2
    except (ScormError, ContentError) as err:
        print(f"export-scorm: {err}", file=sys.stderr)
        return 1
    print(f"SCORM 1.2 package written: {out}")
    return 0


def _lti_keys(out: Path, force: bool) -> int:
    from .portal.lti.keys import KeysExist, write_keys

    try:
        private, public = write_keys(out, force)
    except KeysExist as err:
        print(f"lti-keys: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"lti-keys: cannot write into {out}: {err.strerror or err}", file=sys.stderr)
        return 1
    print(f"wrote {private} (keep it secret, out of the repository) and {public}")
    return 0


def _trace(source: str, fmt: str = "json", era: str | None = None) -> int:
    """Print a playground's wire messages (JSON lines, or a readable text or Markdown table); a bad
    playground is an error on stderr, exit 2."""
    from pydantic import ValidationError

    from . import narration
    from .content.names import unknown_servers
    from .sim.run import MAX_EVENTS, Playground
    from .sim.trace import as_markdown, as_text, rows, trace

    titles: list[str] | None = None
    if source != "-" and Path(source).suffix in (".yaml", ".yml"):
        # A scenario file (content/scenarios/*.yaml): its start and scripted presses are a playground.
        from .content.scenarios import load_scenario
        from .content.yamlfile import ContentError

        try:
            scenario, start, steps = load_scenario(Path(source))
        except ContentError as err:
            print(f"trace: {err}", file=sys.stderr)
            return 2
        except OSError as err:
            print(f"trace: cannot read {source}: {err.strerror or err}", file=sys.stderr)
            return 2
        playground = Playground(start=start, events=[e for step in steps for e in step.events])
        # Each event is named by its scenario step: the step's title, else its narration.
        titles = [s.title or s.narration for s, step in zip(scenario.steps, steps, strict=True) for _ in step.events]
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
    if era is not None:
        playground = playground.model_copy(update={"start": playground.start.model_copy(update={"era": era})})
    try:
        if why := unknown_servers(playground.start, playground.events):
            print(f"trace: the playground {why}", file=sys.stderr)
            return 2
        if fmt == "json":
            for line in trace(playground):
                print(json.dumps(line, separators=(",", ":")))
        else:
            table = list(rows(playground, titles, say=narration.line_text))
            print("\n".join(as_text(table) if fmt == "text" else as_markdown(table)))
    except KeyError as err:  # an unknown start name
        print(f"trace: {err.args[0]}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped reading (``| head``): nothing more to say. Python's own advice: point stdout at
        # devnull, so the flush at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


def _outbox(args: argparse.Namespace) -> int:
    """List, retry or drop what waits in the outbox (or was set aside), with the served app's settings."""
    import time

    from flask import Flask

    from .portal import outbox
    from .settings import load_settings

    conf = Flask("lesson")  # the same instance folder, so the same default SQLite file, as `lesson serve`
    try:
        conf.config.from_mapping(load_settings().config())
        store = outbox.from_settings(conf.config, conf.instance_path).store
        if args.action == "list":
            now = time.time()
            stats = store.stats(now)
            items = store.dead(args.limit) if args.dead else store.pending(args.limit)
            if args.json:
                for i in items:
                    print(json.dumps({**i.__dict__, "set_aside": args.dead}, separators=(",", ":")))
                return 0
            age = "" if stats["oldest_age"] is None else f", the oldest {stats['oldest_age']:.0f}s old"
            print(
                f"{stats['depth']} waiting ({stats['bytes']} bytes){age}; {stats['set_aside']} set aside "
                f"({stats['given_up']} given up in all); {stats['refused']} refused when full; {store.url}"
            )
            for i in items:
                note = f"  {i.reason}" if i.reason else ""
                print(f"{i.id}\t{i.kind}\t{i.destination}\t{now - i.created:.0f}s\t{i.attempts} tries{note}")
            return 0
        ids = sorted(set(args.ids))
        missing = []
        if args.action == "retry":
            if args.all:
                back = store.requeue([i.id for i in store.dead(1_000_000)])
                store.retry_now(None)
                print(f"{back} set-aside item(s) back in line; every destination tried now")
            for i in ids:  # a set-aside item goes back in line; a waiting one's destination is tried now
                if store.requeue([i]):
                    print(f"{i}: back in line")
                elif store.retry_now([i]):
                    print(f"{i}: its destination is tried now")
                else:
                    missing.append(i)
        else:
            if args.all_dead:
                print(f"dropped {store.drop_dead([i.id for i in store.dead(1_000_000)])} set-aside item(s)")
            for i in ids:
                if store.remove([i], delivered=False) or store.drop_dead([i]):
                    print(f"{i}: dropped")
                else:
                    missing.append(i)
        if missing:
            print(f"outbox: no such item: {' '.join(map(str, missing))}", file=sys.stderr)
            return 1
        return 0
    except Exception as err:  # the store cannot be opened or reached
        print(f"outbox: {err}", file=sys.stderr)
        return 2


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
        "--live",
        action="store_true",
        help="instructors: the outage playground also runs on real MCP SDK servers on this machine (docs/live.md)",
    )
    serve.add_argument(
        "--live-allow-remote",
        action="store_true",
        help="let --live run when bound to an address other machines reach (LESSON_LIVE_ALLOW_REMOTE)",
    )
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
    scorm.add_argument("lesson", help="the lesson's slug, e.g. an-outage")
    scorm.add_argument("-o", "--output", type=Path, required=True, help="the .zip file to write")
    scorm.add_argument("--server", help="the public URL the lesson is served at (default: $LESSON_PUBLIC_URL)")
    scorm.add_argument("--mastery", type=int, default=80, help="passing score in percent (default 80)")
    scorm.add_argument(
        "--content", type=Path, default=None, help="content folder (default: $LESSON_CONTENT_ROOT, else the repo's)"
    )
    scorm.add_argument(
        "--lang", help="locale of the launch page's UI strings (default: $LESSON_LOCALE, else en; pseudo for tests)"
    )
    trace = sub.add_parser("trace", help="print a playground's wire messages, one per line (JSON, text or Markdown)")
    trace.add_argument("playground", nargs="?", default="-", help="playground JSON or scenario YAML (default: stdin)")
    trace.add_argument(
        "--format",
        choices=("json", "text", "markdown"),
        default="json",
        help="json: one object per message (default); text or markdown: one readable line per message",
    )
    trace.add_argument("--era", choices=("legacy", "modern"), help="play the playground in this era instead")
    box = sub.add_parser("outbox", help="list, retry or drop the statements and grades waiting to be sent")
    box_sub = box.add_subparsers(dest="action", required=True)
    box_list = box_sub.add_parser("list", help="what waits, oldest first (with --dead: what was set aside)")
    box_list.add_argument("--dead", action="store_true", help="the items given up on, with the reason")
    box_list.add_argument("--limit", type=_bounded(1, 1_000_000), default=50, help="at most this many (default 50)")
    box_list.add_argument("--json", action="store_true", help="one JSON object per item, payload included")
    box_retry = box_sub.add_parser("retry", help="put set-aside items back in line; try waiting ones now")
    box_retry.add_argument("ids", nargs="*", type=int, help="item ids (from `lesson outbox list`)")
    box_retry.add_argument("--all", action="store_true", help="every set-aside item, and every destination now")
    box_drop = box_sub.add_parser("drop", help="remove items for good, waiting or set aside")
    box_drop.add_argument("ids", nargs="*", type=int, help="item ids (from `lesson outbox list`)")
    box_drop.add_argument("--all-dead", action="store_true", help="every set-aside item")
    keys = sub.add_parser("lti-keys", help="write a new RSA key pair for the LTI tool (private.key, public.key)")
    keys.add_argument("--out", type=Path, required=True, help="folder to write into (beside the LTI config file)")
    keys.add_argument("--force", action="store_true", help="replace keys that exist")
    args = parser.parse_args(argv)
    if args.command == "outbox":
        if args.action == "retry" and not (args.ids or args.all):
            parser.error("outbox retry: give item ids, or --all")
        if args.action == "drop" and not (args.ids or args.all_dead):
            parser.error("outbox drop: give item ids, or --all-dead")
        return _outbox(args)
    if args.command == "export-scorm":
        return _export_scorm(args)
    if args.command == "serve":
        if args.workers and not args.port:
            parser.error("--port 0 (a free port) works only without --workers")
        return _serve(args.host, args.port, args.reload, args.workers, args.threads, args.live, args.live_allow_remote)
    if args.command == "schema":
        return _schema(args.out, args.check)
    if args.command == "lti-keys":
        return _lti_keys(args.out, args.force)
    if args.command == "trace":
        return _trace(args.playground, args.format, args.era)
    return _check(args.content)


if __name__ == "__main__":
    raise SystemExit(main())
