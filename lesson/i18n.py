"""UI strings: one message catalogue per language (``lesson/messages/<locale>.json``, a flat table of
key -> text with ``{name}`` placeholders). Lesson prose stays in the content files.

A plain table rather than gettext: the strings are few, the page scripts need the same table (they fetch
the ``js.`` part as a cached JSON file, ``/data/<build>/messages-<locale>.json``), and an instructor can add a
language by copying one JSON file. The ``pseudo`` locale wraps every English string in ``⟦…⟧`` so a test
can find any UI string that does not come from the catalogue.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "messages"
DEFAULT = "en"
PSEUDO = "pseudo"


def locales() -> list[str]:
    """The shipped languages, plus the pseudo-locale used by tests."""
    return sorted(p.stem for p in HERE.glob("*.json")) + [PSEUDO]


@cache
def catalogue(locale: str = DEFAULT) -> dict[str, str]:
    """Every message of ``locale``; a key missing from a translation falls back to English."""
    english: dict[str, str] = json.loads((HERE / f"{DEFAULT}.json").read_text(encoding="utf-8"))
    if locale == PSEUDO:
        return {k: f"⟦{v}⟧" for k, v in english.items()}
    if locale == DEFAULT:
        return english
    path = HERE / f"{locale}.json"
    if not path.is_file():
        raise KeyError(f"no message catalogue for locale {locale!r} (have: {', '.join(locales())})")
    return {**english, **json.loads(path.read_text(encoding="utf-8"))}


def translate(locale: str, key: str, **values: Any) -> str:
    """The message ``key`` in ``locale`` with its placeholders filled; an unknown key is a bug, so it raises."""
    text = catalogue(locale)[key]
    return text.format(**values) if values else text


def script_messages(locale: str) -> dict[str, str]:
    """The part of the catalogue the page scripts use (keys starting ``js.``, without the prefix)."""
    return {k[3:]: v for k, v in catalogue(locale).items() if k.startswith("js.")}


__all__ = ["DEFAULT", "PSEUDO", "catalogue", "locales", "script_messages", "translate"]
