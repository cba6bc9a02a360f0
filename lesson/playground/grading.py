"""Quick-check grading, the same wherever an answer comes from (the page's JSON, the no-script form, a
portal's launch): a choice against the key, a task's log by replaying it (``tasks.py``). Which answer
scores (the first to a choice question; a task's latest log, or an earlier one that did the task when
the latest does not) is the caller's to keep; this says whether an answer is right and what a set of
answers scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lesson.content.models import Content, Question

from .tasks import Grader, TaskLogError


@dataclass(frozen=True)
class Grading:
    """Grading over one load of the course (its content and panels), with the grader that remembers
    recent task verdicts. Made per request from the app's current content, so a reload is seen at once."""

    content: Content
    panels: dict[str, Any]
    grader: Grader

    def grade_task(self, slug: str, question: Question, log: str) -> bool:
        """Whether a task's log does what the question asks, by replaying it; raises TaskLogError (with a
        code and a reason) for a log that cannot be checked."""
        assert question.task is not None
        return self.grader.grade(f"{slug}/{question.id}", question.task, self.panels, log)

    def verdict(self, slug: str, question: Question, given: str) -> bool | None:
        """Whether an answer is right: a choice against the key, a task's log by replaying it. None when it
        cannot be graded, and then counts as not answered: a task's log that cannot be replayed, or an id
        that is none of the question's choices (one a page held from an earlier version of it)."""
        if question.task is None:
            if given not in {c.id for c in question.choices or []}:
                return None
            return given == question.answer
        try:
            return self.grade_task(slug, question, given)
        except TaskLogError:
            return None

    def score(self, slug: str, answers: Mapping[str, str]) -> dict[str, int]:
        """Score answers against the lesson's quick check; the answers may come from the page, the key
        never does."""
        quiz = self.content.quizzes.get(slug)
        if quiz is None:
            return {"answered": 0, "correct": 0, "total": 0}
        known = {q.id: q for q in quiz.questions}
        verdicts = [self.verdict(slug, known[q], a) for q, a in answers.items() if q in known]
        return {
            "answered": sum(1 for v in verdicts if v is not None),
            "correct": sum(1 for v in verdicts if v),
            "total": len(quiz.questions),
        }


__all__ = ["Grading"]
