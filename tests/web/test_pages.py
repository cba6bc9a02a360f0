"""Pages and quick checks through the Flask test client. The engine is tested on the fixture content
(tests/fixtures/content); the shipped content only has to render every panel it declares."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lesson.content.course import ContentError, default_root, load_content, load_panels
from lesson.content.panels import PlaygroundPanel, RestartLabPanel
from lesson.i18n import translate
from lesson.web import create_app

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "content"


def make_client(root: Path):
    return create_app({"TESTING": True, "SECRET_KEY": "test", "CONTENT_ROOT": str(root)}).test_client()


@pytest.fixture
def fixture_client():
    return make_client(FIXTURE)


def test_index_lists_the_lessons_with_progress(fixture_client):
    page = fixture_client.get("/").get_data(as_text=True)
    assert "Fixture one" in page and "Fixture two" in page
    # No answers yet: no score (nor a bar on show) that would read as a failed one, but how many questions wait.
    lines = re.findall(r'data-role="progress-text">([^<]*)<', page)
    assert translate("en", "index.check.unanswered.many", total=2) in lines[0]
    assert not any(translate("en", "index.check.score", correct=0, total=2) in line for line in lines)
    assert all(" hidden>" in bar for bar in re.findall(r"<progress[^>]*>", page))


def test_the_last_lesson_leads_back_to_the_course_and_the_others_to_the_next(fixture_client):
    end = html.escape(translate("en", "lesson.course_end"))
    first = fixture_client.get("/lessons/first").get_data(as_text=True)
    last = fixture_client.get("/lessons/second").get_data(as_text=True)
    assert 'rel="next" href="/lessons/second"' in first and end not in first
    assert 'rel="next"' not in last and f'<a href="/">{end}</a>' in last


def test_a_playground_is_drawn_from_its_panel_file(fixture_client):
    page = fixture_client.get("/lessons/first").get_data(as_text=True)
    assert 'data-panel="playground" data-panel-id="lights"' in page and "Fixture playground" in page
    for label in ("Fixture kill A", "Fixture revive A", "Fixture turn", "Undo", "Reset"):
        assert f">{label}</button>" in page
    # It shows the views its file lists, in that order, under the headings it chose.
    regions = [r for r in ("servers", "prompt", "log", "comparison", "wire") if f'data-region="{r}"' in page]
    assert regions == ["servers", "prompt", "log"]
    assert "Fixture prompt heading" in page and "Tools in the model&#39;s next prompt" not in page


def test_stepper_and_restart_lab_use_the_shared_templates(fixture_client):
    page = fixture_client.get("/lessons/second").get_data(as_text=True)
    assert 'data-panel="stepper" data-panel-id="story"' in page and "Fixture stepper" in page
    # The stepper's moments come from scenarios/story.yaml, fetched on demand.
    steps_url = page.split('data-steps="', 1)[1].split('"', 1)[0]
    assert "Fixture narration one." in fixture_client.get(steps_url).get_data(as_text=True)
    assert 'data-panel="restarts" data-panel-id="lab"' in page and "fixture asking" in page


def test_a_new_panel_is_a_yaml_file_and_a_line(tmp_path: Path):
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    (root / "panels" / "fresh.yaml").write_text(
        "id: fresh\nkind: playground\ntitle: A fresh panel\nstart: {name: gateway}\n"
        "buttons: [{id: c-joins, label: Let C join, event: {kind: backend_joins, gateway: G, backend: C}}]\n"
    )
    lesson = root / "lessons" / "02-second.md"
    lesson.write_text(lesson.read_text() + "\n## Fresh\n\n::: fresh\n")
    client = make_client(root)
    page = client.get("/lessons/second").get_data(as_text=True)
    assert 'data-panel-id="fresh"' in page and ">Let C join</button>" in page
    opened = client.post("/api/frame", json={"v": 2, "type": "open", "panel": "fresh"}).get_json()
    pressed = client.post(
        "/api/frame", json={"v": 2, "type": "press", "handle": opened["handle"], "seq": 1, "button": "c-joins"}
    ).get_json()
    assert pressed["type"] == "view" and "find_slot" in pressed["view"]["servers"][0]["tools"]


def test_every_shipped_panel_renders_with_its_controls(client):
    content = load_content(default_root())
    panels = load_panels(default_root())
    for lesson in content.lessons:
        page = html.unescape(client.get(f"/lessons/{lesson.meta.slug}").get_data(as_text=True))
        assert lesson.meta.title in page
        for name in lesson.widgets:
            if name == "quiz":
                for question in content.quizzes[lesson.meta.slug].questions:
                    assert question.prompt in page.replace("<wbr>", "")  # long names may break
                continue
            panel = panels[name]
            assert f'data-panel-id="{panel.id}"' in page and panel.title in page
            if isinstance(panel, PlaygroundPanel):
                for button in panel.buttons:
                    assert f">{button.label}</button>" in page
            elif isinstance(panel, RestartLabPanel):
                for situation in panel.situations:
                    assert situation.label in page


def test_only_a_playground_whose_era_the_learner_chooses_shows_the_eras_cost(client):
    """The cost strip compares the eras: a playground without an era choice (the baskets) shows one era
    only, so a count for the other would be about something the learner cannot see."""
    panels = load_panels(default_root())
    seen = set()
    for lesson in load_content(default_root()).lessons:
        page = client.get(f"/lessons/{lesson.meta.slug}").get_data(as_text=True)
        for name in lesson.widgets:
            panel = panels.get(name)
            if not isinstance(panel, PlaygroundPanel):
                continue
            start = page.index(f'data-panel-id="{panel.id}"')
            end = page.find('data-panel-id="', start + 1)
            has_cost = 'data-role="cost"' in page[start : end if end > 0 else None]
            assert has_cost == (panel.era_choice and bool({"comparison", "wire"} & set(panel.shows))), panel.id
            seen.add(has_cost)
    assert seen == {True, False}, "every playground is alike: the check covers one side only"


def test_a_lesson_page_is_sent_the_prediction_script_only_when_a_playground_of_it_asks_one(client):
    content = load_content(default_root())
    panels = load_panels(default_root())
    asks = {}
    for lesson in content.lessons:
        page = client.get(f"/lessons/{lesson.meta.slug}").get_data(as_text=True)
        predicts = any(getattr(panels.get(name), "predictions", None) for name in lesson.widgets)
        assert ("js/predict.js" in page) == predicts, lesson.meta.slug
        asks[predicts] = lesson.meta.slug
    assert set(asks) == {True, False}, "every page is alike: the check covers one side only"


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
    config = {"SECRET_KEY": "x", "CONTENT_ROOT": str(FIXTURE)}
    c = create_app({**config, "EMBED_ORIGINS": "https://portal.example"}).test_client()
    csp = c.get("/").headers["Content-Security-Policy"]
    assert csp.endswith("frame-ancestors 'self' https://portal.example")
    headers = {"Origin": "https://portal.example"}
    assert c.post("/api/quiz/first/one", json={"choice": "b"}, headers=headers).status_code == 200
    other = create_app({**config, "FRAME_ANCESTORS": "https://lms.example"}).test_client()
    assert other.get("/").headers["Content-Security-Policy"].endswith("frame-ancestors https://lms.example")


@pytest.mark.parametrize(
    ("configured", "origin", "allowed"),
    [
        ("https://*.portal.example", "https://eu.portal.example", True),
        ("https://*.portal.example", "https://a.b.portal.example", True),
        ("https://*.portal.example", "https://portal.example", False),  # the pattern names subdomains only
        ("https://*.portal.example", "https://evil.example/portal.example", False),
        ("https://*.portal.example", "http://eu.portal.example", False),  # another scheme
        ("https://*.portal.example", "https://eu.portal.example.evil", False),
        ("*", "https://anyone.example", False),  # framing by anyone, but no site is trusted to post
        ("*", "null", False),
        ("HTTPS://Portal.example:443", "https://portal.example", True),  # as the browser writes it
        ("https://portal.example:8443", "https://portal.example", False),
    ],
)
def test_origin_patterns_admit_subdomains_to_posts_and_a_bare_star_admits_nobody(configured, origin, allowed):
    """An embedding origin given as a subdomain pattern admits those sites' pages to the frames and
    answers they post; a bare ``*`` (anyone may frame the lesson) trusts no other site to post."""
    config = {"SECRET_KEY": "x", "CONTENT_ROOT": str(FIXTURE), "EMBED_ORIGINS": configured}
    c = create_app(config).test_client()
    frame = c.post("/api/frame", json={"v": 2, "type": "open", "panel": "nope"}, headers={"Origin": origin})
    assert (frame.status_code != 403) is allowed, frame.get_data(as_text=True)
    answer = c.post("/api/quiz/first/one", json={"choice": "b"}, headers={"Origin": origin})
    assert (answer.status_code == 200) is allowed


def msg(key: str, **values: object) -> str:
    """A catalogue message as the page's HTML carries it."""
    return html.escape(translate("en", key, **values), quote=False)


