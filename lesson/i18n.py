"""UI strings: one message catalogue per language (``lesson/messages/<locale>.json``, a flat table of
key -> text with ``{name}`` placeholders). Lesson prose stays in the content files.

A plain table rather than gettext: the strings are few, the page scripts need the same table (they fetch
the ``js.`` part as a cached JSON file, ``/data/<build>/messages-<locale>.json``), and an instructor can add a
language by copying one JSON file. The ``pseudo`` locale wraps every English string in ``⟦…⟧`` so a test
can find any UI string that does not come from the catalogue.

A translation is never trusted to be right: a message whose placeholders differ from English's, a key
English does not have, or a file that is not a JSON table is logged and English is used instead, so no
catalogue mistake can break a page. ``lesson check`` reports the same mistakes with their lines
(:func:`catalogue_problems`).
"""

from __future__ import annotations

import json
import logging
import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from lesson.sim.spelling import closest, did_you_mean

HERE = Path(__file__).parent / "messages"
DEFAULT = "en"
PSEUDO = "pseudo"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CatalogueProblem:
    """A mistake in a translated catalogue: the file, the line (when known) and what is wrong."""

    path: Path
    line: int | None
    message: str
    key: str | None = None


def locales() -> list[str]:
    """The shipped languages, plus the pseudo-locale used by tests."""
    return sorted(p.stem for p in HERE.glob("*.json")) + [PSEUDO]


