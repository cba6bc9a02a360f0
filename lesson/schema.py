"""``lesson schema``: JSON Schemas of the content files, generated from the pydantic models.

Editors use them to validate and complete YAML (each content file points at its schema on its first
line); ``content/schema/`` holds the committed copies, and a test checks they are current.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from .content import Glossary, LessonMeta, Quiz
from .panels import Panel
from .scripts import Script

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema, for every kind of content file."""
    made = {
        "lesson-front-matter.schema.json": (
            LessonMeta.model_json_schema(),
            "Lesson front matter",
            "The YAML between the '---' lines at the top of content/lessons/*.md.",
        ),
        "quiz.schema.json": (Quiz.model_json_schema(), "Quiz", "content/quizzes/<lesson slug>.yaml"),
        "glossary.schema.json": (
            Glossary.model_json_schema(),
            "Glossary",
            "content/glossary.yaml: every protocol term the lessons use, each defined once.",
        ),
        "panel.schema.json": (
            TypeAdapter(Panel).json_schema(),
            "Panel",
            "content/panels/<id>.yaml: an interactive panel, shown by a '::: <id>' line in a lesson.",
        ),
        "scenario.schema.json": (
            Script.model_json_schema(),
            "Scenario",
            "content/scenarios/<id>.yaml: a start, scripted presses and narration for each step.",
        ),
    }
    return {
        name: {
            "$schema": DRAFT,
            "title": title,
            "description": description,
            **{k: v for k, v in s.items() if k != "title"},
        }
        for name, (s, title, description) in made.items()
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write(out: Path) -> list[Path]:
    """Write every schema into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = out / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def stale(out: Path) -> list[str]:
    """The schema files in ``out`` that are missing or differ from what the models generate."""
    return [
        name
        for name, schema in schemas().items()
        if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != render(schema)
    ]


__all__ = ["schemas", "stale", "write"]