def score(correct: int, answered: int, total: int = 2) -> str:
    return msg("quiz.score", correct=correct, total=total, answered=answered)


def test_quiz_without_javascript_is_a_plain_form(fixture_client):
    resp = fixture_client.post("/lessons/first/quiz/one", data={"choice": "a"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/lessons/first#q-one")
    page = fixture_client.get("/lessons/first").get_data(as_text=True)
    assert msg("quiz.wrong") in page and score(0, 1) in page
    # The right answer afterwards shows its explanation, but the first answer is the one that scores.
    fixture_client.post("/lessons/first/quiz/one", data={"choice": "b"})
    page = fixture_client.get("/lessons/first").get_data(as_text=True)
    assert msg("quiz.right") in page and "Fixture explanation one." in page and score(0, 1) in page
    assert "“Choice one A”" in page  # the first answer, named as the one that counted
    assert 'href="#start-here"' in page  # the feedback links the part of the lesson it is about
    assert msg("index.check.score", correct=0, total=2) in fixture_client.get("/").get_data(as_text=True)
    # Start over forgets both, and the next answer is a first answer again.
    fixture_client.post("/api/progress/first/clear")
    fixture_client.post("/lessons/first/quiz/one", data={"choice": "b"})
    assert score(1, 1) in fixture_client.get("/lessons/first").get_data(as_text=True)


def test_the_first_answer_scores_and_a_later_one_only_explains(fixture_client):
    wrong = fixture_client.post("/api/quiz/first/one", json={"choice": "a", "answers": {}}).get_json()
    assert wrong["correct"] is False and wrong["counted"] is True and wrong["score"]["correct"] == 0
    assert wrong["see"] == {"href": "#start-here", "title": "Start here"}
    # The page sends the answers it holds; the cookie holds the same first answer.
    right = fixture_client.post("/api/quiz/first/one", json={"choice": "b", "answers": {"one": "a"}}).get_json()
    assert right["correct"] is True and right["explanation"] == "Fixture explanation one."
    assert right["counted"] is False and right["scored"] == "a" and right["scored_correct"] is False
    assert right["score"] == {"answered": 1, "correct": 0, "total": 2}
    # Without the page's answers (another tab, storage cleared), the cookie still holds the first one.
    again = fixture_client.post("/api/quiz/first/one", json={"choice": "b"}).get_json()
    assert again["counted"] is False and again["score"]["correct"] == 0
    # And the other way round: right first, then wrong, keeps the point.
    fixture_client.post("/api/progress/first/clear")
    first = fixture_client.post("/api/quiz/first/two", json={"choice": "a"}).get_json()
    later = fixture_client.post("/api/quiz/first/two", json={"choice": "b", "answers": {"two": "a"}}).get_json()
    assert first["counted"] and first["score"]["correct"] == 1
    assert later["correct"] is False and later["scored"] == "a" and later["score"]["correct"] == 1


def test_quiz_form_without_a_choice_says_so(fixture_client):
    resp = fixture_client.post("/lessons/first/quiz/one", data={}, follow_redirects=True)
    assert msg("quiz.missing") in resp.get_data(as_text=True)


def test_quiz_json_checks_on_the_server(fixture_client):
    bad = fixture_client.post("/api/quiz/first/two", json={"choice": "zz"})
    assert bad.status_code == 400 and "not one of" in bad.get_json()["error"]
    # A body that is not JSON is refused as such, not as a JSON body without a choice.
    plain = fixture_client.post("/api/quiz/first/one", data='{"choice": "b"}', content_type="text/plain")
    assert plain.status_code == 415 and plain.get_json()["code"] == "not_json"
    broken = fixture_client.post("/api/quiz/first/one", data='{"choice": ', content_type="application/json")
    assert broken.status_code == 400 and broken.get_json()["code"] == "bad_json"
    assert fixture_client.post("/api/quiz/first/one", json={"pick": "b"}).get_json()["code"] == "needs_choice"
    assert fixture_client.post("/api/quiz/first/nope", json={"choice": "a"}).status_code == 404
    ok = fixture_client.post("/api/quiz/first/one", json={"choice": "b"}).get_json()
    assert ok["correct"] is True and ok["explanation"] == "Fixture explanation one."
    assert ok["score"] == {"answered": 1, "correct": 1, "total": 2}


def test_quiz_progress_held_by_the_page_is_graded_on_the_server(fixture_client):
    # A page that holds answers (one right, one to a question that does not exist) and answers again after a
    # restart: the score is graded here, never taken from the page.
    held = {"one": "b", "nope": "a"}
    ok = fixture_client.post("/api/quiz/first/one", json={"choice": "a", "answers": held}).get_json()
    assert ok["score"]["answered"] == 1  # the question answered now replaces the held answer
    graded = fixture_client.post("/api/quiz/first", json={"answers": {"one": "b", "x": "y"}}).get_json()
    assert graded["results"]["one"]["correct"] is True and "x" not in graded["results"]
    assert graded["score"] == {"answered": 1, "correct": 1, "total": 2}
    # An id that is none of a question's choices (held from an earlier version of it) is no answer: the
    # page would otherwise count the quick check as done and report it to a portal.
    stale = fixture_client.post("/api/quiz/first/one", json={"choice": "b", "answers": {"two": "gone"}}).get_json()
    assert stale["score"]["answered"] == 1
    none = fixture_client.post("/api/quiz/first", json={"answers": {"two": "gone"}}).get_json()
    assert none["score"]["answered"] == 0
    assert fixture_client.post("/api/quiz/first", json=[1]).status_code == 400
    assert "answers" in fixture_client.post("/api/quiz/first", json={"answers": "x"}).get_json()["error"]
    assert fixture_client.post("/api/quiz/nowhere", json={"answers": {}}).status_code == 404


def test_cross_site_posts_are_refused(fixture_client):
    evil = {"Origin": "https://evil.example"}
    resp = fixture_client.post("/lessons/first/quiz/one", data={"choice": "b"}, headers=evil)
    assert resp.status_code == 403
    assert "0 answered" in fixture_client.get("/lessons/first").get_data(as_text=True)
    assert fixture_client.post("/api/quiz/first/one", json={"choice": "b"}, headers=evil).status_code == 403
    referer = {"Referer": "https://evil.example/page"}
    assert fixture_client.post("/lessons/first/quiz/one", data={"choice": "b"}, headers=referer).status_code == 403
    own = {"Origin": "http://localhost"}
    assert fixture_client.post("/lessons/first/quiz/one", data={"choice": "b"}, headers=own).status_code == 303


def test_assets_have_hashed_urls_cached_for_good_and_are_compressed(fixture_client):
    import re

    client = fixture_client
    page_html = client.get("/lessons/second").get_data(as_text=True)
    urls = re.findall(r'(?:src|href|data-steps)="(/(?:static|data)/[^"]+)"', page_html)
    assert any(u.endswith("/js/app.js") for u in urls) and any(u.endswith("/story.json") for u in urls)
    assert '<script type="application/json"' not in page_html  # the stepper's data is fetched, not inlined
    for url in urls:
        resp = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert resp.status_code == 200 and "immutable" in resp.headers["Cache-Control"]
    js = client.get(
        next(u for u in urls if u.endswith("app.js")).replace("app.js", "render.js"),
        headers={"Accept-Encoding": "br, gzip"},
    )
    assert js.headers["Content-Encoding"] == "br" and "immutable" in js.headers["Cache-Control"]
    page = client.get("/lessons/second", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    old = client.get("/static/000000000000/js/app.js")
    assert old.status_code == 200 and old.headers["Cache-Control"] == "no-cache"
    assert client.get("/static/000000000000/nope.js").status_code == 404
    with client.application.test_request_context():
        from flask import url_for

        assert url_for("static", filename="js/app.js") == next(u for u in urls if u.endswith("app.js"))


def test_assets_are_compressed_once_at_brotlis_best_and_decode_to_the_file(fixture_client):
    import gzip

    import brotli

    from lesson.paths import data_root

    client = fixture_client
    with client.application.test_request_context():
        from flask import url_for

        url = url_for("static", filename="js/playground.js")
    from lesson.web.assets import strip_line_comments

    raw = strip_line_comments((data_root() / "static" / "js" / "playground.js").read_text()).encode()
    br = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert br.headers["Content-Encoding"] == "br" and "Accept-Encoding" in br.headers["Vary"]
    assert brotli.decompress(br.get_data()) == raw
    assert len(br.get_data()) == len(brotli.compress(raw, quality=11))  # smaller than per-response levels
    gz = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert gz.headers["Content-Encoding"] == "gzip" and gzip.decompress(gz.get_data()) == raw
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers and plain.get_data() == raw
    old = client.get(url.replace(url.split("/")[2], "000000000000"), headers={"Accept-Encoding": "br"})
    assert old.headers["Cache-Control"] == "no-cache" and brotli.decompress(old.get_data()) == raw


def test_the_stylesheet_is_served_without_its_comments_and_keeps_every_rule(fixture_client):
    import re

    from lesson.paths import data_root

    client = fixture_client
    with client.application.test_request_context():
        from flask import url_for

        url = url_for("static", filename="css/lesson.css")
    source = (data_root() / "static" / "css" / "lesson.css").read_text()
    served = client.get(url, headers={"Accept-Encoding": "identity"}).get_data(as_text=True)
    assert "/*" in source and "/*" not in served
    assert len(served) < 0.8 * len(source)
    # Every custom property and every selector's braces survive; calc() keeps the spaces around its
    # + and -, without which the browser drops the declaration.
    assert set(re.findall(r"--[\w-]+(?=\s*:)", source)) == set(re.findall(r"--[\w-]+(?=:)", served))
    assert re.sub(r"/\*.*?\*/", "", source, flags=re.S).count("{") == served.count("{")
    assert "calc(" in served and not re.search(r"calc\([^;{}]*\w[+-]\d", served)


def test_scripts_are_served_without_their_comment_lines_and_keep_their_line_numbers(fixture_client):
    from lesson.paths import data_root

    client = fixture_client
    scripts = sorted((data_root() / "static" / "js").glob("*.js"))
    assert len(scripts) > 10
    for path in scripts:
        with client.application.test_request_context():
            from flask import url_for

            url = url_for("static", filename=f"js/{path.name}")
        source = path.read_text().split("\n")
        served = client.get(url, headers={"Accept-Encoding": "identity"}).get_data(as_text=True).split("\n")
        assert len(served) == len(source), path.name
        for mine, theirs in zip(source, served, strict=True):
            # A comment line is emptied; every other line is served exactly as written.
            assert theirs == ("" if mine.lstrip().startswith("//") else mine), (path.name, mine)


def test_a_comment_like_line_inside_a_template_literal_or_block_comment_is_kept():
    from lesson.web.assets import strip_line_comments

    source = "// about x\nconst x = 1; // one\nconst t = `a\n// not a comment\nb`;\n  // indented\ny(`${x}`);"
    assert strip_line_comments(source).split("\n") == [
        "",
        "const x = 1; // one",
        "const t = `a",
        "// not a comment",
        "b`;",
        "",
        "y(`${x}`);",
    ]
    block = "/* a block\n// inside it\n*/\n// after it\nz();"
    assert strip_line_comments(block).split("\n") == ["/* a block", "// inside it", "*/", "", "z();"]


def test_every_script_as_served_still_parses(tmp_path: Path):
    """Node's syntax check (Playwright's driver brings a node) on each script as the app serves it."""
    import playwright

    from lesson.paths import data_root
    from lesson.web.assets import strip_line_comments

    node = Path(playwright.__file__).parent / "driver" / "node"
    assert node.exists(), "Playwright's driver has no node here"
    for path in sorted((data_root() / "static" / "js").glob("*.js")):
        served = tmp_path / (path.stem + ".mjs")
        served.write_text(strip_line_comments(path.read_text()))
        check = subprocess.run([str(node), "--check", str(served)], capture_output=True, text=True)
        assert check.returncode == 0, (path.name, check.stderr)


@pytest.fixture
def broken_content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    path = root / "panels" / "lights.yaml"
    path.write_text(path.read_text().replace("server: A}", "server: Z}", 1))
    return root


def test_broken_content_stops_start_up_naming_the_file(broken_content):
    with pytest.raises(ContentError) as err:
        create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(broken_content)})
    assert "lights.yaml" in str(err.value)


def test_broken_panel_event_is_reported_with_its_line(tmp_path: Path):
    root = tmp_path / "content"
    shutil.copytree(FIXTURE, root)
    path = root / "panels" / "lights.yaml"
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if "id: revive" in line)
    lines[n] = lines[n].replace("server_back", "server_explodes")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ContentError) as err:
        create_app({"SECRET_KEY": "x", "CONTENT_ROOT": str(root)})
    assert f"lights.yaml:{n + 1}:" in str(err.value) and "server_explodes" in str(err.value)


