"""Delivering a queued score to the platform (LTI Assignment and Grade Services).

For each score: an access token by OAuth2 client credentials, the tool's signed JWT as the client
assertion, for the AGS score scope (pylti1p3's ServiceConnector does both); then the score is POSTed to
``<line item>/scores``. The answer decides what the outbox does with it: 2xx delivered; a network
error, 408, 429 or 5xx try again later; any other 4xx (a token refused, a line item gone) cannot be
fixed by trying again, so the item is set aside and the reason logged.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from pylti1p3.exception import LtiServiceException

from .tool import Tool, log

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
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


def deliver(tool: Tool, payload: dict[str, Any]) -> tuple[str, str, int | None]:
    """Send one score. Gives ("delivered" | "retry" | "give_up", why, the HTTP status if any)."""
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
        return "give_up", f"the platform {iss!r} (client {client_id!r}) is no longer registered", None
    from pylti1p3.service_connector import ServiceConnector

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
        status = err.response.status_code
        where = "token endpoint" if err.response.url == registration.get_auth_token_url() else "line item"
        why = f"the platform's {where} answered {status}"
        return ("retry" if status in (408, 425, 429) or status >= 500 else "give_up"), why, status
    except (requests.RequestException, ValueError, KeyError) as err:
        # unreachable, timed out, or a token answer without an access_token
        return "retry", f"the platform could not be reached or answered oddly: {type(err).__name__}", None
    return "delivered", "", 200


def make_sender(tool: Tool):
    """The outbox sender for ``lti-score`` items, one at a time."""
    from .. import outbox

    def send(items: list[Any]) -> Any:
        item = items[0]
        verdict, why, status = deliver(tool, item.payload)
        if verdict == "delivered":
            return outbox.DELIVERED
        if verdict == "retry":
            return outbox.retry(why)
        log.warning("LTI score for %s given up: %s", item.destination, why)
        return outbox.give_up(why)

    return send
