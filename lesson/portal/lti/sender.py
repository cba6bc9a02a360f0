"""Delivering a queued score to the platform (LTI Assignment and Grade Services).

For each score: an access token by OAuth2 client credentials, the tool's signed JWT as the client
assertion, for the AGS score scope (pylti1p3's ServiceConnector does both); then the score is POSTed to
``<line item>/scores``. The answer decides what the outbox does with it: 2xx delivered; a network
error, 408, 429 or 5xx try again later; any other 4xx (a token refused, a line item gone) cannot be
fixed by trying again, so the outbox sets the item aside and logs the reason.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from pylti1p3.exception import LtiServiceException
from pylti1p3.service_connector import ServiceConnector

from .. import outbox
from .tool import SCORE_SCOPE, Tool

TIMEOUT = 20.0  # seconds for one request to the platform


class _Session(requests.Session):
    """Every request with a timeout: a platform that never answers must not hold the sender forever."""

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        kwargs.setdefault("timeout", TIMEOUT)
        return super().request(*args, **kwargs)


def scores_url(lineitem: str) -> str:
    """``<line item>/scores``, the line item's query kept (AGS 3.4)."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def deliver(tool: Tool, payload: dict[str, Any]) -> outbox.SendOutcome:
    """Send one score; the outcome tells the outbox to forget it, try again later, or set it aside."""
    iss, client_id = payload.get("iss"), payload.get("client_id")
    conf = tool.conf
    try:
        registration = (
            conf.find_registration(iss)
            if conf.check_iss_has_one_client(iss)
            else conf.find_registration_by_params(iss, client_id)
        )
    except Exception:
        registration = None
    if registration is None or registration.get_client_id() != client_id:
        return outbox.give_up(f"LTI platform {iss!r} (client {client_id!r}) is no longer registered")
    connector = ServiceConnector(registration, _Session())
    try:
        connector.make_service_request(
            [SCORE_SCOPE],
            scores_url(payload["lineitem"]),
            is_post=True,
            data=json.dumps(payload["score"]),
            content_type="application/vnd.ims.lis.v1.score+json",
        )
    except LtiServiceException as err:
        resp = err.response
        where = "token endpoint" if resp.url == registration.get_auth_token_url() else "line item"
        after = outbox.retry_after(resp.headers.get("Retry-After"))
        return outbox.outcome_for_status(resp.status_code, f"LTI {where}: {resp.text[:200]}", after)
    except (requests.RequestException, ValueError, KeyError) as err:
        # unreachable, timed out, or a token answer without an access_token
        return outbox.retry(f"LTI platform unreachable or odd answer: {type(err).__name__}: {err}"[:300])
    return outbox.DELIVERED


def make_sender(tool: Tool) -> outbox.Sender:
    """The outbox sender for ``lti-score`` items (one at a time: each has its own learner)."""

    def send(items: list[outbox.Item]) -> outbox.SendOutcome:
        return deliver(tool, items[0].payload)

    return send
