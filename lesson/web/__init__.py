"""The web layer: the app factory, page routes, the socket and the HTTP frame endpoint.

Thin on purpose: frames go to ``lesson.playground.service``, content comes from ``lesson.content.course`` and
``lesson.content.panels``; nothing here knows MCP or the rules of the page's frames (a spent replay
budget raises the service's own ``FrameError``, which the service answers as an error frame).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, request
from flask_compress import Compress
from markupsafe import Markup, escape
from werkzeug.middleware.proxy_fix import ProxyFix

from lesson import i18n, narration
from lesson.content.course import ContentError, load_content, load_panels
from lesson.content.markup import breakable
from lesson.content.models import Content
from lesson.content.panels import StepperPanel
from lesson.content.scenarios import page_scenarios
from lesson.content.stepper import moment_views
from lesson.playground.service import RunCache, Service
from lesson.portal import outbox
from lesson.portal.lrs import from_settings as lrs_from_settings
from lesson.sim.model import VERSION

from ..paths import static_dir, templates_dir
from ..settings import Settings, embed_origins, load_settings
from . import guard, live, pages, progress, socket, strings
from .assets import Assets
from .state import AppState, lesson_state
from .strings import current_locale


def content_fingerprint(root: Path) -> tuple:
    """What the content looks like on disk: every file's name, size and modification time."""
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".yaml", ".yml"):
            st = path.stat()
            out.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(out)


def _load(root: Path) -> tuple[Content, dict[str, Any], dict[str, str]]:
    content = load_content(root)
    panels = load_panels(root)
    # Each stepper's moments once per language, their narration in it (the page asks for its own).
    steppers = {
        (pid if locale == i18n.DEFAULT else f"{pid}.{locale}"): Assets.json_text(
            {
                era: [s.model_dump(mode="json", context=narration.words(locale)) for s in moment_views(p, era)]
                for era in ("modern", "legacy")
            }
        )
        for pid, p in panels.items()
        if isinstance(p, StepperPanel)
        for locale in i18n.locales()
    }
    steppers["scenarios"] = Assets.json_text(page_scenarios(root))  # replayed in the page (scenario.js)
    return content, panels, steppers


def _data_name(name: str) -> str:
    """A generated document's name: a stepper's moments are kept per language, and a page gets its own."""
    localized = f"{name}.{current_locale()}"
    return localized if current_locale() != i18n.DEFAULT and localized in lesson_state().steppers else name


_reload_lock = threading.Lock()


def edits(root: Path) -> tuple:
    """What an author may edit, as it is on disk: the content and the message catalogues. They are reloaded
    together: the steppers' moments and the pages are written in the catalogues' words."""
    return content_fingerprint(root), i18n.catalogue_fingerprint()


def _reload_edits() -> Response | None:
    """With CONTENT_RELOAD (``lesson serve --reload``) or in debug mode, load the content and the message
    catalogues again when a file changed. Broken content keeps the last good content in use, and the page
    says what to fix."""
    app = current_app
    if not (app.config["CONTENT_RELOAD"] or app.debug) or request.blueprint != "pages" or request.method != "GET":
        return None
    if request.endpoint == "pages.healthz":  # the process serves the last good content: it is healthy
        return None
    state = lesson_state()
    if state.root is None:
        return None
    with _reload_lock:
        now = edits(state.root)
        if now == state.fingerprint:
            return None
        # The catalogues first: the content's generated documents are written in their words. The
        # scripts' messages follow them at once, whatever the content's state.
        i18n.reload()
        strings.publish(app)
        try:
            content, panels, steppers = _load(state.root)
        except ContentError as err:
            lines = "\n".join(str(p) for p in err.problems)
            body = f"<!doctype html><title>Content error</title><h1>Content error</h1><pre>{escape(lines)}</pre>"
            return Response(body + "<p>Fix the file and reload the page.</p>", status=500, mimetype="text/html")
        state.content, state.panels, state.steppers, state.fingerprint = content, panels, steppers, now
        state.service.panels = panels
        state.assets.set_data(steppers)
    return None


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. Settings come from defaults, then ``LESSON_*`` environment variables, then
    ``config``. Broken content stops start-up with a ContentError naming the file and line."""
    app = Flask("lesson", template_folder=str(templates_dir()), static_folder=None)
    settings = load_settings(config)  # a malformed setting stops start-up, naming the variable
    app.config.from_mapping(settings.config())
    app.config.update({key: value for key, value in (config or {}).items() if key not in Settings.model_fields})
    if not app.config["SECRET_KEY"]:
        # Quiz progress also lives in the page; the cookie only serves the no-JavaScript form.
        app.config["SECRET_KEY"] = secrets.token_hex(32)

    root = Path(app.config["CONTENT_ROOT"])
    stamp = edits(root) if app.config["CONTENT_RELOAD"] or app.debug else ()
    content, panels, steppers = _load(root)
    service = Service(panels, RunCache(app.config["CACHE_BYTES"]), app.config["MAX_FRAME_BYTES"], app.config["LOCALE"])
    assets = Assets(static_dir(), extra=steppers)
    app.extensions["lesson"] = AppState(
        content=content, panels=panels, service=service, steppers=steppers, assets=assets, root=root, fingerprint=stamp
    )
    # Asset and data URLs carry the prefix the app is mounted under (SCRIPT_NAME, X-Forwarded-Prefix).
    app.jinja_env.globals["asset"] = lambda rel: request.script_root + assets.url(rel)
    app.jinja_env.globals["stepper_url"] = lambda name: request.script_root + assets.data_url(_data_name(name))
    # A playground's walk-throughs (id and title), offered by its template ahead of their code and steps.
    app.jinja_env.globals["scenario_offers"] = lambda pid: json.loads(lesson_state().steppers["scenarios"]).get(pid, [])
    app.jinja_env.globals["embed_origins"] = " ".join(embed_origins(app.config))
    app.jinja_env.filters["breakable"] = lambda text: Markup(breakable(text))
    # Statements go to a learning record store only when one is configured, through the durable
    # outbox, whose sender starts with the first request a process serves (docs/outbox.md).
    app.extensions["lrs"] = (
        lrs_from_settings(app.config, outbox.for_app(app)) if app.config.get("LRS_ENDPOINT") else None
    )
    outbox.init_app(app)
    if app.config["CONTENT_RELOAD"]:
        app.jinja_env.auto_reload = True
    app.before_request(_reload_edits)

    guard.init_app(app)  # first: a request it refuses does no other work
    strings.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(progress.bp)
    assets.init_app(app)
    socket.init_app(app)
    live.init_app(app)  # /live: refused unless live mode is on
    app.jinja_env.globals["live"] = bool(app.config["LIVE"])
    app.jinja_env.globals["era_version"] = VERSION  # the footer names each era's version
    from lesson.portal.lti import init_app as lti_init_app

    lti_init_app(app)  # only with LTI_CONFIG
    if app.config["BENCH_ECHO"]:
        from . import echo

        app.register_blueprint(echo.bp)
    Compress(app)
    if int(app.config["PROXY_FIX"]):
        n = int(app.config["PROXY_FIX"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n, x_prefix=n)  # type: ignore[method-assign]
    return app
