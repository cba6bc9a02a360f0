"""The tool's side of LTI 1.3 through pylti1p3: the platforms' registrations, the shared launch store,
the state cookie, and why a launch is refused.

The registrations are pylti1p3's JSON format (one issuer -> one or more client ids, each with its
endpoints, deployment ids and the tool's key files, relative to the JSON file). One optional key is
the lesson's own: ``frame_origins``, the origins of the LMS pages that frame the tool (Canvas serves
course pages from the school's own domain, not from its issuer or its login URL).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jwt
from pylti1p3.contrib.flask import FlaskCacheDataStorage
from pylti1p3.cookie import CookieService
from pylti1p3.tool_config import ToolConfJsonFile

from lesson.settings import SettingsError, canonical_origin

from .store import SqliteCache

log = logging.getLogger("lesson.portal.lti")

# The scope a platform grants for posting scores (LTI Assignment and Grade Services).
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NONCE_TTL = 24 * 3600  # a launch's nonce stays claimed as long as pylti1p3 keeps the launch data


def origin_of(url: str | None) -> str | None:
    try:
        parts = urlsplit(url or "")
    except ValueError:  # "http://[::1/": not an address at all
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return canonical_origin(f"{parts.scheme}://{parts.netloc}")


@dataclass
class Platform:
    """One registration: what the tool needs to know of it beyond pylti1p3's own use."""

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    frame_origins: list[str] = field(default_factory=list)

    @property
    def storage_origin(self) -> str | None:
        """Where platform storage answers: the origin of the OIDC auth URL (1EdTech's lti-cs-oidc)."""
        return origin_of(self.auth_login_url)


class Tool:
    """The configured tool: pylti1p3's registrations and the store every worker shares."""

    def __init__(self, config_path: str | Path, state_path: str | Path | None = None) -> None:
        path = Path(config_path)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            self.conf = ToolConfJsonFile(str(path))
        except OSError as err:
            raise SettingsError(f"LESSON_LTI_CONFIG={str(path)!r} cannot be read: {err.strerror or err}") from None
        except ValueError as err:
            raise SettingsError(f"LESSON_LTI_CONFIG={str(path)!r} is not JSON: {err}") from None
        except Exception as err:  # pylti1p3 raises bare Exception for a missing key or key file
            raise SettingsError(f"LESSON_LTI_CONFIG={str(path)!r}: {err}") from None
        self.platforms: list[Platform] = []
        for issuer, entries in raw.items():
            for entry in entries if isinstance(entries, list) else [entries]:
                frames = entry.get("frame_origins", [])
                if not isinstance(frames, list) or not all(origin_of(o) for o in frames):
                    raise SettingsError(
                        f"LESSON_LTI_CONFIG: frame_origins of {issuer!r} must be a list of origins like "
                        "https://school.instructure.com"
                    )
                self.platforms.append(
                    Platform(
                        issuer=issuer,
                        client_id=str(entry["client_id"]),
                        auth_login_url=entry["auth_login_url"],
                        auth_token_url=entry["auth_token_url"],
                        frame_origins=[str(origin_of(o)) for o in frames],
                    )
                )
        self.cache = SqliteCache(state_path or path.with_name("lti-state.sqlite3"))

    def platform(self, issuer: str, client_id: str | None = None) -> Platform | None:
        for p in self.platforms:
            if p.issuer == issuer and (client_id is None or p.client_id == client_id):
                return p
        return None

    def frame_ancestors(self) -> list[str]:
        """Every registered platform's pages may frame the tool's LTI pages."""
        out: list[str] = []
        for p in self.platforms:
            for origin in (origin_of(p.issuer), origin_of(p.auth_login_url), *p.frame_origins):
                if origin and origin not in out:
                    out.append(origin)
        return out

    def jwks(self) -> dict[str, Any]:
        """The tool's public keys, one entry per distinct key, for the platforms to check its signatures."""
        keys: dict[str, Any] = {}
        for p in self.platforms:
            for key in self.conf.get_jwks(p.issuer, p.client_id)["keys"]:
                keys.setdefault(key["kid"], key)
        return {"keys": list(keys.values())}

    def storage(self, request: Any) -> SharedStorage:
        store = SharedStorage(self.cache)
        store.set_request(request)
        return store


class SharedStorage(FlaskCacheDataStorage):
    """pylti1p3's cache storage over the shared SQLite file, with no per-browser session cookie: in a
    cross-site frame that blocks third-party cookies the cookie would never come back, and the keys it
    would scope (nonce, state, launch id) are random and single-use already."""

    def get_session_cookie_name(self) -> str | None:
        return None


