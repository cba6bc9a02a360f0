"""Which setting fixes a refusal: the line an operator reads in the log names it.

A socket refused for its origin behind a reverse proxy is the common case of a setting left out: the
proxy forwards the learner's host and scheme in ``X-Forwarded-*`` headers, but until ``LESSON_PROXY_FIX``
trusts them the server compares the page's origin with the proxy's upstream address, and no origin list
helps. A page from another site is what ``LESSON_EMBED_ORIGINS`` is for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FORWARDED = ("X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-For", "X-Forwarded-Port", "Forwarded")


def origin_refusal(origin: str, own: str, headers: Mapping[str, str], config: Mapping[str, Any]) -> str:
    """The log line for a socket refused because ``origin`` is not allowed; ``own`` is the site's origin as
    this server sees it."""
    shown = repr(origin[:200])
    if any(h in headers for h in FORWARDED) and not int(config.get("PROXY_FIX") or 0):
        return (
            f"socket refused (403): origin {shown} is not this site as the server sees it ({own}); the request "
            f"came through a proxy (X-Forwarded-* headers) that LESSON_PROXY_FIX does not trust: set "
            f"LESSON_PROXY_FIX=1 (the number of proxies in front)"
        )
    return f"socket refused (403): origin {shown} is not in LESSON_EMBED_ORIGINS (add a portal that frames the lesson)"


__all__ = ["origin_refusal"]
