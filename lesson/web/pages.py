"""Page routes: the course index, the lessons, and the quick checks (JSON and plain form)."""

from __future__ import annotations

import os
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, session, url_for
from werkzeug.exceptions import BadRequest, MethodNotAllowed, NotFound

from lesson.playground.grading import Grading
from lesson.playground.tasks import Grader, TaskLogError

from .guard import error_answer, json_body, security_headers
from .state import lesson_state
from .strings import localized

bp = Blueprint("pages", __name__)
MAX_ANSWERS = 50
MAX_STATEMENTS = 20
NO_QUIZ = "this lesson has no quick check"
NO_QUESTION = "this lesson's quick check has no such question"


def kept(key: str) -> dict[str, dict[str, str]]:
    """What the session cookie keeps under ``key``, by lesson: answers by question. A cookie of another
    shape (another app's on this host, an older version's) holds nothing, rather than failing the page."""
    held = session.get(key)
    if not isinstance(held, dict):
        return {}
    return {
        slug: {q: a for q, a in answers.items() if isinstance(q, str) and isinstance(a, str)}
        for slug, answers in held.items()
        if isinstance(slug, str) and isinstance(answers, dict)
    }


def _answers(slug: str) -> dict[str, str]:
    """The answers that score: the first one given to each question."""
    return kept("quiz").get(slug, {})


def _seen(slug: str) -> dict[str, str]:
    """The choice checked last on each question, whose explanation the page shows (the no-JavaScript form)."""
    return kept("quiz_seen").get(slug, {})


def grading() -> Grading:
    """Grading over the app's content as loaded now, with the app's memory of task verdicts."""
    state = lesson_state()
    grader = current_app.extensions.get("quiz_tasks")
    if grader is None:
        grader = current_app.extensions.setdefault("quiz_tasks", Grader())
    return Grading(state.content, state.panels, grader)


def task_log_refused(exc: Any) -> tuple[Response, int]:
    """The 400 for a task log that cannot be checked: its code and reason, as the page words them."""
    return _refused(exc.code, f"this playground log cannot be checked: {exc}", **exc.params)


def score(slug: str) -> dict[str, int]:
    """The score of the answers the session cookie holds."""
    return grading().score(slug, _answers(slug))


def _page_answers(data: dict[str, Any]) -> dict[str, str]:
    """The answers a page holds, kept only where they are well-formed."""
    held = data.get("answers")
    if not isinstance(held, dict):
        return {}
    return {q: a for q, a in list(held.items())[:MAX_ANSWERS] if isinstance(q, str) and isinstance(a, str)}


def _record(slug: str, qid: str, choice: str) -> tuple[Any, Any]:
    question = _question(slug, qid)
    if question.task is not None or choice not in {c.id for c in question.choices or []}:
        return question, None  # a task is answered in its playground, which needs the page's script
    # The first answer is the one that scores; a later one is kept only to show its explanation.
    progress = kept("quiz")
    progress[slug] = {qid: choice, **progress.get(slug, {})}
    session["quiz"] = progress
    seen = kept("quiz_seen")
    seen[slug] = {**seen.get(slug, {}), qid: choice}
    session["quiz_seen"] = seen
    return question, choice


@bp.after_app_request
def _headers(resp: Response) -> Response:
    return security_headers(resp)


@bp.app_errorhandler(413)
def _too_large(err: Exception) -> Response:
    """A body over LESSON_MAX_CONTENT_LENGTH: said in the shape the caller reads, not as an HTML page."""
    return error_answer(f"the request body is over the limit of {current_app.config['MAX_CONTENT_LENGTH']} bytes", 413)


@bp.get("/")
def index() -> str:
    content = lesson_state().content
    return render_template(
        "index.html",
        lessons=[localized(item) for item in content.lessons],
        scores={item.meta.slug: score(item.meta.slug) for item in content.lessons},
        reference=content.reference,
    )


@bp.get("/reference")
def reference() -> str:
    """The long material the lessons link to: every message of both eras, the rules in detail."""
    content = lesson_state().content
    if content.reference is None:
        abort(404)
    embed = _embed_asked()
    return render_template("reference.html", page=content.reference, embed=embed)