class StateCookies(CookieService):
    """The OIDC state cookie as a cross-site launch needs it: ``SameSite=None; Secure`` (pylti1p3's Flask
    cookie is Lax over http). Browsers keep Secure cookies from https pages and from loopback
    (localhost, 127.0.0.1) over plain http."""

    PREFIX = "lti1p3-"

    def __init__(self, request: Any) -> None:
        self.request = request
        self.pending: dict[str, tuple[str, int | None]] = {}

    def get_cookie(self, name: str) -> str | None:
        return self.request.get_cookie(self.PREFIX + name)

    def set_cookie(self, name: str, value: str | int, exp: int | None = 3600) -> None:
        self.pending[self.PREFIX + name] = (str(value), exp)

    def update_response(self, response: Any) -> None:
        for key, (value, exp) in self.pending.items():
            response.set_cookie(key, value, max_age=exp, secure=True, httponly=True, samesite="None", path="/")


# Why a launch or login is refused, from pylti1p3's exception messages (which carry no token contents).
_REASONS = (
    ("Could not find registration details", "unknown_platform"),
    ("Registration not found", "unknown_platform"),
    ("not found in settings", "unknown_platform"),
    ("Client id not registered", "wrong_audience"),
    ("Signature has expired", "expired"),
    ("Signature verification failed", "bad_signature"),
    ("Unable to find public key", "bad_signature"),
    ("JWT KID not found", "bad_signature"),
    ("Can't decode id_token", "bad_signature"),
    ("Invalid Nonce", "unknown_nonce"),
    ('"nonce" is empty', "unknown_nonce"),
    ("deployment_id is not set", "no_deployment"),
    ("Unable to find deployment", "unknown_deployment"),
    ("Missing state param", "state_mismatch"),
    ("State not found", "state_mismatch"),
    ("Missing id_token", "no_token"),
    ("Invalid id_token", "no_token"),
    ("Invalid JWT format", "no_token"),
    ("Could not find issuer", "no_issuer"),
    ("Could not find login hint", "no_login_hint"),
    ("Error during fetch URL", "no_keys"),
    ("Must be JSON", "no_keys"),
    ("Invalid URL: ", "no_keys"),
)

REASONS = {
    "unknown_platform": "the issuer or client id is not a platform registered with this tool",
    "wrong_audience": "the token is addressed to another client id (its audience is not this tool)",
    "expired": "the token has expired",
    "bad_signature": "the token's signature does not match the platform's published keys",
    "bad_claims": "the token's signature is right, but a standard claim in it (a time stamp, the subject) is malformed",
    "unknown_nonce": "the token's nonce was not issued by this tool's login (or has expired)",
    "replayed": "this launch was already used once: its nonce is spent",
    "no_deployment": "the token names no deployment id",
    "unknown_deployment": "the token's deployment id is not registered for this platform",
    "state_mismatch": "the state does not match the one this browser's login started",
    "no_token": "the request carries no readable id_token",
    "no_issuer": "the login request names no issuer",
    "no_login_hint": "the login request carries no login hint",
    "no_keys": (
        "the platform's public keys could not be fetched or read: check the key set URL registered with "
        "this tool, and that the platform serves it"
    ),
    "bad_message": "the message is not a launch this tool handles",
    "unknown_launch": "this page's launch is unknown or has expired: launch the lesson again from the course",
}


def reason_for(err: Exception) -> str:
    # pylti1p3 wraps whatever PyJWT refused in one "Can't decode id_token": PyJWT's own exception, kept as
    # the cause, says which check failed, so a signed token with an odd claim is not called forged.
    cause = err.__cause__
    if isinstance(cause, jwt.exceptions.InvalidTokenError):
        if isinstance(cause, jwt.exceptions.ExpiredSignatureError):
            return "expired"
        if isinstance(cause, jwt.exceptions.InvalidAudienceError):
            return "wrong_audience"
        claims = (
            jwt.exceptions.ImmatureSignatureError,
            jwt.exceptions.InvalidIssuedAtError,
            jwt.exceptions.InvalidSubjectError,
            jwt.exceptions.InvalidJTIError,
            jwt.exceptions.MissingRequiredClaimError,
        )
        if isinstance(cause, claims) or (
            type(cause) is jwt.exceptions.DecodeError and "claim" in str(cause)  # an "exp" that is no integer
        ):
            return "bad_claims"
        return "bad_signature"  # a signature, key or header PyJWT refused before it read any claim
    text = str(err)
    for needle, code in _REASONS:
        if needle in text:
            return code
    return "bad_message"
