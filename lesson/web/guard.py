"""Origin checks, security headers, and the answers and limits of ``/api/*``.

Browsers send ``Origin`` on WebSocket handshakes and on cross-site POSTs, so checking it stops
another site from driving a learner's playground or answering their quiz (CSRF). Requests with no
``Origin`` and no ``Referer`` come from scripts, not from a page in a browser: they are allowed.
The check is per route: a view marked ``@cross_site`` (a portal's launch, which another site posts
by design) is left out of it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, jsonify, request
from flask.sessions import SecureCookieSessionInterface

from ..settings import canonical_origin
from .budget import Buckets, task_log_events
from .hints import origin_refusal
from .state import lesson_state

GRADING = {"pages.answer_json", "pages.grade_json"}  # routes that replay the task logs they are sent
JSON_POSTS = GRADING | {"pages.statements"}  # routes whose body is read as JSON here
JSON_TYPED = JSON_POSTS | {"frames.frame"}  # and those that must say so (the service reads a frame's bytes)

View = TypeVar("View", bound=Callable[..., Any])


def json_body() -> Any:
    """The request's JSON, or None when the body is not JSON (nested too deeply to parse included)."""
    try:
        return request.get_json(silent=True)
    except RecursionError:
        return None


def _origin_of(url: str) -> str:
    """The origin of a Referer; "" for one that names none or cannot be read (``http://[::1/``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else ""


def allowed_origins() -> set[str]:
    """The site's own origin and the configured ones, patterns included (``*``, ``https://*.example.com``)."""
    own = canonical_origin(f"{request.scheme}://{request.host}")
    extra = {canonical_origin(o) for o in current_app.config["EMBED_ORIGINS"].split()}
    return {own} | extra


@functools.lru_cache(maxsize=64)
def _pattern(origin: str) -> re.Pattern[str]:
    """``https://*.example.com`` as a regex: ``*`` stands for one or more host labels, as in embed.js."""
    return re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*".join(map(re.escape, origin.split("*"))))


def _matches(allowed: str, origin: str) -> bool:
    # A bare "*" lets anyone frame the lesson, but it is no list of trusted sites: it admits nobody here,
    # or the check against other sites' posts (CSRF) would be off.
    if allowed == "*":
        return False
    return allowed == origin if "*" not in allowed else _pattern(allowed).fullmatch(origin) is not None


def origin_allowed() -> bool:
    """Whether the request's page may use the socket and post: the site itself and the configured
    origins, subdomain patterns included (a bare ``*`` admits nobody). A request with neither Origin nor
    Referer is a script's."""
    origin = request.headers.get("Origin")
    if origin is None:
        referer = request.headers.get("Referer")
        if referer is None:
            return True
        origin = _origin_of(referer)
    origin = canonical_origin(origin)
    return origin not in ("", "null") and any(_matches(allowed, origin) for allowed in allowed_origins())


def frame_ancestors() -> str:
    """Who may frame the lesson: LESSON_FRAME_ANCESTORS, else this site and LESSON_EMBED_ORIGINS."""
    cfg = current_app.config
    return cfg["FRAME_ANCESTORS"] or " ".join(["'self'", *cfg["EMBED_ORIGINS"].split()])


def csp(form_action: str = "'self'", ancestors: str | None = None) -> str:
    """The one Content-Security-Policy: every byte from this site; the LTI pages name their own form
    target and the platforms that frame them."""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        f"font-src 'self'; object-src 'none'; base-uri 'self'; form-action {form_action}; "
        f"frame-ancestors {ancestors or frame_ancestors()}"
    )


