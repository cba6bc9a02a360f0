"""The tool's routes under ``/lti``: login initiation, launch, the platform-storage check, deep linking,
the learner's answers for the gradebook, the public keys and the configuration JSON.

Login initiation and launch arrive as form posts from the platform's own site: the origin checks let
them through (they are marked ``@cross_site``, ``lesson.web.guard``); what protects them is the OIDC state, the
nonce and the token's signature. Every other route here keeps the site's origin checks.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from flask import Blueprint, Response, abort, current_app, jsonify, make_response, render_template, request, url_for
from pylti1p3.contrib.flask import FlaskMessageLaunch, FlaskOIDCLogin, FlaskRequest
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from lesson.playground.tasks import TaskLogError
from lesson.web.guard import charge_task_logs, cross_site, csp, frame_ancestors, json_body
from lesson.web.pages import grading, lesson_context, task_log_refused
from lesson.web.state import lesson_state

from . import grades
from .tool import NONCE_TTL, REASONS, SCORE_SCOPE, StateCookies, Tool, log, origin_of, reason_for

bp = Blueprint("lti", __name__, url_prefix="/lti")

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
CUSTOM = CLAIM + "custom"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "lti_deployment_id", "client_id")
LOGIN_TTL = 600  # seconds from login initiation to launch
LAUNCH_TTL = 24 * 3600  # how long a launched page may keep sending answers


def tool() -> Tool:
    return current_app.extensions["lti"]


def _csp(form_action: str = "'self'") -> str:
    ancestors = frame_ancestors()
    if ancestors.strip() == "'none'":  # the site itself may not be framed; the platforms still frame the tool
        ancestors = "'self'"
    extra = [o for o in tool().frame_ancestors() if o not in ancestors.split()]
    return csp(form_action, " ".join([ancestors, *extra]))


def _page(template: str, status: int = 200, form_action: str = "'self'", **context: Any) -> Response:
    """An LTI page: framed by the registered platforms, never cached (it carries a launch's secrets)."""
    resp = make_response(render_template(template, embed=True, **context), status)
    resp.headers["Content-Security-Policy"] = _csp(form_action)
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _refuse(code: str, detail: str = "", status: int = 400) -> Response:
    """A refusal: logged with its reason (never the token), and a page saying what failed."""
    log.warning("LTI %s refused: %s%s", request.path, code, f" ({detail[:200]})" if detail else "")
    return _page("lti/refused.html", status, reason=REASONS[code], code=code)


def _param(name: str) -> str | None:
    value = (request.args if request.method == "GET" else request.form).get(name)
    return value or None


# login initiation --------------------------------------------------------------------------------


@bp.route("/login", methods=["GET", "POST"])
@cross_site
def login() -> Response:
    """OIDC login initiation: remember a nonce and a state, then send the browser to the platform's
    authorization endpoint. With ``lti_storage_target`` the state also goes to the platform's storage
    (postMessage) before leaving, for a frame that will not get the cookie back."""
    t = tool()
    iss, client_id = _param("iss"), _param("client_id")
    if iss and client_id and t.platform(iss, client_id) is None:
        return _refuse("unknown_platform", f"iss={iss[:80]} client_id={client_id[:80]}")
    req = FlaskRequest()
    cookies = StateCookies(req)
    oidc = FlaskOIDCLogin(req, t.conf, cookie_service=cookies, launch_data_storage=t.storage(req))
    try:
        redirect = oidc.get_redirect_object(url_for("lti.launch", _external=True))
    except Exception as err:  # pylti1p3's OIDCException, or a registration it cannot read
        return _refuse(reason_for(err), str(err))
    target = redirect.get_redirect_url()
    query = parse_qs(urlsplit(target).query)
    state, nonce = query["state"][0], query["nonce"][0]
    platform = t.platform(str(iss), client_id)
    params = {k: v for k in LOGIN_PARAMS if (v := _param(k))}
    t.cache.set(f"lti-login-{state}", {"iss": iss, "client_id": client_id, "params": params}, LOGIN_TTL)
    storage_target = _param("lti_storage_target")
    if storage_target and platform and platform.storage_origin:
        resp = _page(
            "lti/login.html",
            auth_url=target,
            state=state,
            nonce=nonce,
            storage_target=storage_target,
            platform_origin=platform.storage_origin,
        )
        cookies.update_response(resp)  # a browser that keeps the cookie needs no storage round trip
        return resp
    return redirect.do_redirect()


# launch ------------------------------------------------------------------------------------------


@bp.post("/launch")
@cross_site
def launch() -> Response:
    """The platform posts the signed id_token here. The state is checked against the cookie the login
    set; when the frame got no cookie back, against the platform's storage (a page asks it, then posts
    to ``launch/verified``); with neither, a page offers to open the lesson in a window of its own."""
    t = tool()
    state = request.form.get("state", "")
    login_seen = t.cache.get(f"lti-login-{state}") if state else None
    if state and request.cookies.get(StateCookies.PREFIX + state) is None and login_seen is not None:
        platform = t.platform(login_seen["iss"], login_seen.get("client_id"))
        storage_target = request.form.get("lti_storage_target")
        window_url = (
            url_for("lti.login", _external=True) + "?" + urlencode({**login_seen["params"], "lti1p3_new_window": "1"})
        )
        if storage_target and platform and platform.storage_origin:
            return _page(
                "lti/verify.html",
                id_token=request.form.get("id_token", ""),
                state=state,
                storage_target=storage_target,
                platform_origin=platform.storage_origin,
                window_url=window_url,
            )
        return _page("lti/new_window.html", window_url=window_url)
    req = FlaskRequest()
    return _complete(req)


@bp.post("/launch/verified")
def launch_verified() -> Response:
    """The launch again, once the page found the state in the platform's storage. Only the tool's own
    page can post here (the origin checks apply), and it does so only after the platform answered."""
    state = request.form.get("state", "")
    if not state or tool().cache.get(f"lti-login-{state}") is None:
        return _refuse("state_mismatch", "no login for this state")
    data = {"state": state, "id_token": request.form.get("id_token", "")}
    return _complete(FlaskRequest(cookies={StateCookies.PREFIX + state: state}, request_data=data))


def _complete(req: FlaskRequest) -> Response:
    t = tool()
    ml = FlaskMessageLaunch(req, t.conf, cookie_service=StateCookies(req), launch_data_storage=t.storage(req))
    try:
        data = ml.get_launch_data()
        deep_link = ml.is_deep_link_launch()
        resource = ml.is_resource_launch()
    except Exception as err:  # pylti1p3's LtiException, or a token too malformed for it to read
        code = reason_for(err)
        if code == "unknown_platform" and _known_issuer(req):
            code = "wrong_audience"  # the issuer is registered, the audience (client id) is not its
        return _refuse(code, f"{type(err).__name__}: {err}")
    # pylti1p3 accepts the same token twice (the nonce stays valid, the state is marked valid): the
    # first launch spends the nonce, in the store every worker shares.
    if not t.cache.claim(f"nonce:{data.get('iss')}:{data.get('nonce')}", NONCE_TTL):
        return _refuse("replayed")
    launch_id = ml.get_launch_id()
    if deep_link and _return_url(data) is None:
        # Refused now, not after the author has picked: there would be nowhere to send the choice.
        return _refuse("bad_message", "the deep-linking settings name no http(s) return URL")
    if deep_link:
        return _picker(launch_id, data)
    if resource:
        return _lesson(launch_id, data)
    return _refuse("bad_message", str(data.get(CLAIM + "message_type"))[:60])


def _known_issuer(req: FlaskRequest) -> bool:
    """Whether the refused token's issuer is registered (its claims read unverified, only to say why)."""
    try:
        claims = jwt.decode(req.get_param("id_token") or "", options={"verify_signature": False})
    except jwt.PyJWTError:
        return False
    return isinstance(claims.get("iss"), str) and tool().platform(claims["iss"]) is not None


def _lesson(launch_id: str, data: dict[str, Any]) -> Response:
    custom = data.get(CUSTOM) or {}
    slug = custom.get("lesson") if isinstance(custom, dict) else None
    state = lesson_state()
    item = state.content.lesson(slug) if isinstance(slug, str) else None
    if item is None:
        return _page("lti/index.html", lessons=state.content.lessons)
    quiz = state.content.quizzes.get(item.meta.slug)
    ags = data.get(AGS)
    scopes = ags.get("scope") if isinstance(ags, dict) else None
    lineitem = ags.get("lineitem") if isinstance(scopes, list) and SCORE_SCOPE in scopes else None
    if not (isinstance(lineitem, str) and origin_of(lineitem)):
        lineitem = None  # no line item to grade into: the lesson works, nothing is sent
    record = {
        "iss": data.get("iss"),
        "client_id": ml_client(data),
        "deployment_id": data.get(CLAIM + "deployment_id"),
        "resource_link": (data.get(CLAIM + "resource_link") or {}).get("id"),
        "sub": str(data.get("sub")),
        "slug": item.meta.slug,
        "lineitem": lineitem,
        "retakes": str(custom.get("retakes", "")).lower() in ("1", "true", "yes"),
    }
    tool().cache.set(f"lti-launch-{launch_id}", record, LAUNCH_TTL)
    return _page(
        "lti/lesson.html",
        **lesson_context(item, {}, {}, grading().score(item.meta.slug, {})),
        prev=None,
        next=None,
        form_error=None,
        lti_launch=launch_id,
        lti_graded=bool(lineitem and quiz and record["sub"]),
        lti_retakes=record["retakes"],
    )


@bp.get("/lessons/<slug>")
def lesson_page(slug: str) -> Response:
    """A lesson opened from the course index of a launch: embedded and framable by the platforms (the
    site's own pages may not be), not graded (a link's grade belongs to the lesson it names)."""
    item = lesson_state().content.lesson(slug)
    if item is None:
        abort(404)
    return _page(
        "lti/lesson.html",
        **lesson_context(item, {}, {}, grading().score(slug, {})),
        prev=None,
        next=None,
        form_error=None,
        lti_graded=False,
    )


def ml_client(data: dict[str, Any]) -> str | None:
    aud = data.get("aud")
    return aud[0] if isinstance(aud, list) and aud else aud if isinstance(aud, str) else None


# deep linking ------------------------------------------------------------------------------------


def _return_url(data: dict[str, Any]) -> str | None:
    """Where a deep-linking launch's choice goes back: its settings' return URL, if an http(s) one."""
    settings = data.get(DL_SETTINGS)
    url = settings.get("deep_link_return_url") if isinstance(settings, dict) else None
    return url if isinstance(url, str) and origin_of(url) is not None else None


def _picker(launch_id: str, data: dict[str, Any], error: bool = False) -> Response:
    """The author's picker: the course's lessons (title, summary, minutes), one or several to return."""
    settings = data.get(DL_SETTINGS)
    settings = settings if isinstance(settings, dict) else {}
    state = lesson_state()
    return _page(
        "lti/pick.html",
        400 if error else 200,
        launch_id=launch_id,
        lessons=state.content.lessons,
        quizzes=state.content.quizzes,
        multiple=str(settings.get("accept_multiple", "true")).lower() != "false",
        error=error,
    )


@bp.post("/deep-link")
def deep_link() -> Response:
    """The author's choice, returned to the platform as LTI resource links, each with a line item."""
    t = tool()
    req = FlaskRequest()
    launch_id = request.form.get("launch", "")
    try:
        ml = FlaskMessageLaunch.from_cache(
            launch_id, req, t.conf, cookie_service=StateCookies(req), launch_data_storage=t.storage(req)
        )
        if not launch_id.startswith("lti1p3-launch-") or not ml.is_deep_link_launch():
            raise ValueError("not a deep-linking launch")
        link = ml.get_deep_link()
        return_url = _return_url(ml.get_launch_data())
    except Exception as err:
        return _refuse("unknown_launch", str(err))
    state = lesson_state()
    chosen = [c for c in (state.content.lesson(s) for s in request.form.getlist("lesson")) if c is not None]
    if not chosen:
        return _picker(launch_id, ml.get_launch_data(), error=True)
    retakes = request.form.get("retakes") == "1"
    resources = []
    for item in chosen:
        quiz = state.content.quizzes.get(item.meta.slug)
        res = (
            DeepLinkResource()
            .set_url(url_for("lti.launch", _external=True))
            .set_title(item.meta.title)
            .set_custom_params({"lesson": item.meta.slug, "retakes": "1" if retakes else "0"})
        )
        if quiz is not None:
            res.set_lineitem(
                LineItem()
                .set_score_maximum(len(quiz.questions))
                .set_label(item.meta.title)
                .set_resource_id(item.meta.slug)
            )
        resources.append(res)
    if return_url is None:
        return _refuse("bad_message", "the deep-linking return URL is not an http(s) URL")
    return_origin = origin_of(return_url)
    token = link.get_response_jwt(resources)
    return _page(
        "lti/return.html",
        form_action=return_origin,
        return_url=return_url,
        jwt=token,
        chosen=chosen,
    )


# the learner's answers ---------------------------------------------------------------------------


@bp.post("/answer")
def answer() -> tuple[Response, int] | Response:
    """One answer from a launched lesson: graded here (a choice against the key, a task's log by
    replaying it), the first answer of each question kept per attempt, and the attempt's score queued
    for the platform once every question has one. Nothing the page says about correctness is read."""
    body = json_body()
    if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in ("launch", "question", "choice")):
        return jsonify(error='send {"launch": id, "question": id, "choice": answer}'), 400
    launch = tool().cache.get(f"lti-launch-{body['launch']}")
    if launch is None:
        return jsonify(error=REASONS["unknown_launch"], code="unknown_launch"), 404
    quiz = lesson_state().content.quizzes.get(launch["slug"])
    question = next((q for q in quiz.questions if q.id == body["question"]), None) if quiz else None
    if question is None:
        return jsonify(error="the launched lesson's quick check has no such question"), 404
    if question.task is None and body["choice"] not in {c.id for c in question.choices or []}:
        return jsonify(error="that is not one of this question's choices"), 400
    if question.task is None:
        correct = grading().verdict(launch["slug"], question, body["choice"])
    else:
        # A task's log is replayed: charged to the address's replay budget, as the site's own grading is.
        refused = charge_task_logs({"log": body["choice"]}, {question.id: question.task.panel}, question.id)
        if refused is not None:
            return refused
        try:
            correct = grading().grade_task(launch["slug"], question, body["choice"])
        except TaskLogError as exc:
            return task_log_refused(exc)
    return jsonify(grades.record(tool(), launch, question.id, body["choice"], correct, len(quiz.questions)))


