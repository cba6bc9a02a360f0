"""Checks for the app's settings, so a malformed value stops start-up with a clear message instead
of being ignored. Pure: no Flask, no I/O beyond looking at the content folder.

``validate_settings(app.config)`` raises :class:`SettingsError` listing every problem, each named by
its environment variable (``LESSON_FRAME_ANCESTORS``...). ``embed_origins(app.config)`` gives the
origins a framed page may talk to over postMessage (``data-embed-origins``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .i18n import locales

PREFIX = "LESSON_"

_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*"
_HOST = r"(?:\*|(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?)"
_PORT = r"(?:[0-9]+|\*)"
_PATH = r"(?:/[^\s;,]*)"
_SCHEME_SOURCE = re.compile(rf"^{_SCHEME}:$")
_HOST_SOURCE = re.compile(rf"^(?:(?P<scheme>{_SCHEME})://)?(?P<host>{_HOST})(?::(?P<port>{_PORT}))?(?P<path>{_PATH})?$")
_KEYWORDS = {"'self'", "'none'"}
_BARE_KEYWORDS = {"self", "none", "unsafe-inline", "unsafe-eval", "strict-dynamic"}


class SettingsError(ValueError):
    """One or more settings are malformed; the message names each and says what is expected."""


def parse_frame_ancestors(value: Any) -> list[str]:
    """The sources of a CSP ``frame-ancestors`` list (space separated), or SettingsError.

    Allowed: ``'none'`` alone; or any of ``'self'``, ``*``, a scheme (``https:``), a host source
    (``https://portal.example``, ``*.example.com``, ``https://lms.example:8443``)."""
    name = f"{PREFIX}FRAME_ANCESTORS"
    if not isinstance(value, str):
        raise SettingsError(f"{name} must be a space-separated string of CSP sources, not {type(value).__name__}")
    if "," in value or ";" in value:
        raise SettingsError(f"{name}={value!r}: separate sources with spaces; ',' and ';' would end the CSP directive")
    sources = value.split()
    if not sources:
        raise SettingsError(f"{name} is empty: use 'none' to forbid framing, or list the allowed origins")
    problems = []
    for source in sources:
        low = source.lower()
        if low in _KEYWORDS:
            continue
        if low in _BARE_KEYWORDS:
            problems.append(
                f"{source!r} needs single quotes ('{low}')"
                if low in ("self", "none")
                else f"{source!r} has no meaning in frame-ancestors"
            )
        elif source.startswith("'"):
            problems.append(f"{source} is not allowed in frame-ancestors (only 'self' and 'none')")
        elif _SCHEME_SOURCE.match(source):
            continue
        else:
            m = _HOST_SOURCE.match(source)
            if m is None:
                problems.append(f"{source!r} is not a host source like https://portal.example or *.example.com")
            elif m["port"] and m["port"] != "*" and not 0 < int(m["port"]) < 65536:
                problems.append(f"{source!r} has a port out of range")
            elif "?" in source or "#" in source:
                problems.append(f"{source!r} carries a query or fragment, which CSP sources cannot")
    if "'none'" in (s.lower() for s in sources) and len(sources) > 1:
        problems.append("'none' must stand alone")
    if problems:
        raise SettingsError(f"{name}={value!r}: " + "; ".join(problems))
    return sources


def _origin_pattern(source: str) -> str | None:
    """The postMessage origin (or ``https://*.x`` pattern) a frame-ancestors source names, if exact enough."""
    m = _HOST_SOURCE.match(source)
    if m is None or not m["scheme"] or m["host"] == "*" or m["port"] == "*":
        return None
    port = f":{m['port']}" if m["port"] else ""
    return canonical_origin(f"{m['scheme']}://{m['host'].rstrip('.')}{port}")


_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def canonical_origin(origin: str) -> str:
    """An origin as a browser writes it (``Origin`` header, ``MessageEvent.origin``): lowercase, no
    trailing slash, no default port. ``HTTPS://Portal.example:443/`` is ``https://portal.example``."""
    origin = origin.strip().lower().rstrip("/")
    scheme = origin.partition("://")[0]
    return origin.removesuffix(_DEFAULT_PORTS[scheme]) if scheme in _DEFAULT_PORTS else origin


def parse_origins(value: Any, name: str = f"{PREFIX}EMBED_ORIGINS") -> list[str]:
    """Origins like ``https://portal.example`` (``https://*.example.com`` for subdomains, ``*`` for any)."""
    if not isinstance(value, str):
        raise SettingsError(f"{name} must be a space-separated string of origins, not {type(value).__name__}")
    origins = value.split()
    problems = []
    for origin in origins:
        if origin == "*":
            continue
        parts = urlsplit(origin)
        try:
            port_ok = parts.port is None or 0 < parts.port < 65536
        except ValueError:
            port_ok = False
        host = (parts.netloc.rsplit(":", 1)[0] if parts.port else parts.netloc).removeprefix("*.")
        if (
            parts.scheme not in ("http", "https")
            or not host
            or not re.fullmatch(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*", host)
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or not port_ok
            or "@" in parts.netloc
        ):
            problems.append(f"{origin!r} is not an origin like https://portal.example (scheme, host, optional port)")
    if problems:
        raise SettingsError(f"{name}={value!r}: " + "; ".join(problems))
    return [canonical_origin(o) for o in origins]


def embed_origins(config: Mapping[str, Any]) -> list[str]:
    """Who a framed page may talk to: ``EMBED_ORIGINS`` if set, else the exact origins (with a scheme)
    in ``FRAME_ANCESTORS``. ``*`` in FRAME_ANCESTORS allows framing by anyone but sends statements
    to nobody: sharing them with any site takes an explicit ``EMBED_ORIGINS='*'``."""
    explicit = config.get("EMBED_ORIGINS")
    if explicit:
        return parse_origins(explicit)
    sources = parse_frame_ancestors(config.get("FRAME_ANCESTORS") or "'self'")
    return [o for o in map(_origin_pattern, sources) if o]


def _number(config: Mapping[str, Any], key: str, problems: list[str], zero: bool = False) -> None:
    """A number of seconds (or a rate) above 0; ``zero`` allows 0 as well (it turns the thing off)."""
    if key not in config:
        return
    value = config[key]
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value == value and value != float("inf")
    if not ok or value < 0 or value == 0 and not zero:
        least = "0 or more" if zero else "above 0"
        problems.append(f"{PREFIX}{key} must be a number {least}, not {config[key]!r}")


def _whole(config: Mapping[str, Any], key: str, low: int, high: int | None, problems: list[str]) -> None:
    if key not in config:
        return
    value = config[key]
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < low or high is not None and value > high:
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        problems.append(f"{PREFIX}{key} must be a whole number {span}, not {config[key]!r}")


def _flag(config: Mapping[str, Any], key: str, problems: list[str]) -> None:
    # The environment is read as JSON: true/false arrive as booleans, 1/0 as numbers; "yes" or "maybe"
    # would arrive as a string that Python reads as true.
    if key in config and config[key] not in (True, False, None):
        problems.append(f"{PREFIX}{key} must be true or false, not {config[key]!r}")


def _outbox(config: Mapping[str, Any], problems: list[str]) -> None:
    from .outbox import check_url

    for key in ("OUTBOX_LEASE", "OUTBOX_RETRY_INITIAL", "OUTBOX_RETRY_MAX", "OUTBOX_POLL"):
        _number(config, key, problems)
    first, most = config.get("OUTBOX_RETRY_INITIAL", 1.0), config.get("OUTBOX_RETRY_MAX", 300.0)
    with contextlib.suppress(TypeError, ValueError):
        if float(first) > float(most):
            problems.append(f"{PREFIX}OUTBOX_RETRY_INITIAL={first!r} is above {PREFIX}OUTBOX_RETRY_MAX={most!r}")
    try:
        check_url(str(config.get("OUTBOX_URL") or ""))
    except ValueError as err:
        problems.append(f"{PREFIX}{err}")
    if "LRS_QUEUE_SIZE" in config:
        problems.append(
            f"{PREFIX}LRS_QUEUE_SIZE is gone: statements wait in the outbox, bounded by {PREFIX}OUTBOX_MAX_ITEMS"
        )


COMPRESSIONS = ("br", "gzip", "deflate", "zstd")  # what flask-compress can send


def validate_settings(config: Mapping[str, Any]) -> None:
    """Check every setting this module knows; raise SettingsError listing all the problems found."""
    problems: list[str] = []

    def check(fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except (SettingsError, ValueError) as err:
            problems.append(str(err))

    if config.get("FRAME_ANCESTORS") is not None:  # None: 'self' and the embed origins
        check(parse_frame_ancestors, config["FRAME_ANCESTORS"])
    if config.get("EMBED_ORIGINS"):
        check(parse_origins, config["EMBED_ORIGINS"])
    for key in (
        "MAX_FRAME_BYTES",
        "CACHE_BYTES",
        "MAX_CONTENT_LENGTH",
        "OUTBOX_MAX_ITEMS",
        "OUTBOX_MAX_BYTES",
        "WS_MAX_MESSAGE_BYTES",
        "WS_MAX_QUEUED",
        "WS_BURST",
        "WS_MAX_PER_ADDRESS",
        "REPLAY_BURST",
        "API_BURST",
        "LIVE_MAX_PLAYGROUNDS",
        "LIVE_MAX_PROCESSES",
        "LIVE_PROCESSES_PER_PLAYGROUND",
    ):
        _whole(config, key, 1, None, problems)
    for key in (
        "WS_RATE",
        "WS_SEND_TIMEOUT",
        "WS_HELLO_TIMEOUT",
        "WS_IDLE_TIMEOUT",
        "REPLAY_RATE",
        "API_RATE",
        "LIVE_LIFETIME",
        "LIVE_PRESS_TIMEOUT",
    ):
        _number(config, key, problems)
    _number(config, "REPLAY_WAIT", problems, zero=True)
    _number(config, "WS_PING_INTERVAL", problems, zero=True)
    _outbox(config, problems)
    _whole(config, "PROXY_FIX", 0, None, problems)
    _whole(config, "COMPRESS_BR_LEVEL", 0, 11, problems)
    for key in ("SESSION_COOKIE_SECURE", "CONTENT_RELOAD", "BENCH_ECHO", "LIVE", "LIVE_ALLOW_REMOTE"):
        _flag(config, key, problems)
    algorithms = config.get("COMPRESS_ALGORITHM", ["br", "gzip"])
    names = algorithms.split(",") if isinstance(algorithms, str) else algorithms
    if not isinstance(names, list) or not names or any(str(n).strip() not in COMPRESSIONS for n in names):
        known = ", ".join(COMPRESSIONS)
        problems.append(f"{PREFIX}COMPRESS_ALGORITHM must name some of {known} (comma-separated), not {algorithms!r}")
    locale = config.get("LOCALE", "en")
    if locale not in locales():
        problems.append(f"{PREFIX}LOCALE={locale!r} has no message catalogue (have: {', '.join(locales())})")

    samesite = config.get("SESSION_COOKIE_SAMESITE", "Lax")
    if samesite not in (None, "Lax", "Strict", "None"):
        problems.append(f"{PREFIX}SESSION_COOKIE_SAMESITE must be Lax, Strict or None, not {samesite!r}")
    elif samesite == "None" and not config.get("SESSION_COOKIE_SECURE"):
        problems.append(
            f"{PREFIX}SESSION_COOKIE_SAMESITE=None needs {PREFIX}SESSION_COOKIE_SECURE=true: "
            "browsers drop a SameSite=None cookie that is not Secure"
        )

    public = config.get("PUBLIC_URL")
    if public:
        parts = urlsplit(str(public))
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            problems.append(
                f"{PREFIX}PUBLIC_URL must be an http(s) URL like https://lab.example/training/mcp, not {public!r}"
            )

    lti = config.get("LTI_CONFIG")
    if lti and not Path(str(lti)).is_file():
        problems.append(f"{PREFIX}LTI_CONFIG={lti!r} is not a file (the LTI platforms' registrations, JSON)")
    lti_state = config.get("LTI_STATE")
    if lti_state and not Path(str(lti_state)).parent.is_dir():
        problems.append(f"{PREFIX}LTI_STATE={lti_state!r}: its folder does not exist")

    root = config.get("CONTENT_ROOT")
    if root and not Path(str(root)).is_dir():
        problems.append(f"{PREFIX}CONTENT_ROOT (or {PREFIX}CONTENT)={root!r} is not a folder")

    if config.get("LRS_ENDPOINT"):
        from .lrs import from_settings

        check(from_settings, config)
    elif config.get("LRS_USERNAME") or config.get("LRS_PASSWORD"):
        problems.append(f"{PREFIX}LRS_USERNAME/PASSWORD are set but {PREFIX}LRS_ENDPOINT is not")

    if problems:
        raise SettingsError("bad settings:\n  " + "\n  ".join(problems))
