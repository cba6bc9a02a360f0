"""The message catalogue in templates: ``_("key", name=value)`` and the scripts' part of it.

The language is ``LESSON_LOCALE`` (default ``en``); ``?lang=<locale>`` picks another shipped one for a
page (tests use ``?lang=pseudo``). An unknown locale in the settings stops start-up.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Flask, current_app, has_request_context, request
from markupsafe import Markup

from ..i18n import catalogue, locales, script_messages, translate


def current_locale() -> str:
    chosen = request.args.get("lang") if has_request_context() else None
    if chosen and chosen in locales():
        return chosen
    return current_app.config["LOCALE"]


def _(key: str, **values: Any) -> Markup:
    """A message, escaped; values are escaped too unless they are Markup (e.g. a ``<code>`` snippet)."""
    return Markup.escape(translate(current_locale(), key)).format(**values)


def messages_attr() -> Markup:
    """The scripts' messages as a single-quoted-attribute-safe JSON text."""
    text = json.dumps(script_messages(current_locale()), ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;"))


def init_app(app: Flask) -> None:
    app.config.setdefault("LOCALE", "en")
    catalogue(app.config["LOCALE"])  # raises KeyError naming the shipped locales
    app.jinja_env.globals["_"] = _
    app.jinja_env.globals["messages_attr"] = messages_attr
    app.jinja_env.globals["current_locale"] = current_locale