@bp.get("/glossary")
def glossary() -> str:
    """Every protocol term the lessons use, each with its anchor (``/glossary#<id>``) for their links."""
    content = lesson_state().content
    if content.glossary is None:
        abort(404)
    # In a portal's frame there is no site header: a link back to the lesson the learner came from.
    back = content.lesson(request.args.get("from", ""))
    return render_template("glossary.html", glossary=content.glossary, back=back, embed=_embed_asked())


@bp.get("/lessons/<slug>")
def lesson(slug: str, embed: bool | None = None) -> str:
    """A lesson page; ``?embed=1`` (or ``/embed/<slug>``) leaves out the site's header, footer and
    lesson links, for a lesson shown in another site's iframe."""
    if embed is None:
        embed = _embed_asked()
    state = lesson_state()
    item = state.content.lesson(slug)
    if item is None:
        former = state.content.former(slug)
        if former is None:
            abort(404)
        # An old share link or a portal still framing a lesson that was split: where each part went.
        return render_template("moved.html", former=former, lessons=state.content.lessons, embed=embed)
    lessons = state.content.lessons
    n = lessons.index(item)
    item = localized(item)
    return render_template(
        "lesson.html",
        **lesson_context(item, _answers(slug), _seen(slug), score(slug)),
        prev=localized(lessons[n - 1]) if n > 0 else None,
        next=localized(lessons[n + 1]) if n + 1 < len(lessons) else None,
        form_error=request.args.get("error"),
        embed=embed,
    )


def _lands_on(address: str, slug: str) -> bool:
    return address.partition("#")[0] == f"/lessons/{slug}"


def lesson_context(item: Any, answers: dict[str, str], seen: dict[str, str], score: Any) -> dict[str, Any]:
    """What a lesson page's template needs of the lesson itself (the site's page and a portal's launch)."""
    slug = item.meta.slug
    state = lesson_state()
    return {
        # Former lessons with a part here: a progress file saved on one of them is loaded for that part.
        "former": [m.slug for m in state.content.moved if any(_lands_on(p.to, slug) for p in m.parts)],
        # Its playground panels: a page without one is sent none of their scripts.
        "playgrounds": [p for p in item.panels if getattr(state.panels.get(p), "kind", "") == "playground"],
        # And whether one of them asks a prediction: a page without one is not sent that script either.
        "predictions": any(getattr(state.panels.get(p), "predictions", None) for p in item.panels),
        "lesson": item,
        "quiz": state.content.quizzes.get(slug),
        "answers": answers,
        "seen": seen,
        "sections": {t.id: t.title for t in item.toc},
        "score": score,
        "panels": state.panels,
        "lesson_iri": lesson_iri(slug),
    }


def lesson_iri(slug: str) -> str:
    """The lesson's public address, naming it in xAPI statements however it is embedded."""
    public = current_app.config.get("PUBLIC_URL")
    if public:
        return f"{str(public).rstrip('/')}/lessons/{slug}"
    return url_for("pages.lesson", slug=slug, _external=True)


def _about_this_course(statement: Any, lessons: list[str], course: str) -> bool:
    """Whether a statement names this course's activities, each in its role: its object a lesson or a part
    of one, its context's parent a lesson, its grouping the course."""
    if not any(statement.object.id == iri or statement.object.id.startswith(f"{iri}/") for iri in lessons):
        return False
    activities = statement.context.contextActivities if statement.context else None
    if activities is None:
        return True
    parents = [ref.id for ref in activities.parent or []]
    groupings = [ref.id for ref in activities.grouping or []]
    return all(p in lessons for p in parents) and all(g == course for g in groupings)


def course_iri() -> str:
    """The course's IRI in xAPI statements (their context's grouping): the site's root, where the lessons'
    IRIs hang (``static/js/embed.js`` takes it from the lesson's IRI in the same way)."""
    public = current_app.config.get("PUBLIC_URL")
    return f"{str(public).rstrip('/')}/" if public else url_for("pages.index", _external=True)


