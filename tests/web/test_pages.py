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
    resp = client.get("/")
    csp = resp.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and csp.endswith("frame-ancestors 'self'")
    assert "camera=()" in resp.headers["Permissions-Policy"]
    assert "Strict-Transport-Security" not in resp.headers  # plain HTTP: HSTS would be a lie
    assert (
        client.get("/", base_url="https://lesson.example").headers["Strict-Transport-Security"].startswith("max-age=")
    )


def test_embedding_origins_are_configurable():
    app = create_app({"SECRET_KEY": "x", "EMBED_ORIGINS": "https://portal.example"})
    c = app.test_client()
    csp = c.get("/").headers["Content-Security-Policy"]
    assert csp.endswith("frame-ancestors 'self' https://portal.example")
    headers = {"Origin": "https://portal.example"}
    assert c.post("/api/quiz/hot-swapping/discover", json={"choice": "c"}, headers=headers).status_code == 200
    other = create_app({"SECRET_KEY": "x", "FRAME_ANCESTORS": "https://lms.example"}).test_client()
    assert other.get("/").headers["Content-Security-Policy"].endswith("frame-ancestors https://lms.example")


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


def test_quiz_progress_held_by_the_page_is_graded_on_the_server(client):
    # A page that holds two answers (one right, one wrong) and answers a third after a restart:
    # the score counts all three, graded here.
    held = {"discover": "c", "nope": "a"}
    ok = client.post("/api/quiz/hot-swapping/discover", json={"choice": "a", "answers": held}).get_json()
    assert ok["score"]["answered"] == 1  # the question answered now replaces the held answer
    graded = client.post("/api/quiz/hot-swapping", json={"answers": {"discover": "c", "x": "y"}}).get_json()
    assert graded["results"]["discover"]["correct"] is True and "x" not in graded["results"]
    assert graded["score"] == {"answered": 1, "correct": 1, "total": 3}
    assert client.post("/api/quiz/hot-swapping", json=[1]).status_code == 400
    assert client.post("/api/quiz/nowhere", json={"answers": {}}).status_code == 404


def test_cross_site_posts_are_refused(client):
    evil = {"Origin": "https://evil.example"}
    resp = client.post("/lessons/hot-swapping/quiz/discover", data={"choice": "c"}, headers=evil)
    assert resp.status_code == 403
    assert "0 answered" in client.get("/lessons/hot-swapping").get_data(as_text=True)
    assert client.post("/api/quiz/hot-swapping/discover", json={"choice": "c"}, headers=evil).status_code == 403
    referer = {"Referer": "https://evil.example/page"}
    assert client.post("/lessons/hot-swapping/quiz/discover", data={"choice": "c"}, headers=referer).status_code == 403
    own = {"Origin": "http://localhost"}
    assert client.post("/lessons/hot-swapping/quiz/discover", data={"choice": "c"}, headers=own).status_code == 303


def test_assets_have_hashed_urls_cached_for_good_and_are_compressed(client):
    import re

    html = client.get("/lessons/hot-swapping").get_data(as_text=True)
    urls = re.findall(r'(?:src|href|data-steps)="(/(?:static|data)/[^"]+)"', html)
    assert any(u.endswith("/js/app.js") for u in urls) and any(u.endswith("/churn.json") for u in urls)
    assert '<script type="application/json"' not in html  # the stepper's data is fetched, not inlined
    for url in urls:
        resp = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert resp.status_code == 200 and "immutable" in resp.headers["Cache-Control"]
    js = client.get(
        next(u for u in urls if u.endswith("app.js")).replace("app.js", "render.js"),
        headers={"Accept-Encoding": "br, gzip"},
    )
    assert js.headers["Content-Encoding"] == "br" and "immutable" in js.headers["Cache-Control"]
    page = client.get("/lessons/hot-swapping", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    old = client.get("/static/000000000000/js/app.js")
    assert old.status_code == 200 and old.headers["Cache-Control"] == "no-cache"
    assert client.get("/static/000000000000/nope.js").status_code == 404
    with client.application.test_request_context():
        from flask import url_for

        assert url_for("static", filename="js/app.js") == next(u for u in urls if u.endswith("app.js"))


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


def test_behind_a_proxy_the_forwarded_scheme_counts_only_when_configured():
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "lessons.example.org"}
    plain = create_app({"SECRET_KEY": "x"}).test_client().get("/", headers=forwarded)
    assert "Strict-Transport-Security" not in plain.headers  # nobody said a proxy is trusted
    proxied = create_app({"SECRET_KEY": "x", "PROXY_FIX": 1}).test_client()
    assert "Strict-Transport-Security" in proxied.get("/", headers=forwarded).headers
    own = {**forwarded, "Origin": "https://lessons.example.org"}
    assert proxied.post("/api/quiz/hot-swapping/discover", json={"choice": "c"}, headers=own).status_code == 200


def test_the_server_header_names_no_versions(serve_app):
    import urllib.request

    with urllib.request.urlopen(serve_app() + "/healthz") as resp:
        server = resp.headers["Server"]
    assert server == "mcp-churn-lab" and "/" not in server and "Python" not in server
