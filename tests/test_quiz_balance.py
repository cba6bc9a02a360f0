"""The quick checks cannot be passed by picking the longest answer: in every question the right
choice is not strictly the longest, and no choice is so short (or long) that it stands out. The
explanation covers the wrong choices too, so it is not shorter than the choices it explains."""

from __future__ import annotations

import pytest

from lesson.content import default_root, load_content

QUESTIONS = [
    pytest.param(quiz_slug, q, id=f"{quiz_slug}/{q.id}")
    for quiz_slug, quiz in load_content(default_root()).quizzes.items()
    for q in quiz.questions
    if q.choices is not None  # a task question has no choices to balance
]

# The shortest choice is at least this share of the longest: a lone short or long choice is a tell.
COMPARABLE = 0.7


@pytest.mark.parametrize(("slug", "question"), QUESTIONS)
def test_the_right_answer_is_not_the_longest(slug: str, question) -> None:
    lengths = {c.id: len(c.text) for c in question.choices}
    right = lengths[question.answer]
    others = [n for cid, n in lengths.items() if cid != question.answer]
    assert right <= max(others), f"{slug}/{question.id}: the right choice is the longest ({lengths})"


@pytest.mark.parametrize(("slug", "question"), QUESTIONS)
def test_choices_are_of_comparable_length(slug: str, question) -> None:
    lengths = [len(c.text) for c in question.choices]
    assert min(lengths) >= COMPARABLE * max(lengths), f"{slug}/{question.id}: choice lengths {lengths}"


@pytest.mark.parametrize(("slug", "question"), QUESTIONS)
def test_the_explanation_covers_more_than_the_right_choice(slug: str, question) -> None:
    # One sentence for the right answer and at least one for the wrong ones.
    sentences = [s for s in question.explanation.replace("; ", ". ").split(". ") if s.strip()]
    assert len(sentences) >= len(question.choices) - 1, f"{slug}/{question.id}: {len(sentences)} sentences"