# keys and configuration --------------------------------------------------------------------------


@bp.get("/jwks")
def jwks() -> Response:
    return jsonify(tool().jwks())


@bp.get("/config.json")
def config_json() -> Response:
    """The tool's configuration for platforms that import one (Canvas's developer-key JSON)."""
    login_url = url_for("lti.login", _external=True)
    launch_url = url_for("lti.launch", _external=True)
    host = urlsplit(launch_url).hostname
    keys = tool().jwks()["keys"]
    return jsonify(
        {
            "title": "MCP Churn Lab",
            "description": "Interactive lessons on how an MCP host copes with server churn.",
            "oidc_initiation_url": login_url,
            "target_link_uri": launch_url,
            "public_jwk_url": url_for("lti.jwks", _external=True),
            **({"public_jwk": keys[0]} if len(keys) == 1 else {}),
            "scopes": [
                "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                SCORE_SCOPE,
            ],
            "extensions": [
                {
                    "platform": "canvas.instructure.com",
                    "domain": host,
                    "privacy_level": "anonymous",
                    "settings": {
                        "placements": [
                            {
                                "placement": placement,
                                "message_type": "LtiDeepLinkingRequest",
                                "target_link_uri": launch_url,
                            }
                            for placement in ("assignment_selection", "link_selection")
                        ]
                    },
                }
            ],
            "custom_fields": {},
        }
    )
