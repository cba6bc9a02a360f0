"""Pages and quick checks through the Flask test client, and start-up on broken content."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lesson.content import ContentError, default_root
from lesson.web import create_app


def test_index_lists_both_lessons_with_progress(client):
    html = client.get("/").get_data(as_text=True)
    assert "Hot-swapping servers: churn, outages and restarts" in html
    assert "tools/list_changed: what it is and when to send it" in html
    assert "Quick check: 0 of 3 correct, 3 still to answer" in html


def test_lesson_pages_hold_every_panel(client):
    one = client.get("/lessons/hot-swapping").get_data(as_text=True)
    for title in (
        "A session with churn",
        "Play out an outage",
        "Restarts, era by era",
        "A gateway in front",
        "Explicit state handles",
        "Quick check",
    ):
        assert title in one
    for label in ("B deploys a new tool", "Add server C", "A dies", "A is back", "Take a model turn", "Undo", "Reset"):
        assert f">{label}</button>" in one
    two = client.get("/lessons/list-changed").get_data(as_text=True)
    assert "Misbehaving servers" in two and "P&#39;s timer fires list_changed" in two


def test_unknown_pages_are_a_friendly_404(client):
    resp = client.get("/lessons/nope")
    assert resp.status_code == 404 and "course index" in resp.get_data(as_text=True)


def test_every_response_forbids_other_origins(client):
    csp = client.get("/").headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors *" in csp


def test_frame_ancestors_is_configurable():
    app = create_app({"SECRET_KEY": "x", "FRAME_ANCESTORS": "https://portal.example"})
    csp = app.test_client().get("/").headers["Content-Security-Policy"]
    assert csp.endswith("frame-ancestors https://portal.example")


def test_quiz_without_javascript_is_a_plain_form(client):
    resp = client.post("/lessons/hot-swapping/quiz/discover", data={"choice": "a"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/lessons/hot-swapping#q-discover")
    html = client.get("/lessons/hot-swapping").get_data(as_text=True)
    assert "Not quite." in html and "Score: 0 of 3 correct (1 answered)" in html
    client.post("/lessons/hot-swapping/quiz/discover", data={"choice": "c"})
    html = client.get("/lessons/hot-swapping").get_data(as_text=True)
    assert "Correct." in html and "Score: 1 of 3 correct (1 answered)" in html
    assert "Quick check: 1 of 3 correct" in client.get("/").get_data(as_text=True)


def test_quiz_form_without_a_choice_says_so(client):
    resp = client.post("/lessons/hot-swapping/quiz/discover", data={}, follow_redirects=True)
    assert "Pick an answer first." in resp.get_data(as_text=True)


def test_quiz_json_checks_on_the_server(client):
    right = client.post("/api/quiz/list-changed/" + _first_question("list-changed"), json={"choice": "zz"})
    assert right.status_code == 400 and "not one of" in right.get_json()["error"]
    assert client.post("/api/quiz/hot-swapping/discover", data="x").status_code == 400
    assert client.post("/api/quiz/hot-swapping/nope", json={"choice": "a"}).status_code == 404
    ok = client.post("/api/quiz/hot-swapping/discover", json={"choice": "c"}).get_json()
    assert ok["correct"] is True and ok["explanation"] and ok["score"] == {"answered": 1, "correct": 1, "total": 3}


def _first_question(slug: str) -> str:
    from lesson.content import load_content

    return load_content(default_root()).quizzes[slug].questions[0].id


@pytest.fixture
def broken_content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(default_root(), root)
    path = root / "scenarios" / "outage.yaml"
    path.write_text(path.read_text().replace("server: A}", "server: Z}", 1))
    return root


def test_broken_content_stops_start_up_naming_the_file(broken_content):
    with pytest.raises(ContentError) as err:
        create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(broken_content)})
    assert "outage.yaml" in str(err.value)


def test_broken_panel_event_is_reported_with_its_line(tmp_path: Path):
    root = tmp_path / "content"
    shutil.copytree(default_root(), root)
    path = root / "scenarios" / "gateway.yaml"
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if "b-recovers" in line)
    lines[n] = lines[n].replace("backend_recovers", "backend_explodes")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ContentError) as err:
        create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root)})
    assert f"gateway.yaml:{n + 1}:" in str(err.value)


def test_lesson_check_exits_non_zero_on_broken_content(broken_content):
    ok = subprocess.run([sys.executable, "-m", "lesson.cli", "check"], capture_output=True, text=True)
    assert ok.returncode == 0 and "content OK" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "lesson.cli", "check", "--content", str(broken_content)], capture_output=True, text=True
    )
    assert bad.returncode == 1 and "outage.yaml" in bad.stderr