def test_lesson_check_exits_non_zero_on_broken_content(broken_content):
    ok = subprocess.run([sys.executable, "-m", "lesson.cli", "check"], capture_output=True, text=True)
    assert ok.returncode == 0 and "content OK" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "lesson.cli", "check", "--content", str(broken_content)], capture_output=True, text=True
    )
    assert bad.returncode == 1 and "lights.yaml" in bad.stderr


def test_flasks_own_command_line_says_a_content_error_in_words(broken_content):
    """``flask --app lesson run`` (the README's other way to run it) stops on broken content with the
    problem's file and line, as ``lesson serve`` does, not with Python's traceback."""
    env = {**os.environ, "LESSON_CONTENT_ROOT": str(broken_content)}
    bad = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "lesson", "routes"], capture_output=True, text=True, env=env
    )
    assert bad.returncode == 1 and "lights.yaml" in bad.stderr and "Traceback" not in bad.stderr


def test_behind_a_proxy_the_forwarded_scheme_counts_only_when_configured():
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "lessons.example.org"}
    config = {"SECRET_KEY": "x", "CONTENT_ROOT": str(FIXTURE)}
    plain = create_app(config).test_client().get("/", headers=forwarded)
    assert "Strict-Transport-Security" not in plain.headers  # nobody said a proxy is trusted
    proxied = create_app({**config, "PROXY_FIX": 1}).test_client()
    assert "Strict-Transport-Security" in proxied.get("/", headers=forwarded).headers
    own = {**forwarded, "Origin": "https://lessons.example.org"}
    assert proxied.post("/api/quiz/first/one", json={"choice": "b"}, headers=own).status_code == 200


