"""The quick checks as a page without JavaScript gets them: plain forms the server answers with a
redirect to the question, then the page drawn again with the verdicts, the score, the first answers
checked, and the index's progress. The shipped lessons' quizzes, from content/quizzes/*.yaml."""

from __future__ import annotations

import html
import re
from pathlib import Path

import yaml

from lesson.i18n import translate

QUIZZES = Path(__file__).resolve().parents[2] / "content" / "quizzes"
LESSON = "/lessons/list-changed"


def load(slug: str) -> list[dict]:
    return yaml.safe_load((QUIZZES / f"{slug}.yaml").read_text())["questions"]


def text(markup: str) -> str:
    """What a reader reads of some markup: tags dropped, entities and whitespace as one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def form(page: str, qid: str) -> str:
    """One question's form in the page."""
    found = re.search(rf'<form[^>]*id="q-{re.escape(qid)}".*?</form>', page, re.S)
    assert found, f"no form for question {qid!r}"
    return found.group(0)


def feedback(page: str, qid: str) -> str:
    found = re.search(r'data-role="feedback"[^>]*>(.*?)</div>', form(page, qid), re.S)
    assert found, f"no feedback region for question {qid!r}"
    return text(found.group(1))


def checked(page: str, qid: str) -> list[str]:
    return re.findall(r'name="choice" value="(\w+)" checked', form(page, qid))


def choice_text(q: dict, choice_id: str) -> str:
    return next(c["text"] for c in q["choices"] if c["id"] == choice_id)


def wrong_choice(q: dict) -> str:
    return next(c["id"] for c in q["choices"] if c["id"] != q["answer"])


def score(correct: int, total: int, answered: int) -> str:
    return translate("en", "quiz.score", correct=correct, total=total, answered=answered)


def test_a_quiz_answered_with_plain_forms(client) -> None:
    questions = load("list-changed")
    total = len(questions)
    q1, q2 = questions[0], questions[1]
    page = client.get(LESSON).get_data(as_text=True)
    assert score(0, total, 0) in page
    # The playgrounds need JavaScript: their buttons are served disabled.
    assert re.search(r"<button[^>]*disabled[^>]*>Take a model turn</button>", page)

    # No choice: the server sends the page back with the message at that question.
    resp = client.post(f"{LESSON}/quiz/{q1['id']}", data={})
    assert resp.status_code == 303 and resp.headers["Location"] == f"{LESSON}?error={q1['id']}#q-{q1['id']}"
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert feedback(page, q1["id"]) == translate("en", "quiz.missing")

    resp = client.post(f"{LESSON}/quiz/{q1['id']}", data={"choice": q1["answer"]})
    assert resp.status_code == 303 and resp.headers["Location"] == f"{LESSON}#q-{q1['id']}"
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    said = feedback(page, q1["id"])
    assert said.startswith(translate("en", "quiz.right")) and text(q1["explanation"]) in said
    assert translate("en", "quiz.missing") not in said
    assert f'href="{q1["see"]}"' in form(page, q1["id"])
    assert score(1, total, 1) in page

    resp = client.post(f"{LESSON}/quiz/{q2['id']}", data={"choice": wrong_choice(q2)})
    assert resp.headers["Location"].endswith(f"#q-{q2['id']}")
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    said = feedback(page, q2["id"])
    assert said.startswith(translate("en", "quiz.wrong"))
    assert translate("en", "quiz.the_answer", answer=text(choice_text(q2, q2["answer"]))) in said
    # The right choice is marked in the list, and only it.
    mark = r'value="(\w+)"[^>]*>[^<]*<span data-content>[^<]*</span><span class="answer-mark"'
    marked = re.findall(mark, form(page, q2["id"]))
    assert marked == [q2["answer"]]
    assert feedback(page, q1["id"]).startswith(translate("en", "quiz.right"))
    assert score(1, total, 2) in page
    assert checked(page, q1["id"]) == [q1["answer"]] and checked(page, q2["id"]) == [wrong_choice(q2)]

    # The index's progress, rendered by the server from the cookie: correct answers, not answered ones.
    index = client.get("/").get_data(as_text=True)
    line = translate("en", "index.check.score", correct=1, total=total) + translate(
        "en", "index.check.left", left=total - 2
    )
    assert line in text(index)
    title = text(re.search(r"<h1>(.*?)</h1>", page, re.S).group(1))
    name = re.escape(html.escape(f"Questions answered correctly in {title}"))
    bar = re.search(rf'<progress max="{total}" value="(\d+)" aria-label="{name}"', index)
    assert bar, f"no progress bar for {title!r}"
    assert bar.group(1) == "1"


def test_a_task_question_says_it_needs_the_playground_and_has_no_check_to_press(client) -> None:
    questions = load("an-outage")
    n, q = next((n, q) for n, q in enumerate(questions, 1) if "task" in q)
    page = client.get("/lessons/an-outage").get_data(as_text=True)
    task = form(page, q["id"])
    assert text(q["prompt"]) in text(task) and f"Question {n} of {len(questions)}." in text(task)
    assert translate("en", "quiz.task.noscript").strip() in text(task)
    # The check button is for the page's script only: hidden until the script shows it.
    assert re.search(r'<button[^>]*data-role="task-check"[^>]*hidden', task)
    assert re.search(r'<button[^>]*data-button="a-dies"[^>]*disabled[^>]*>A dies</button>', page)
