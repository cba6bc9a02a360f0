"""The sizes a lesson is held to, and its time estimate.

``lesson check`` holds the content to these limits (a lesson's prose in view at load, its playgrounds,
quiz feedback, choice lengths, glossary definitions); the pages show the time estimate computed from a
lesson's words, panels and questions.
"""

from __future__ import annotations

import math

# The time estimate: reading at about 200 words a minute, plus minutes for each panel and question.
WORDS_PER_MINUTE = 200
MINUTES_PER_PANEL = 3
MINUTES_PER_QUESTION = 1
MINUTES_PER_TASK = 2
# One idea a lesson: its prose in view at load (disclosures closed) and its playgrounds stay small.
MAX_VISIBLE_WORDS = 900
MAX_PANELS = 2
# Quiz feedback (an explanation, a task's hint) is read at a glance after an answer: about 40 words.
MAX_FEEDBACK_WORDS = 40
# A choice question cannot be passed by length: the shortest choice is at least this share of the longest.
MIN_CHOICE_SHARE = 0.7
# Across the course's choice questions (once it has RIGHT_PLACE_FROM of them), no one place in the list of
# choices holds the right one more than this share of the time: always picking it would pass.
MAX_RIGHT_PLACE_SHARE = 0.5
RIGHT_PLACE_FROM = 6
# A glossary definition is read in passing, from a link in the middle of a lesson.
MAX_DEFINITION_WORDS = 45
# A walk-through's moment is read beside the changes it explains, in a bar at the foot of a phone's screen.
MAX_NARRATION_WORDS = 30


def word_count(text: str) -> int:
    return len(text.split())


def estimate_minutes(words: int, panels: int, questions: int, tasks: int) -> int:
    """A lesson's time: its prose at WORDS_PER_MINUTE, plus MINUTES_PER_PANEL for each panel, and
    MINUTES_PER_QUESTION for each choice question and MINUTES_PER_TASK for each task of its quick check;
    rounded up, at least one minute."""
    total = (
        words / WORDS_PER_MINUTE
        + MINUTES_PER_PANEL * panels
        + MINUTES_PER_QUESTION * (questions - tasks)
        + MINUTES_PER_TASK * tasks
    )
    return max(1, math.ceil(total))


__all__ = [
    "WORDS_PER_MINUTE",
    "MINUTES_PER_PANEL",
    "MINUTES_PER_QUESTION",
    "MINUTES_PER_TASK",
    "MAX_VISIBLE_WORDS",
    "MAX_PANELS",
    "MAX_FEEDBACK_WORDS",
    "MIN_CHOICE_SHARE",
    "MAX_RIGHT_PLACE_SHARE",
    "RIGHT_PLACE_FROM",
    "MAX_DEFINITION_WORDS",
    "MAX_NARRATION_WORDS",
    "word_count",
    "estimate_minutes",
]
