"""A small LTI 1.3 platform for the tests, with its own RSA key, built on PyJWT and jwcrypto.

It does what an LMS does for a tool, on loopback: OIDC login initiation (a course page that posts to
the tool's login in an iframe, with or without ``lti_storage_target``), the authorization endpoint that
answers with a signed id_token posted to the tool's launch, 1EdTech platform storage (postMessage
``lti.put_data`` / ``lti.get_data``) in the course page, the deep-linking return, an OAuth2 client
credentials token endpoint and an AGS line item's scores endpoint. What arrives is recorded.

It runs on ``http://localhost:PORT`` while the tool runs on ``http://127.0.0.1:PORT``: another site,
so the tool in the course page's iframe is a third-party frame.
"""

from __future__ import annotations

import html
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jwt
import requests
from flask import Flask, Response, abort, request
from jwcrypto.jwk import JWK

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"


@dataclass
class Received:
    """What the platform was sent, with a condition to wait on instead of a clock."""

    content_items: list[dict[str, Any]] = field(default_factory=list)
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)  # scores answered with an error
    changed: threading.Condition = field(default_factory=threading.Condition)

    def add(self, name: str, value: dict[str, Any]) -> None:
        with self.changed:
            getattr(self, name).append(value)
            self.changed.notify_all()

    def wait_for(self, name: str, count: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        with self.changed:
            self.changed.wait_for(lambda: len(getattr(self, name)) >= count, timeout)
            return list(getattr(self, name))


class Platform:
    """The platform's keys, its registration of the tool, and its endpoints (a Flask app)."""

    client_id = "lesson-tool"
    deployment_id = "deployment-1"

    def __init__(self, base: str = "http://localhost:9") -> None:
        self.kid = uuid.uuid4().hex
        self.key = JWK.generate(kty="RSA", size=2048, kid=self.kid)
        self.other_key = JWK.generate(kty="RSA", size=2048, kid=self.kid)  # same kid, another key
        self.base = base
        self.tool = ""  # the tool's base URL, once known
        self.received = Received()
        self.tokens: set[str] = set()
        self.scores_status = 200  # what the scores endpoint answers (a test may make it fail)

    # what the tool is told ----------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self.base

    def jwks(self) -> dict[str, Any]:
        return {"keys": [{**json.loads(self.key.export_public()), "alg": "RS256", "use": "sig"}]}

    def registration(self, tool_keys: Path, key_set_url: bool = False) -> dict[str, Any]:
        """The tool's configuration file for this platform (pylti1p3's format)."""
        entry: dict[str, Any] = {
            "client_id": self.client_id,
            "auth_login_url": f"{self.base}/auth",
            "auth_token_url": f"{self.base}/token",
            "deployment_ids": [self.deployment_id],
            "private_key_file": str(tool_keys / "private.key"),
            "public_key_file": str(tool_keys / "public.key"),
        }
        if key_set_url:
            entry["key_set_url"] = f"{self.base}/jwks"
        else:
            entry["key_set"] = self.jwks()
        return {self.issuer: [entry]}

    # id tokens ----------------------------------------------------------------------------------

    def claims(self, nonce: str, kind: str = "resource", lesson: str | None = "first", **extra: Any) -> dict[str, Any]:
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": "learner-1",
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
        }
        if kind == "deeplink":
            body[CLAIM + "message_type"] = "LtiDeepLinkingRequest"
            body[CLAIM + "roles"] = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
            body[DL + "deep_linking_settings"] = {
                "deep_link_return_url": f"{self.base}/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe"],
                "accept_multiple": True,
                "data": "platform-data-1",
            }
        else:
            body[CLAIM + "message_type"] = "LtiResourceLinkRequest"
            body[CLAIM + "target_link_uri"] = f"{self.tool}/lti/launch"
            body[CLAIM + "resource_link"] = {"id": "link-1", "title": "A linked lesson"}
            body[CLAIM + "custom"] = {"lesson": lesson, "retakes": "0"} if lesson else {}
            body[AGS] = {
                "scope": [LINEITEM_SCOPE, SCORE_SCOPE],
                "lineitem": f"{self.base}/lineitems/1",
                "lineitems": f"{self.base}/lineitems",
            }
        body.update(extra)
        return body

    def sign(self, body: dict[str, Any], key: JWK | None = None) -> str:
        key = key or self.key
        pem = key.export_to_pem(private_key=True, password=None)
        return jwt.encode(body, pem, algorithm="RS256", headers={"kid": self.kid})

    # the platform's web endpoints -----------------------------------------------------------------

    def app(self) -> Flask:
        app = Flask("test-platform")
        pending: dict[str, dict[str, Any]] = {}  # login_hint -> what the course page launched

        @app.get("/jwks")
        def jwks() -> Any:
            return self.jwks()

        @app.get("/course")
        def course() -> str:
            """A course page: the tool in an iframe, started by a login initiation form post."""
            hint = uuid.uuid4().hex
            kind = request.args.get("kind", "resource")
            storage = request.args.get("storage", "") != ""
            pending[hint] = {
                "kind": kind,
                "lesson": request.args.get("lesson", "first"),
                "retakes": request.args.get("retakes", "0"),
                "storage": storage,
                "sub": request.args.get("sub", "learner-1"),
            }
            fields = {
                "iss": self.issuer,
                "login_hint": hint,
                "target_link_uri": f"{self.tool}/lti/launch",
                "lti_message_hint": kind,
                "client_id": self.client_id,
                "lti_deployment_id": self.deployment_id,
            }
            if storage:
                fields["lti_storage_target"] = "_parent"
            inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
            # storage=tamper answers every get_data with another value; storage=silent never answers it
            mode = json.dumps(request.args.get("storage", ""))
            return f"""<!doctype html><html lang="en"><title>Course</title><body>
<main><h1>Course</h1>
<form id="start" method="post" action="{self.tool}/lti/login" target="tool">{inputs}</form>
<iframe name="tool" title="Lesson" style="width:100%;height:900px"></iframe></main>
<script>
const store = new Map();
addEventListener("message", (e) => {{
  if (e.origin !== {json.dumps(self.tool)} || !e.data || typeof e.data !== "object") return;
  const d = e.data;
  const answer = (subject, value) =>
    e.source.postMessage({{subject, message_id: d.message_id, key: d.key, value}}, e.origin);
  if (d.subject === "lti.put_data") {{
    store.set(d.key, d.value);
    answer("lti.put_data.response", d.value);
  }} else if (d.subject === "lti.get_data" && {mode} !== "silent") {{
    answer("lti.get_data.response", {mode} === "tamper" ? "state-forged" : store.get(d.key));
  }}
}});
document.getElementById("start").submit();
</script></body></html>"""

        @app.get("/auth")
        def auth() -> str:
            """The OIDC authorization endpoint: check the request, post a signed id_token back."""
            args = request.args
            launch = pending.get(args.get("login_hint", ""))  # a hint names the learner's session
            if (
                launch is None
                or args.get("client_id") != self.client_id
                or args.get("redirect_uri") != f"{self.tool}/lti/launch"
                or args.get("response_type") != "id_token"
                or args.get("scope") != "openid"
                or not args.get("nonce")
            ):
                abort(400)
            body = self.claims(args["nonce"], launch["kind"], launch["lesson"], sub=launch["sub"])
            if launch["kind"] == "resource":
                body[CLAIM + "custom"]["retakes"] = launch["retakes"]
            fields = {"id_token": self.sign(body), "state": args.get("state", "")}
            if launch["storage"]:
                fields["lti_storage_target"] = "_parent"
            inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
            return (
                f'<!doctype html><title>Signing in</title><form id="f" method="post" '
                f'action="{html.escape(args["redirect_uri"])}">{inputs}</form>'
                '<script>document.getElementById("f").submit()</script>'
            )

        @app.post("/deep-link-return")
        def deep_link_return() -> str:
            token = request.form.get("JWT", "")
            keys = requests.get(f"{self.tool}/lti/jwks", timeout=10).json()
            kid = jwt.get_unverified_header(token)["kid"]
            key = next(k for k in keys["keys"] if k["kid"] == kid)
            body = jwt.decode(
                token, JWK(**key).export_to_pem(), algorithms=["RS256"], audience=self.issuer, issuer=self.client_id
            )
            if body.get(CLAIM + "message_type") != "LtiDeepLinkingResponse":
                abort(400)
            for item in body[DL + "content_items"]:
                self.received.add("content_items", {**item, "data": body.get(DL + "data")})
            titles = "".join(f"<li>{html.escape(i['title'])}</li>" for i in body[DL + "content_items"])
            return f"<!doctype html><title>Added</title><h1>Added to the course</h1><ul>{titles}</ul>"

        @app.post("/token")
        def token() -> Any:
            form = request.form
            assertion = form.get("client_assertion", "")
            keys = requests.get(f"{self.tool}/lti/jwks", timeout=10).json()
            try:
                kid = jwt.get_unverified_header(assertion)["kid"]
                key = next(k for k in keys["keys"] if k["kid"] == kid)
                body = jwt.decode(
                    assertion, JWK(**key).export_to_pem(), algorithms=["RS256"], audience=f"{self.base}/token"
                )
            except Exception:
                return {"error": "invalid_client"}, 401
            if (
                form.get("grant_type") != "client_credentials"
                or form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
                or body.get("iss") != self.client_id
                or body.get("sub") != self.client_id
            ):
                return {"error": "invalid_grant"}, 400
            scopes = form.get("scope", "").split()
            self.received.add("token_requests", {"scopes": scopes})
            access = uuid.uuid4().hex
            self.tokens.add(access)
            return {"access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": " ".join(scopes)}

        @app.post("/lineitems/<item>/scores")
        def scores(item: str) -> Any:
            auth = request.headers.get("Authorization", "")
            if auth.removeprefix("Bearer ") not in self.tokens:
                return {"error": "unauthorized"}, 401
            if request.mimetype != "application/vnd.ims.lis.v1.score+json":
                return {"error": "wrong content type"}, 415
            if self.scores_status != 200:
                self.received.add("refused", {"lineitem": item, "status": self.scores_status})
                return Response("not now", self.scores_status)
            self.received.add("scores", {"lineitem": item, **json.loads(request.get_data())})
            return Response(status=204)

        return app

    def login_query(self, **extra: str) -> dict[str, str]:
        """A login initiation's parameters, as a platform sends them."""
        return {
            "iss": self.issuer,
            "login_hint": "hint-1",
            "target_link_uri": f"{self.tool}/lti/launch",
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
            **extra,
        }


def course_url(platform: Platform, **params: str) -> str:
    return f"{platform.base}/course?{urlencode(params)}"
