"""The app's settings: their defaults, ``LESSON_*`` environment variables, and the checks that make a
malformed value stop start-up with a clear message instead of being ignored. Pure: no Flask, no I/O
beyond reading the environment and looking at the folders named.

:class:`Settings` (pydantic-settings) reads ``LESSON_<NAME>`` for each field. ``load_settings(config)``
layers defaults, the environment and ``config``; it raises :class:`SettingsError` listing every
problem, each named by its environment variable
(``LESSON_FRAME_ANCESTORS``...). ``embed_origins(app.config)`` gives the origins a framed page may
talk to over postMessage (``data-embed-origins``).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BeforeValidator, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

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


COMPRESSIONS = ("br", "gzip", "deflate", "zstd")  # what flask-compress can send


# --- the settings ----------------------------------------------------------------------------------
# Each check raises ValueError naming the variable; pydantic gathers them all into one ValidationError.


def _number(least: str) -> BeforeValidator:
    """A number of seconds (or a rate) above 0; with ``least="0 or more"`` 0 too (it turns the thing off)."""

    def check(value: Any, info: ValidationInfo) -> float:
        raw = value
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = float(value)
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or value < 0 or (value == 0 and least == "above 0"):
            raise ValueError(f"{PREFIX}{info.field_name} must be a number {least}, not {raw!r}")
        return float(value)

    return BeforeValidator(check)


def _whole(low: int, high: int | None = None) -> BeforeValidator:
    def check(value: Any, info: ValidationInfo) -> int:
        raw = value
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise ValueError(f"{PREFIX}{info.field_name} must be a whole number {span}, not {raw!r}")
        return value

    return BeforeValidator(check)


def _flag(value: Any, info: ValidationInfo) -> bool:
    # true/false as the environment writes them, or as Python does; "yes" or "maybe" is a typo, not true.
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    if value not in (True, False, None):
        raise ValueError(f"{PREFIX}{info.field_name} must be true or false, not {value!r}")
    return bool(value)


def _algorithms(value: Any) -> list[str]:
    names = value
    if isinstance(value, str):  # "br,gzip" as flask-compress takes it, or a JSON list
        try:
            names = json.loads(value) if value.lstrip().startswith("[") else value.split(",")
        except ValueError:
            names = None
    if not isinstance(names, list | tuple) or not names or any(str(n).strip() not in COMPRESSIONS for n in names):
        known = ", ".join(COMPRESSIONS)
        raise ValueError(f"{PREFIX}COMPRESS_ALGORITHM must name some of {known} (comma-separated), not {value!r}")
    return [str(n).strip() for n in names]


def _default_content_root() -> str:
    from .content.course import default_root  # LESSON_CONTENT_ROOT, else LESSON_CONTENT, else the shipped lessons

    return str(default_root())


Whole = Annotated[int, _whole(1)]
Seconds = Annotated[float, _number("above 0")]
SecondsOrOff = Annotated[float, _number("0 or more")]
Flag = Annotated[bool, BeforeValidator(_flag)]


class Settings(BaseSettings):
    """Every setting, with its default; each is read from ``LESSON_<NAME>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, case_sensitive=True, extra="ignore")

    SECRET_KEY: str | bytes | None = None  # None: LESSON_SECRET_KEY, else a random key per process
    CONTENT_ROOT: str = ""  # empty: see _default_content_root
    MAX_FRAME_BYTES: Whole = 16384  # a frame, including a page's whole log (500 presses fit)
    CACHE_BYTES: Whole = 192 << 20  # the run cache per process, by estimated bytes (about 2,000 playgrounds)
    MAX_CONTENT_LENGTH: Whole = 64 * 1024
    EMBED_ORIGINS: str = ""  # space-separated origins that may embed the lesson and talk to it
    FRAME_ANCESTORS: str | None = None  # overrides the CSP frame-ancestors value built from EMBED_ORIGINS
    PROXY_FIX: Annotated[int, _whole(0)] = 0  # how many proxies in front set X-Forwarded-*; 0 trusts none
    PUBLIC_URL: str = ""  # where the lesson is served (SCORM links, xAPI ids, share links)
    SESSION_COOKIE_SAMESITE: str | None = "Lax"
    SESSION_COOKIE_SECURE: Flag = False
    SESSION_COOKIE_HTTPONLY: Flag = True
    WS_PING_INTERVAL: SecondsOrOff = 25
    WS_MAX_MESSAGE_BYTES: Whole = 64 * 1024  # larger frames close the socket with 1009
    WS_MAX_QUEUED: Whole = 16  # frames received but not handled (the client is not reading)
    WS_SEND_TIMEOUT: Seconds = 10.0  # seconds a send may block on a client that does not read
    WS_RATE: Seconds = 20.0  # frames a second, sustained, per socket
    WS_BURST: Whole = 40
    WS_HELLO_TIMEOUT: Seconds = 20.0  # seconds a new socket may stay silent
    WS_IDLE_TIMEOUT: Seconds = 900.0  # seconds an open socket may stay silent
    WS_MAX_PER_ADDRESS: Whole = 400  # sockets per client address, per process (a classroom shares one NAT address)
    REPLAY_RATE: Seconds = 100.0  # logged events replayed a second per client address, per process
    REPLAY_BURST: Whole = 500  # events replayed at once for one address: one full log (a playground holds 500)
    REPLAY_WAIT: SecondsOrOff = 5.0  # seconds a socket's log waits for its address's replay budget, then is refused
    API_RATE: Seconds = 100.0  # /api/* requests a second per client address, per process (a class may share one)
    API_BURST: Whole = 300
    BENCH_ECHO: Flag = False  # /bench/echo: a bare echo on the same stack, for bench/load_bench.py
    # NoDecode: the environment gives "br,gzip" (flask-compress's own form), not JSON.
    COMPRESS_ALGORITHM: Annotated[list[str], NoDecode, BeforeValidator(_algorithms)] = ["br", "gzip"]
    COMPRESS_BR_LEVEL: Annotated[int, _whole(0, 11)] = 5
    CONTENT_RELOAD: Flag = False  # load content edits again on the next page load (lesson serve --reload)
    LOCALE: str = "en"  # the UI strings' language (lesson/messages/<locale>.json); "pseudo" for tests
    LTI_CONFIG: str = ""  # the LTI 1.3 platforms' registrations (JSON); empty: no /lti routes (docs/lti.md)
    LTI_STATE: str = ""  # the LTI store shared by the workers (SQLite); default: beside LTI_CONFIG
    LRS_ENDPOINT: str = ""  # the learning record store statements go to; empty: none (docs/outbox.md)
    LRS_USERNAME: str = ""
    LRS_PASSWORD: str = ""
    # The durable outbox for statements and grades (docs/outbox.md); empty URL: SQLite in the instance folder.
    OUTBOX_URL: str = ""
    OUTBOX_MAX_ITEMS: Whole = 100_000
    OUTBOX_MAX_BYTES: Whole = 64 << 20
    OUTBOX_LEASE: Seconds = 30.0  # seconds a dead sender keeps the others waiting
    OUTBOX_RETRY_INITIAL: Seconds = 1.0
    OUTBOX_RETRY_MAX: Seconds = 300.0
    OUTBOX_POLL: Seconds = 1.0  # seconds between looks for items other processes put
    LRS_QUEUE_SIZE: str | int | None = None  # gone; named only to say what replaced it
    # Live mode (docs/live.md): the outage playground on real SDK server processes; off unless asked for.
    LIVE: Flag = False
    LIVE_ALLOW_REMOTE: Flag = False  # let clients other than this machine start processes
    LIVE_MAX_PLAYGROUNDS: Whole = 2
    LIVE_MAX_PROCESSES: Whole = 8  # server processes alive at once, all live playgrounds together
    LIVE_PROCESSES_PER_PLAYGROUND: Whole = 3
    LIVE_LIFETIME: Seconds = 900.0  # seconds a server process may live
    LIVE_PRESS_TIMEOUT: Seconds = 45.0  # seconds a press (or a live playground's start) may take

    @field_validator("FRAME_ANCESTORS")
    @classmethod
    def _frame_ancestors(cls, value: str | None) -> str | None:
        if value is not None:  # None: 'self' and the embed origins
            parse_frame_ancestors(value)
        return value

    @field_validator("EMBED_ORIGINS", mode="before")
    @classmethod
    def _embed_origins(cls, value: Any) -> Any:
        if value:
            parse_origins(value)
        return value

    @field_validator("SESSION_COOKIE_SAMESITE", mode="before")
    @classmethod
    def _samesite(cls, value: Any) -> Any:
        if value not in (None, "Lax", "Strict", "None"):
            raise ValueError(f"{PREFIX}SESSION_COOKIE_SAMESITE must be Lax, Strict or None, not {value!r}")
        return value

    @field_validator("LOCALE")
    @classmethod
    def _locale(cls, value: str) -> str:
        if value not in locales():
            raise ValueError(f"{PREFIX}LOCALE={value!r} has no message catalogue (have: {', '.join(locales())})")
        return value

    @field_validator("PUBLIC_URL")
    @classmethod
    def _public_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if value and (parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment):
            raise ValueError(
                f"{PREFIX}PUBLIC_URL must be an http(s) URL like https://lab.example/training/mcp, not {value!r}"
            )
        return value

    @field_validator("LTI_CONFIG")
    @classmethod
    def _lti_config(cls, value: str) -> str:
        if value and not Path(value).is_file():
            raise ValueError(f"{PREFIX}LTI_CONFIG={value!r} is not a file (the LTI platforms' registrations, JSON)")
        return value

    @field_validator("LTI_STATE")
    @classmethod
    def _lti_state(cls, value: str) -> str:
        if value and not Path(value).parent.is_dir():
            raise ValueError(f"{PREFIX}LTI_STATE={value!r}: its folder does not exist")
        return value

    @field_validator("CONTENT_ROOT")
    @classmethod
    def _content_root(cls, value: str) -> str:
        value = value or _default_content_root()
        if not Path(value).is_dir():
            raise ValueError(f"{PREFIX}CONTENT_ROOT (or {PREFIX}CONTENT)={value!r} is not a folder")
        return value

    @field_validator("OUTBOX_URL")
    @classmethod
    def _outbox_url(cls, value: str) -> str:
        from .portal.outbox import check_url

        try:
            check_url(value)
        except ValueError as err:
            raise ValueError(f"{PREFIX}{err}") from None
        return value

    @field_validator("LRS_QUEUE_SIZE")
    @classmethod
    def _gone(cls, value: Any) -> None:
        if value is not None:
            raise ValueError(
                f"{PREFIX}LRS_QUEUE_SIZE is gone: statements wait in the outbox, bounded by {PREFIX}OUTBOX_MAX_ITEMS"
            )

    @model_validator(mode="after")
    def _together(self) -> Settings:
        """The checks that read more than one setting (each setting is well-formed by now)."""
        problems = []
        first, most = self.OUTBOX_RETRY_INITIAL, self.OUTBOX_RETRY_MAX
        if first > most:
            problems.append(f"{PREFIX}OUTBOX_RETRY_INITIAL={first!r} is above {PREFIX}OUTBOX_RETRY_MAX={most!r}")
        if self.SESSION_COOKIE_SAMESITE == "None" and not self.SESSION_COOKIE_SECURE:
            problems.append(
                f"{PREFIX}SESSION_COOKIE_SAMESITE=None needs {PREFIX}SESSION_COOKIE_SECURE=true: "
                "browsers drop a SameSite=None cookie that is not Secure"
            )
        if self.LRS_ENDPOINT:
            from .portal.lrs import from_settings

            try:
                from_settings(self.config())
            except ValueError as err:
                problems.append(str(err))
        elif self.LRS_USERNAME or self.LRS_PASSWORD:
            problems.append(f"{PREFIX}LRS_USERNAME/PASSWORD are set but {PREFIX}LRS_ENDPOINT is not")
        if problems:
            raise ValueError("\n  ".join(problems))
        return self

    def config(self) -> dict[str, Any]:
        """The settings as Flask config keys and values (the gone ones left out)."""
        return self.model_dump(exclude={"LRS_QUEUE_SIZE"})


def _error(problem: Any) -> str:
    cause = (problem.get("ctx") or {}).get("error")
    if isinstance(cause, Exception):  # one of the checks above: its message names the variable
        return str(cause)
    where = "".join(str(part) for part in problem["loc"][:1])
    shown = "" if where in ("SECRET_KEY", "LRS_PASSWORD") else f", not {problem['input']!r}"  # secrets stay out of logs
    return f"{PREFIX}{where}: {problem['msg']}{shown}"


def _settings_error(err: ValidationError) -> SettingsError:
    first = {p["loc"][:1]: p for p in reversed(err.errors())}  # one line a setting (a union has one per type)
    return SettingsError("bad settings:\n  " + "\n  ".join(_error(p) for p in reversed(first.values())))


def load_settings(config: Mapping[str, Any] | None = None) -> Settings:
    """The settings: defaults, then ``LESSON_*`` environment variables, then ``config`` (its other keys,
    Flask's own, are left out); SettingsError lists every problem found."""
    given = {key: value for key, value in (config or {}).items() if key in Settings.model_fields}
    try:
        return Settings(**given)
    except ValidationError as err:
        raise _settings_error(err) from None