@bp.get("/embed/<slug>")
def embedded(slug: str) -> str:
    return lesson(slug, embed=True)


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
    """Grade one answer: ``{"choice": id}``, or ``{"log": line}`` for a task (the playground's log as
    the page holds it, replayed here). The page may send the answers it holds (``answers``), so the
    score survives a restart, another worker or a lost cookie; they are graded here, never trusted."""
    data = json_body()
    question = _question(slug, qid)
    if question.task is not None:
        return _answer_task(slug, question, data)
    if not isinstance(data, dict) or not isinstance(data.get("choice"), str):
        return _refused("needs_choice", 'send a JSON object like {"choice": "a"}')
    before = _answers(slug)  # read before this answer is recorded
    question, choice = _record(slug, qid, data["choice"])
    if choice is None:
        return _refused("unknown_choice", f"{data['choice'][:40]!r} is not one of this question's choices")
    held = {**before, **_page_answers(data)}
    # The first answer scores. One already held (by the page or the cookie) stays; a valid one, that is:
    # a held answer that is not a choice of this question was never graded, so this one is the first.
    first = held.get(qid) not in {c.id for c in question.choices or []}
    if first:
        held[qid] = choice
    grade = grading()
    return jsonify(
        question=qid,
        choice=choice,
        correct=grade.verdict(slug, question, choice),
        answer=question.answer,
        explanation=question.explanation,
        see=_see(slug, question),
        counted=first,
        scored=held[qid],
        scored_correct=grade.verdict(slug, question, held[qid]),
        score=grade.score(slug, held),
    )


def _see(slug: str, question: Any) -> dict[str, str] | None:
    """Where the lesson explains a question, for the link under its feedback: the address and the
    section's title (the address itself when it names no section)."""
    if question.see is None:
        return None
    content = lesson_state().content
    target_slug, _, fragment = question.see.removeprefix("/lessons/").partition("#")
    target = content.lesson(slug if question.see.startswith("#") else target_slug)
    titles = {t.id: t.title for t in target.toc} if target else {}
    href = question.see if question.see.startswith("#") else request.script_root + question.see
    return {"href": href, "title": titles.get(fragment, question.see)}


def _question(slug: str, qid: str) -> Any:
    quiz = lesson_state().content.quizzes.get(slug)
    question = next((q for q in quiz.questions if q.id == qid), None) if quiz else None
    if question is None:
        abort(404, NO_QUESTION if quiz else NO_QUIZ)
    return question


def _refused(code: str, error: str, **params: Any) -> tuple[Response, int]:
    """A 400 for an answer that cannot be graded: ``code`` names the page's message for it (the catalogue's
    ``js.quiz.refused.<code>``, filled with ``params``), ``error`` says it in English for logs and API
    clients."""
    return jsonify(error=error, code=code, params=params), 400


def _task_result(question: Any, correct: bool) -> dict[str, Any]:
    """What the page shows for a checked task: the explanation once done, the hint until then."""
    if correct:
        return {"correct": True, "task": True, "explanation": question.explanation}
    return {"correct": False, "task": True, "hint": question.hint}


def _answer_task(slug: str, question: Any, data: Any) -> tuple[Response, int] | Response:
    if not isinstance(data, dict) or not isinstance(data.get("log"), str):
        wanted = '{"log": "<panel>:<era>:<variant>:<presses>"}'
        return _refused("needs_log", f"this question is done in a playground: send {wanted}")
    quiz_grading = grading()
    try:
        # Anything else the page sends about this question (a "correct" of its own) is not read.
        correct = quiz_grading.grade_task(slug, question, data["log"])
    except TaskLogError as exc:
        return task_log_refused(exc)
    held = {**_answers(slug), **_page_answers(data)}
    earlier = held.get(question.id)
    if not correct and earlier is not None and earlier != data["log"] and quiz_grading.verdict(slug, question, earlier):
        # Done once, the task stays done: the playground has moved on since, which the page says, but the
        # log that did it is kept as the answer (graded again here, like every held answer).
        return jsonify(
            question=question.id,
            choice=earlier,
            see=_see(slug, question),
            kept=True,
            score=quiz_grading.score(slug, held),
            **_task_result(question, True),
        )
    held[question.id] = data["log"]
    return jsonify(
        question=question.id,
        choice=data["log"],
        see=_see(slug, question),
        score=quiz_grading.score(slug, held),
        **_task_result(question, correct),
    )