def test_the_server_header_names_no_versions(serve_app):
    import urllib.request

    with urllib.request.urlopen(serve_app() + "/healthz") as resp:
        server = resp.headers["Server"]
    assert server == "mcp-churn-lab" and "/" not in server and "Python" not in server


def test_long_inline_code_may_break_between_its_parts_only(fixture_client):
    """A long name in code may wrap after a slash, underscore or dot, and a schema name between its
    words; a short one stays whole. (The browser tests check where lines really break.)"""
    from lesson.content.markup import MD, _camel_breaks

    rendered = MD.renderInline("`notifications/tools/list_changed` and `tools/list` and `a<b_c/d_e_f_g_h`")
    assert "<code>notifications/<wbr>tools/<wbr>list_<wbr>changed</code>" in rendered
    assert "<code>tools/list</code>" in rendered
    assert "<code>a&lt;b_<wbr>c/<wbr>d_<wbr>e_<wbr>f_<wbr>g_<wbr>h</code>" in rendered
    assert _camel_breaks("ToolListChangedNotification") == "Tool<wbr>List<wbr>Changed<wbr>Notification"
    # Never after a leading separator or between two: "_meta[…" and "https://" stay whole there.
    assert MD.renderInline("`_meta_and_more/x`") == "<code>_meta_<wbr>and_<wbr>more/<wbr>x</code>"
    assert MD.renderInline("`https://example.com`") == "<code>https://example.<wbr>com</code>"
    # A quiz prompt is plain text: escaped, and its long names breakable the same way.
    from lesson.content.markup import breakable

    assert breakable("Send <notifications/tools/list_changed>?") == (
        "Send &lt;notifications/<wbr>tools/<wbr>list_<wbr>changed&gt;?"
    )
