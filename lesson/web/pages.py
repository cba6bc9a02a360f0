"""Page routes: the course index, the lessons, and the quick checks (JSON and plain form)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, session, url_for

bp = Blueprint("pages", __name__)


def _state():
    from . import lesson_state

    return lesson_state()


def _answers(slug: str) -> dict[str, str]:
    return dict(session.get("quiz", {}).get(slug, {}))


def score(slug: str) -> dict[str, int]:
    quiz = _state().content.quizzes.get(slug)
    if quiz is None:
        return {"answered": 0, "correct": 0, "total": 0}
    answers = _answers(slug)
    known = {q.id: q.answer for q in quiz.questions}
    return {
        "answered": sum(1 for q in answers if q in known),
        "correct": sum(1 for q, a in answers.items() if known.get(q) == a),
        "total": len(quiz.questions),
    }


def _record(slug: str, qid: str, choice: str) -> tuple[Any, Any]:
    content = _state().content
    quiz = content.quizzes.get(slug)
    if quiz is None:
        abort(404)
    question = next((q for q in quiz.questions if q.id == qid), None)
    if question is None:
        abort(404)
    if choice not in {c.id for c in question.choices}:
        return question, None
    progress = dict(session.get("quiz", {}))
    progress[slug] = {**progress.get(slug, {}), qid: choice}
    session["quiz"] = progress
    return question, choice


@bp.after_app_request
def _headers(resp: Response) -> Response:
    ancestors = current_app.config["FRAME_ANCESTORS"]
    resp.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors {ancestors}",
    )
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    return resp


@bp.get("/")
def index() -> str:
    content = _state().content
    return render_template(
        "index.html",
        lessons=content.lessons,
        scores={item.meta.slug: score(item.meta.slug) for item in content.lessons},
    )


@bp.get("/lessons/<slug>")
def lesson(slug: str) -> str:
    state = _state()
    item = state.content.lesson(slug)
    if item is None:
        abort(404)
    lessons = state.content.lessons
    n = lessons.index(item)
    return render_template(
        "lesson.html",
        lesson=item,
        quiz=state.content.quizzes.get(slug),
        answers=_answers(slug),
        score=score(slug),
        panels=state.panels,
        steppers=state.steppers,
        prev=lessons[n - 1] if n > 0 else None,
        next=lessons[n + 1] if n + 1 < len(lessons) else None,
        form_error=request.args.get("error"),
    )


@bp.post("/lessons/<slug>/quiz/<qid>")
def answer_form(slug: str, qid: str) -> Response:
    """The quick check without JavaScript: a plain form POST, then back to the question."""
    question, choice = _record(slug, qid, request.form.get("choice", ""))
    target = url_for("pages.lesson", slug=slug, _anchor=f"q-{qid}")
    if choice is None:
        target = url_for("pages.lesson", slug=slug, error=qid, _anchor=f"q-{qid}")
    return redirect(target, code=303)


@bp.post("/api/quiz/<slug>/<qid>")
def answer_json(slug: str, qid: str) -> tuple[Response, int] | Response:
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("choice"), str):
        return jsonify(error='send a JSON object like {"choice": "a"}'), 400
    question, choice = _record(slug, qid, data["choice"])
    if choice is None:
        return jsonify(error=f"{data['choice']!r} is not one of this question's choices"), 400
    return jsonify(
        question=qid,
        choice=choice,
        correct=choice == question.answer,
        answer=question.answer,
        explanation=question.explanation,
        score=score(slug),
    )


@bp.get("/healthz")
def healthz() -> Response:
    return jsonify(ok=True)


@bp.app_errorhandler(404)
def not_found(_err: Exception) -> tuple[str, int]:
    return render_template("404.html"), 404