@bp.post("/api/quiz/<slug>")
def grade_json(slug: str) -> tuple[Response, int] | Response:
    """Grade the answers a page holds (after a reload): each verdict and the score."""
    quiz = lesson_state().content.quizzes.get(slug)
    if quiz is None:
        abort(404, NO_QUIZ)
    data = json_body()
    if not isinstance(data, dict) or not isinstance(data.get("answers", {}), dict):
        return jsonify(error='send a JSON object like {"answers": {"q1": "a"}}'), 400
    held = _page_answers(data)
    quiz_grading = grading()
    results: dict[str, dict[str, Any]] = {}
    for q in quiz.questions:
        given = held.get(q.id)
        if given is None:
            continue
        if q.task is not None:
            correct = quiz_grading.verdict(slug, q, given)
            if correct is not None:
                results[q.id] = {"choice": given, "see": _see(slug, q), **_task_result(q, correct)}
        elif given in {c.id for c in q.choices or []}:
            results[q.id] = {
                "choice": given,
                "correct": given == q.answer,
                "answer": q.answer,
                "explanation": q.explanation,
                "see": _see(slug, q),
            }
    return jsonify(results=results, score=quiz_grading.score(slug, {q: r["choice"] for q, r in results.items()}))


@bp.post("/api/xapi")
def statements() -> tuple[Response, int]:
    """Statements from the page, validated, written to the outbox for the learning record store (when
    one is configured) and answered at once: a slow or absent store never holds up the lesson."""
    from pydantic import ValidationError

    from lesson.portal import xapi

    forwarder = current_app.extensions.get("lrs")
    if forwarder is None:
        return jsonify(error="no learning record store is configured"), 404
    data = json_body()
    items = data if isinstance(data, list) else [data]
    if not items or len(items) > MAX_STATEMENTS:
        return jsonify(error=f"send one statement or a list of 1 to {MAX_STATEMENTS}"), 400
    try:
        checked = [xapi.validate_statement(item) for item in items]
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "statement"
        return jsonify(error=f"not a statement this lesson sends: {where}: {first['msg']}"), 400
    # The store trusts this server's credentials: what it forwards is about this course's lessons only.
    ours, course = [lesson_iri(item.meta.slug) for item in lesson_state().content.lessons], course_iri()
    for i, statement in enumerate(checked):
        if not _about_this_course(statement, ours, course):
            where = f"{i}.object.id" if isinstance(data, list) else "object.id"
            where += " or its context"
            why = "not one of this course's activities"
            return jsonify(error=f"not a statement this lesson sends: {where}: {why}"), 400
    queued = forwarder.submit_many(checked)  # in the outbox, on disk, before the answer
    return jsonify(queued=queued, dropped=len(checked) - queued), 202


@bp.get("/healthz")
def healthz() -> Response:
    # The worker's process id lets the replica tests see which process answered; the outbox's
    # depth, oldest age and given-up count are the whole deployment's (one store for all).
    box = current_app.extensions.get("outbox")
    if box is None:
        return jsonify(ok=True, worker=os.getpid())
    return jsonify(ok=True, worker=os.getpid(), outbox=box.stats())


def _embed_asked() -> bool:
    """``?embed=1`` (any value but empty, 0 or false): the page is framed by a portal."""
    return request.args.get("embed", "") not in ("", "0", "false")


@bp.app_errorhandler(400)
def bad_request(err: BadRequest) -> Any:
    """A request werkzeug cannot read (a malformed chunk on the one-process server): JSON under /api,
    like every other answer there."""
    if request.path.startswith("/api/"):
        return error_answer(f"the request could not be read: {err.description}", 400)
    return err


@bp.app_errorhandler(405)
def wrong_method(err: MethodNotAllowed) -> Response:
    """A method an address does not take, in words, with ``Allow`` (JSON under ``/api/``)."""
    allowed = ", ".join(sorted(err.valid_methods or ()))
    resp = error_answer(f"{request.method[:20]} is not allowed here; this address takes {allowed}", 405)
    resp.headers["Allow"] = allowed
    return resp


@bp.app_errorhandler(404)
def not_found(err: NotFound) -> tuple[str, int] | tuple[Response, int]:
    if request.path.startswith("/api/"):  # a page's own call reads a JSON error, as from the rest of /api
        said = err.description if err.description != NotFound.description else f"no such address: {request.path[:200]}"
        return jsonify(error=said), 404
    # Inside a portal's frame (an /embed/ address or ?embed=1) the page keeps to the frame: no site
    # header, and no link that would take the frame to the site's own index.
    embed = request.path.startswith("/embed/") or _embed_asked()
    return render_template("404.html", embed=embed), 404
