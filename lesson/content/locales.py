"""Lessons translated per locale: ``content/locales/<locale>/lessons/*.md``, page by page.

A translated lesson has the same slug as the English one it translates, and shows the same panels and quick
check (their YAML stays in ``panels/`` and ``quizzes/``, shared by every language). A lesson with no
translation, or whose translation does not load, is shown in English: a language can be added one page at a
time. ``lesson check`` reports every problem of a translation; the server logs them and serves English.
"""

from __future__ import annotations

from pathlib import Path

from lesson.sim.spelling import did_you_mean

from .course import _parse_lesson, lesson_minutes
from .models import Content, Lesson
from .yamlfile import ContentError

FOLDER = "locales"


def locale_folders(root: Path) -> list[Path]:
    """Every ``locales/<locale>`` folder under the content root."""
    base = Path(root) / FOLDER
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


def load_locale(folder: Path, english: Content, problems: list[ContentError]) -> dict[str, Lesson]:
    """The translated lessons of one locale folder, by slug; each problem is recorded, and a lesson that
    has one is left out (its page stays English)."""
    out: dict[str, Lesson] = {}
    slugs = [x.meta.slug for x in english.lessons]
    for path in sorted((folder / "lessons").glob("*.md")):
        found: list[ContentError] = []
        parsed = _parse_lesson(path, found, locale=folder.name)
        if parsed is not None and not found:
            lesson, front = parsed.lesson, parsed.front
            original = english.lesson(lesson.meta.slug)
            if original is None:
                found.append(
                    ContentError(
                        path,
                        front.line(("slug",)),
                        f"there is no English lesson {lesson.meta.slug!r} to translate ({', '.join(slugs)})"
                        + did_you_mean(lesson.meta.slug, slugs),
                    )
                )
            else:
                if lesson.meta.order != original.meta.order:
                    found.append(
                        ContentError(
                            path,
                            front.line(("order",)),
                            f"order {lesson.meta.order} differs from the English lesson's ({original.meta.order})",
                        )
                    )
                if sorted(lesson.widgets) != sorted(original.widgets):
                    found.append(
                        ContentError(
                            path,
                            None,
                            f"shows {', '.join(lesson.widgets) or 'no panels'}, but the English lesson shows "
                            f"{', '.join(original.widgets) or 'none'}: a translation shows the same panels and quiz",
                        )
                    )
                if lesson.meta.slug in out:
                    found.append(ContentError(path, front.line(("slug",)), f"slug {lesson.meta.slug!r} is used twice"))
        if found:
            problems.extend(found)
            continue
        assert parsed is not None
        lesson = parsed.lesson
        out[lesson.meta.slug] = lesson.model_copy(update={"minutes": lesson_minutes(lesson, english.quizzes)})
    return out


def load_locales(root: Path, english: Content, problems: list[ContentError]) -> dict[str, dict[str, Lesson]]:
    """Every locale's translated lessons: locale -> slug -> lesson."""
    return {folder.name: load_locale(folder, english, problems) for folder in locale_folders(root)}


__all__ = ["FOLDER", "load_locale", "load_locales", "locale_folders"]
