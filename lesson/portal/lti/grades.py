"""A launched learner's answers, kept for the course's gradebook, and the score queued for it.

Each question's first answer counts, per attempt; an attempt ends once every question has one. Its
score (right answers out of the questions, the quick check's own count) goes to the link's line item
when it is the learner's first or, with retakes allowed, beats their best. Sending is the outbox's:
stored before the page is answered, delivered by a background sender, retried while the platform is
down (``lesson.portal.lti.sender``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from .tool import Tool, log

KIND = "lti-score"


def learner_key(launch: dict[str, Any]) -> str:
    """One learner on one link of one platform's deployment."""
    return json.dumps([launch[k] for k in ("iss", "client_id", "deployment_id", "resource_link", "sub")])


def record(tool: Tool, launch: dict[str, Any], question: str, choice: str, correct: bool, total: int) -> dict[str, Any]:
    learner = learner_key(launch)
    attempt, verdicts, kept = tool.cache.record_answer(learner, question, choice, correct, total, launch["retakes"])
    right = sum(verdicts.values())
    complete = len(verdicts) >= total
    queued = False
    if kept and complete and tool.cache.better(learner, right / total):
        queued = enqueue_score(launch, right, total)
    return {
        "attempt": attempt,
        "answered": len(verdicts),
        "correct": right,
        "total": total,
        "complete": complete,
        "kept": kept,
        "queued": queued,
    }


def score_payload(launch: dict[str, Any], correct: int, total: int) -> dict[str, Any]:
    """What goes to the line item (AGS score), with what the sender needs to reach it. The timestamp
    is the attempt's end: a platform keeps the newest score, so a resend after a crash changes nothing."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        "iss": launch["iss"],
        "client_id": launch["client_id"],
        "lineitem": launch["lineitem"],
        "score": {
            "userId": launch["sub"],
            "scoreGiven": correct,
            "scoreMaximum": total,
            "activityProgress": "Completed",
            "gradingProgress": "FullyGraded",
            "timestamp": now,
        },
    }


def enqueue_score(launch: dict[str, Any], correct: int, total: int) -> bool:
    """The one place a score is queued for the platform. True once stored for sending."""
    from flask import current_app

    from .. import outbox

    stored = outbox.for_app(current_app).put(KIND, launch["lineitem"], score_payload(launch, correct, total))
    if not stored:
        log.warning("LTI score for line item %s could not be queued (the outbox refused it)", launch["lineitem"])
    return bool(stored)
