"""``lesson check``'s rules for translations: translated lessons (``locales/<locale>/lessons/*.md``) and
the UI's message catalogues (``lesson/messages/*.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from lesson import i18n

from .check_lessons import anchors, check_links, check_messages
from .models import Content
from .yamlfile import ContentError


def check_locales(root: Path, content: Content, notes: list[str]) -> list[ContentError]:
    """Translated lessons (``locales/<locale>/lessons/*.md``): each loads, translates an English lesson,
    shows the same panels, and its links and wire examples hold like the English ones. A locale with no UI
    catalogue cannot be picked (``?lang=``), which the notes say."""
    from .locales import load_locale, locale_folders

    out: list[ContentError] = []
    for folder in locale_folders(root):
        translated = load_locale(folder, content, out)
        if not (i18n.HERE / f"{folder.name}.json").is_file():
            notes.append(
                f"{folder}: no UI catalogue lesson/messages/{folder.name}.json, so ?lang={folder.name} cannot pick "
                "these lessons"
            )
        if not translated:
            continue
        mixed = content.model_copy(update={"lessons": [translated.get(x.meta.slug, x) for x in content.lessons]})
        for lesson in translated.values():
            out.extend(check_messages(lesson))
            quiz = content.quizzes.get(lesson.meta.slug)
            ids = anchors(mixed, lesson)
            lost = sorted(
                {
                    q.see[1:]
                    for q in (quiz.questions if quiz else [])
                    if q.see and q.see[1:] not in ids and q.see.startswith("#")
                }
            )
            if lost:
                notes.append(
                    f"{lesson.source}: the quick check's feedback links to {', '.join('#' + x for x in lost)}, "
                    "which this translation has no section for (those links open the page at its top)"
                )
        out.extend(p for p in check_links(mixed) if p.path.is_relative_to(folder))
    return out


def check_catalogues(folder: Path | None = None) -> tuple[list[ContentError], list[str]]:
    """The translated UI catalogues against English: every placeholder as English has it, no key English
    lacks, valid JSON (the server falls back to English for each of these, but the translation is lost).
    The notes say, per locale, how many messages are still English."""
    folder = folder or i18n.HERE
    english_path = folder / f"{i18n.DEFAULT}.json"
    try:
        english = json.loads(english_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [
            ContentError(english_path, getattr(exc, "lineno", None), f"the English catalogue does not load: {exc}")
        ], []
    errors, notes = [], []
    for path in sorted(folder.glob("*.json")):
        if path.stem == i18n.DEFAULT:
            continue
        found, missing = i18n.catalogue_problems(path, english)
        errors += [ContentError(p.path, p.line, p.message) for p in found]
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            notes.append(
                f"{path}: {len(missing)} of {len(english)} messages not translated (shown in English): {shown}"
            )
    return errors, notes


__all__ = [
    "check_catalogues",
    "check_locales",
]
