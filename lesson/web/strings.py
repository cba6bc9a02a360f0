"""The message catalogue in templates: ``_("key", name=value)`` and the scripts' part of it.

The language is ``LESSON_LOCALE`` (default ``en``); ``?lang=<locale>`` picks another shipped one for a
page (tests use ``?lang=pseudo``). An unknown locale in the settings stops start-up.

The scripts' part of each catalogue is a hashed, immutable JSON asset (``/data/<build>/messages-<locale>.json``)
that the page names in ``<html data-messages>``: fetched once, compressed, cached for good, and not
repeated in every page.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, has_request_context, request
from markupsafe import Markup

from ..i18n import catalogue, locales, script_messages, translate
from .assets import Assets


def current_locale() -> str:
    chosen = request.args.get("lang") if has_request_context() else None
    if chosen and chosen in locales():
        return chosen
    return current_app.config["LOCALE"]


def _(key: str, **values: Any) -> Markup:
    """A message, escaped; values are escaped too unless they are Markup (e.g. a ``<code>`` snippet)."""
    return Markup.escape(translate(current_locale(), key)).format(**values)


def messages_url() -> str:
    """Where the page scripts fetch their messages in the page's language (static/js/i18n.js)."""
    return request.script_root + current_app.extensions["lesson"].assets.data_url(f"messages-{current_locale()}")


def init_app(app: Flask) -> None:
    app.config.setdefault("LOCALE", "en")
    catalogue(app.config["LOCALE"])  # raises KeyError naming the shipped locales
    app.jinja_env.globals["_"] = _
    app.jinja_env.globals["messages_url"] = messages_url
    app.extensions["lesson"].assets.add_documents(
        {f"messages-{locale}": Assets.json_text(script_messages(locale)) for locale in locales()}
    )
    app.jinja_env.globals["current_locale"] = current_locale
