"""Origin checks and security headers.

Browsers send ``Origin`` on WebSocket handshakes and on cross-site POSTs, so checking it stops
another site from driving a learner's playground or answering their quiz (CSRF). Requests with no
``Origin`` and no ``Referer`` come from scripts, not from a page in a browser: they are allowed.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

from flask import Response, current_app, request

from ..settings import canonical_origin

# Routes that take form posts from other sites by design: LTI login initiation and launch come from the
# platform's own pages. Their protection is the OIDC state, the nonce and the token's signature.
CROSS_SITE_POSTS = frozenset({"lti.login", "lti.launch"})


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
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


def security_headers(resp: Response) -> Response:
    cfg = current_app.config
    ancestors = cfg["FRAME_ANCESTORS"] or " ".join(["'self'", *cfg["EMBED_ORIGINS"].split()])
    resp.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
        f"frame-ancestors {ancestors}",
    )
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault(
        "Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()"
    )
    if request.is_secure:
        resp.headers.setdefault("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
    return resp