def placeholders(text: str) -> set[str] | None:
    """The ``{name}`` placeholders a message fills, or None when it is not a valid format string."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return None


def _key_line(text: str, key: str) -> int | None:
    pattern = re.compile(r"^\s*" + re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", re.MULTILINE)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _read(path: Path) -> tuple[str, dict[str, Any] | None, CatalogueProblem | None]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return "", None, CatalogueProblem(path, None, f"cannot read the file: {exc.strerror or exc}")
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Notepad writes one) is no part of the text
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return "", None, CatalogueProblem(path, line, "this file is not UTF-8: save it again with the encoding UTF-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return text, None, CatalogueProblem(path, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})")
    if not isinstance(data, dict):
        return text, None, CatalogueProblem(path, 1, "a catalogue is a JSON object of key to text")
    return text, data, None


def catalogue_problems(path: Path, english: dict[str, str]) -> tuple[list[CatalogueProblem], list[str]]:
    """Every mistake in the translated catalogue at ``path`` measured against ``english``, and the English
    keys it does not translate (those fall back to English, which is allowed but worth knowing)."""
    text, data, problem = _read(path)
    if data is None:
        return [problem] if problem else [], sorted(english)
    out = []
    for key, value in data.items():
        line = _key_line(text, key)
        if key not in english:
            hint = did_you_mean(key, english)
            out.append(CatalogueProblem(path, line, f"unknown key {key!r}: English has no such message{hint}", key))
            continue
        if not isinstance(value, str):
            out.append(CatalogueProblem(path, line, f"{key!r}: a message is a string", key))
            continue
        want, got = placeholders(english[key]), placeholders(value)
        if got is not None and got == want and not _fills(value, got):
            out.append(CatalogueProblem(path, line, f"{key!r}: a placeholder cannot be filled (write {{name}})", key))
        elif got is None:
            out.append(
                CatalogueProblem(path, line, f"{key!r}: unbalanced braces; write {{{{ and }}}} for literal ones", key)
            )
        elif got != want:
            extra, lacking = sorted(got - (want or set())), sorted((want or set()) - got)
            parts = [f"placeholder {{{p}}} is not in English's" for p in extra]
            for p in extra:
                if near := closest(p, sorted(want or ())):
                    parts[extra.index(p)] += f" (did you mean {{{near}}}?)"
            parts += [f"placeholder {{{p}}} is missing" for p in lacking]
            out.append(CatalogueProblem(path, line, f"{key!r}: " + "; ".join(parts), key))
    return out, sorted(k for k in english if k not in data)


def _fills(text: str, names: set[str]) -> bool:
    """Whether the message can be filled with its placeholders (a stray ``{name!x}`` or ``{name:zz}`` cannot)."""
    try:
        text.format(**dict.fromkeys(names, ""))
    except (KeyError, IndexError, ValueError):
        return False
    return True


def _english() -> dict[str, str]:
    data: dict[str, str] = json.loads((HERE / f"{DEFAULT}.json").read_text(encoding="utf-8"))
    return data


@cache
def catalogue(locale: str = DEFAULT) -> dict[str, str]:
    """Every message of ``locale``; a key missing from a translation, or a translated message that
    does not fit English's placeholders, is English's (the mistake is logged)."""
    english = _english()
    if locale == PSEUDO:
        return {k: f"⟦{v}⟧" for k, v in english.items()}
    if locale == DEFAULT:
        return english
    path = HERE / f"{locale}.json"
    if not path.is_file():
        raise KeyError(f"no message catalogue for locale {locale!r} (have: {', '.join(locales())})")
    _, data, problem = _read(path)
    if data is None:
        log.error("%s; using English for every message (`lesson check` lists the problems)", problem_text(problem))
        return english
    problems, _missing = catalogue_problems(path, english)
    bad = {p.key for p in problems}
    for p in problems:
        log.error("%s; using English for it", problem_text(p))
    return {**english, **{k: v for k, v in data.items() if k in english and k not in bad}}


def has_locale(locale: str) -> bool:
    """Whether ``locale`` has a catalogue to render in: one shipped, or the pseudo-locale. Cheap for a
    known one (its catalogue is cached); ``locale`` must be a plain name, as the page protocol checks."""
    try:
        catalogue(locale)
    except KeyError:
        return False
    return True


_LOCALE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}")


def refuse_locale(lang: object) -> str | None:
    """Why a page's ``lang`` cannot be answered in (no catalogue has that name), or None when it can: the
    one message the page protocol and live mode give. A value that is not a plain name has no catalogue."""
    if isinstance(lang, str) and _LOCALE_NAME.fullmatch(lang) and has_locale(lang):
        return None
    return f"lang: there are no messages in {str(lang)[:20]!r}; this server has: {', '.join(locales())}"


def problem_text(problem: CatalogueProblem | None) -> str:
    if problem is None:
        return ""
    return f"{problem.path}:{problem.line}: {problem.message}" if problem.line else f"{problem.path}: {problem.message}"


def catalogue_fingerprint() -> tuple[tuple[str, int], ...]:
    """What changes when a catalogue is edited, added or removed (``lesson serve --reload``)."""
    return tuple(sorted((p.name, p.stat().st_mtime_ns) for p in HERE.glob("*.json")))


def reload() -> None:
    """Forget every catalogue read so far: the next use reads the files again."""
    catalogue.cache_clear()


def translate(locale: str, key: str, **values: Any) -> str:
    """The message ``key`` in ``locale`` with its placeholders filled; an unknown key is a bug, so it raises."""
    text = catalogue(locale)[key]
    return text.format(**values) if values else text


def markup(locale: str, key: str, **values: Any) -> Markup:
    """The message as HTML for a template: its text escaped, and each value too unless it is Markup
    (a ``<code>`` snippet)."""
    return Markup.escape(translate(locale, key)).format(**values)


def script_messages(locale: str) -> dict[str, str]:
    """The part of the catalogue the page scripts use (keys starting ``js.``, without the prefix)."""
    return {k[3:]: v for k, v in catalogue(locale).items() if k.startswith("js.")}


__all__ = [
    "DEFAULT",
    "PSEUDO",
    "CatalogueProblem",
    "catalogue",
    "catalogue_problems",
    "catalogue_fingerprint",
    "has_locale",
    "locales",
    "markup",
    "placeholders",
    "refuse_locale",
    "reload",
    "script_messages",
    "translate",
]
