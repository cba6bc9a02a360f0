"""The message catalogue in templates: ``_("key", name=value)`` and the scripts' part of it.

The language is ``LESSON_LOCALE`` (default ``en``); ``?lang=<locale>`` picks another shipped one for a
page (tests use ``?lang=pseudo``). An unknown locale in the settings stops start-up.

The scripts' part of each catalogue is a hashed, immutable JSON asset (``/data/<build>/messages-<locale>.json``)
that the page names in ``<html data-messages>``: fetched once, compressed, cached for good, and not
repeated in every page. The groups only a module fetched later uses (:data:`LATER_GROUPS`) are documents
of their own beside it (``messages-<locale>-<group>.json``), fetched by that module. ``<html lang>`` is
the page's locale, and a lesson translated into it (``content/locales/<locale>/lessons/``) is shown in
place of the English one (:func:`localized`).

A message that cannot be filled in a translation (a placeholder it names is not given) is shown in English and
logged, so a translation mistake never fails a page. With ``lesson serve --reload`` (or in debug mode) an edited
catalogue is read again on the next page load.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import Flask, current_app, has_request_context, request
from markupsafe import Markup

from lesson.content.locales import load_locales
from lesson.content.models import Lesson
from lesson.content.yamlfile import ContentError

from .. import i18n
from ..i18n import DEFAULT, PSEUDO, locales, script_messages
from .assets import Assets
from .state import lesson_state

log = logging.getLogger(__name__)


def current_locale() -> str:
    chosen = request.args.get("lang") if has_request_context() else None
    if chosen and chosen in locales():
        return chosen
    return current_app.config["LOCALE"]


def _(key: str, **values: Any) -> Markup:
    """A message, escaped; values are escaped too unless they are Markup (e.g. a ``<code>`` snippet)."""
    locale = current_locale()
    try:
        return i18n.markup(locale, key, **values)
    except (KeyError, IndexError, ValueError) as exc:
        if locale in (DEFAULT, PSEUDO):
            raise  # English itself is wrong: a bug the tests catch, not a translation to fall back from
        log.error("message %r in %r cannot be filled (%r); showing English", key, locale, exc)
        return i18n.markup(DEFAULT, key, **values)


def localized(lesson: Lesson) -> Lesson:
    """The lesson in the page's locale: its translation under ``content/locales/<locale>/lessons/`` when
    there is one that loads, else the English lesson (lesson/content/locales.py)."""
    locale = current_locale()
    if locale in (DEFAULT, PSEUDO):
        return lesson
    return _translations().get(locale, {}).get(lesson.meta.slug, lesson)


def _translations() -> dict[str, dict[str, Lesson]]:
    # Loaded on first use and again whenever the content is (a reload makes a new Content object).
    state = lesson_state()
    held = current_app.extensions.get("lesson.content.locales")
    if held is not None and held[0] is state.content:
        return held[1]  # type: ignore[no-any-return]
    with _translations_lock:
        problems: list[ContentError] = []
        table = load_locales(state.root, state.content, problems) if state.root is not None else {}
        for problem in problems:
            log.error("%s; showing the English lesson (`lesson check` lists every problem)", problem)
        current_app.extensions["lesson.content.locales"] = (state.content, table)
    return table


def html_lang() -> str:
    """The page's ``<html lang>``: its locale (the pseudo-locale's text is English)."""
    locale = current_locale()
    return DEFAULT if locale == PSEUDO else locale


def messages_url() -> str:
    """Where the page scripts fetch their messages in the page's language (static/js/i18n.js)."""
    return request.script_root + lesson_state().assets.data_url(f"messages-{current_locale()}")


# Message groups (a key's first part) that only a module fetched after the first view uses: each is a
# document of its own (``messages-<locale>-<group>``), fetched by that module (``need`` in i18n.js), so a
# first view carries only the messages its own scripts use.
LATER_GROUPS = (
    "quiz",
    "live",
    "scenario",
    "lti",
    "lab",
    "stepper",
    "progress",
    "diagram",
    "present",
    "startover",
    "predict",
)


def split_messages(table: dict[str, str]) -> dict[str, dict[str, str]]:
    """The scripts' messages as documents: ``""`` for the first view's, then one per later group."""
    parts: dict[str, dict[str, str]] = {"": {}, **{g: {} for g in LATER_GROUPS}}
    for key, text in table.items():
        group = key.split(".", 1)[0]
        parts[group if group in LATER_GROUPS else ""][key] = text
    return parts


def publish(app: Flask) -> None:
    """Serve the scripts' messages of every locale as documents (again after the catalogues are reloaded)."""
    documents = {}
    for locale in locales():
        for group, part in split_messages(script_messages(locale)).items():
            documents[f"messages-{locale}-{group}" if group else f"messages-{locale}"] = Assets.json_text(part)
    app.extensions["lesson"].assets.add_documents(documents)


_translations_lock = threading.Lock()


def init_app(app: Flask) -> None:
    app.jinja_env.globals["_"] = _
    app.jinja_env.globals["messages_url"] = messages_url
    app.jinja_env.globals["html_lang"] = html_lang
    publish(app)
    app.jinja_env.globals["current_locale"] = current_locale