def security_headers(resp: Response) -> Response:
    resp.headers.setdefault("Content-Security-Policy", csp())
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault(
        "Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"
    )
    if request.is_secure:
        resp.headers.setdefault("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
    return resp


def cross_site(view: View) -> View:
    """Take a view out of the origin check: another site's page may post to it (an LTI login or
    launch). Only for views that check who sent them some other way (a signed token)."""
    view.cross_site = True  # type: ignore[attr-defined]
    return view


def error_answer(message: str, status: int) -> Response:
    """A refusal in the shape its caller reads: JSON ``{"error": …}`` under ``/api/`` (the page's own
    calls), plain text anywhere else, never an HTML page."""
    if request.path.startswith("/api/"):
        return Response(json.dumps({"error": message}), status, mimetype="application/json")
    return Response(message + "\n", status, mimetype="text/plain")


def check_origin() -> Response | None:
    """CSRF: a POST or a socket handshake from a page on another site is refused before anything is
    done (for a socket: before the handshake, so no socket is opened)."""
    socket = request.headers.get("Upgrade", "").lower() == "websocket"
    if request.method != "POST" and not socket:
        return None
    view = current_app.view_functions.get(request.endpoint or "")
    if view is None or getattr(view, "cross_site", False) or origin_allowed():
        return None
    if socket:
        origin = request.headers.get("Origin") or request.headers.get("Referer") or ""
        refusals = current_app.extensions.get("lesson.refusals")
        if refusals is not None:
            own = f"{request.scheme}://{request.host}"
            refusals.note("origin", origin_refusal(origin, own, request.headers, current_app.config))
        return error_answer("This origin may not open the playground socket.", 403)
    return error_answer("This origin may not send this request: only the lesson's own pages may.", 403)


def api_guard() -> Response | None:
    """``/api/*``: at most ``LESSON_API_RATE`` requests a second per client address (429 past it); a body
    that is not JSON refused as such; a grading request charged to the address's replay budget. An
    address that names no route, or a method it does not take, is answered by the app's 404 and 405
    handlers (``pages.py``), in JSON here as everywhere under ``/api/`` (``error_answer``)."""
    if not request.path.startswith("/api/"):
        return None
    delay = current_app.extensions["lesson.api_rate"].take(request.remote_addr or "?", 1)
    if delay is None:
        resp = jsonify(error=f"more than {current_app.config['API_RATE']:g} requests a second from this address")
        resp.status_code, resp.headers["Retry-After"] = 429, "1"
        return resp
    if request.routing_exception is not None or request.method != "POST":
        return None
    if request.endpoint in JSON_TYPED and (refused := _not_json(request.endpoint in JSON_POSTS)):
        return refused
    if request.endpoint in GRADING:
        return _charge_grading()
    return None


def _not_json(parse: bool = True) -> Response | None:
    """A body that is not JSON is refused as such (415, 400), not as a JSON body of the wrong shape."""
    if not request.is_json:  # application/json or application/*+json
        resp = jsonify(error="send a JSON body, with Content-Type: application/json", code="not_json")
        resp.status_code = 415
        return resp
    if parse and json_body() is None:
        resp = jsonify(error="the body is not JSON this address can read (UTF-8 JSON, not null)", code="bad_json")
        resp.status_code = 400
        return resp
    return None


def _charge_grading() -> Response | None:
    """Grading replays each task log it is sent: its presses are charged to the address's replay
    budget (as a socket's logs are), and a request over it is refused (429) before any is replayed."""
    data = json_body()  # parsed once: the view reads the same (and says what is wrong with it)
    args = request.view_args or {}
    quiz = lesson_state().content.quizzes.get(args.get("slug", ""))
    tasks = {q.id: q.task.panel for q in quiz.questions if q.task is not None} if quiz else {}
    return charge_task_logs(data, tasks, args.get("qid"))


def charge_task_logs(data: Any, tasks: dict[str, str], question: str | None = None) -> Response | None:
    """Charge the task logs in ``data`` (for ``question``, or ``{"answers": ...}``) to the address's replay
    budget; ``tasks`` names each task question's panel. A 429 when the budget cannot take them."""
    events = task_log_events(data, tasks, question)
    if not events:
        return None
    replays = current_app.extensions["lesson.replays"]
    # At most a full budget: a page sending back several long task logs at once must still get through.
    if replays.take(request.remote_addr or "?", min(events, replays.burst)) is None:
        resp = jsonify(
            error=f"more task logs than the server replays for one address ({replays.rate:g} presses a second)",
            code="slow_down",
        )
        resp.status_code, resp.headers["Retry-After"] = 429, "1"
        return resp
    return None


class SessionCookies(SecureCookieSessionInterface):
    """The quiz cookie is ``Secure`` whenever the page was served over HTTPS (behind a proxy: with
    ``LESSON_PROXY_FIX`` set, so the app sees the scheme), not only when the setting says so."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def init_app(app: Flask) -> None:
    app.extensions["lesson.api_rate"] = Buckets(float(app.config["API_RATE"]), float(app.config["API_BURST"]))
    app.session_interface = SessionCookies()
    app.before_request(check_origin)  # first: a post from another site is charged to no budget
    app.before_request(api_guard)
