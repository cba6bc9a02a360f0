"""Embed mode, the mount point and the statement route, as the server renders and answers them."""

from __future__ import annotations

import re

import pytest

from lesson.web import create_app, lesson_state
from tests import statements
from tests.outbox.fakelrs import FakeLrs as Store
from tests.outbox.fakelrs import store  # noqa: F401 - the fake learning record store fixture

SLUG = "an-outage"
ACTOR = statements.anonymous_actor("https://lab.example", "visit-1")


def client(**config):
    return create_app({"TESTING": True, "SECRET_KEY": "t", **config}).test_client()


@pytest.mark.parametrize("path", [f"/embed/{SLUG}", f"/lessons/{SLUG}?embed=1"])
def test_embed_mode_leaves_out_the_site_chrome(path: str) -> None:
    page = client(EMBED_ORIGINS="https://portal.example").get(path).get_data(as_text=True)
    assert '<header class="site-header">' not in page and "<footer" not in page
    assert 'aria-label="Lessons"' not in page and 'aria-label="Breadcrumb"' not in page
    assert re.search(r"<h1>[^<]*An outage", page)
    assert 'data-embed-origins="https://portal.example"' in page
    assert 'id="connection"' in page  # the connection line stays, outside any header


@pytest.mark.parametrize("path", ["/embed/no-such-lesson", "/lessons/no-such-lesson?embed=1"])
def test_a_missing_lesson_in_a_frame_is_a_404_that_keeps_to_the_frame(path: str) -> None:
    resp = client().get(path)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 404
    assert '<header class="site-header">' not in page and "<footer" not in page
    assert 'href="/"' not in page  # no link that would take the frame to the site's own index
    assert "<h1>" in page
    assert "data-storage-notice" not in page  # no progress here to warn about
    assert "data-storage-notice" in client().get(f"/embed/{SLUG}").get_data(as_text=True)
    ordinary = client().get("/lessons/no-such-lesson").get_data(as_text=True)
    assert '<header class="site-header">' in ordinary and 'href="/"' in ordinary


def test_the_ordinary_page_keeps_its_chrome_and_names_no_origins_unless_configured() -> None:
    page = client().get(f"/lessons/{SLUG}").get_data(as_text=True)
    assert '<header class="site-header">' in page and "<footer" in page and 'aria-label="Lessons"' in page
    assert "data-embed-origins" not in page
    assert f'data-lesson-iri="http://localhost/lessons/{SLUG}"' in page


def test_the_lesson_iri_is_the_public_url_when_one_is_set() -> None:
    page = client(PUBLIC_URL="https://lab.example/training/mcp/").get(f"/embed/{SLUG}").get_data(as_text=True)
    assert f'data-lesson-iri="https://lab.example/training/mcp/lessons/{SLUG}"' in page


def test_frame_ancestors_name_the_embed_origins() -> None:
    resp = client(EMBED_ORIGINS="https://portal.example").get(f"/embed/{SLUG}")
    directives = dict(d.strip().split(" ", 1) for d in resp.headers["Content-Security-Policy"].split(";"))
    # Only the configured portal may frame the lesson: a page from any other origin gets no lesson.
    assert directives["frame-ancestors"] == "'self' https://portal.example"


def urls(page: str) -> list[str]:
    return re.findall(r'(?<![\w-])(?:href|src|action|data-steps|data-base|data-lrs|data-messages)="([^"#][^"]*)"', page)


def test_under_script_name_every_url_carries_the_prefix() -> None:
    c = client(LRS_ENDPOINT="http://127.0.0.1:9/xapi")
    page = c.get(f"/lessons/{SLUG}", environ_overrides={"SCRIPT_NAME": "/training/mcp"}).get_data(as_text=True)
    found = [u for u in urls(page) if not u.startswith("http")]
    assert len(found) > 10
    assert all(u.startswith("/training/mcp/") for u in found), [u for u in found if not u.startswith("/training/")]
    assert 'data-base="/training/mcp/"' in page and 'data-lrs="/training/mcp/api/xapi"' in page


def test_x_forwarded_prefix_counts_only_behind_a_trusted_proxy() -> None:
    headers = {"X-Forwarded-Prefix": "/training/mcp"}
    trusted = client(PROXY_FIX=1).get(f"/lessons/{SLUG}", headers=headers).get_data(as_text=True)
    assert 'data-base="/training/mcp/"' in trusted and "/training/mcp/static/" in trusted
    ignored = client().get(f"/lessons/{SLUG}", headers=headers).get_data(as_text=True)
    assert 'data-base="/"' in ignored and "/training/mcp" not in ignored


def test_statements_route_is_off_without_a_store() -> None:
    statement = statements.experienced(ACTOR, "https://lab.example/lessons/x", "intro").to_json()
    resp = client().post("/api/xapi", json=statement)
    assert resp.status_code == 404 and "record store" in resp.get_json()["error"]


def test_statements_are_checked_and_forwarded_to_the_store(store: Store, tmp_path) -> None:  # noqa: F811
    state = store
    outbox_url = f"sqlite:///{tmp_path}/outbox.db"
    config = {"LRS_ENDPOINT": store.url, "OUTBOX_URL": outbox_url, "PUBLIC_URL": "https://lab.example"}
    app = create_app({"TESTING": True, "SECRET_KEY": "t", **config})
    c = app.test_client()
    with app.app_context():
        iri = f"https://lab.example/lessons/{lesson_state().content.lessons[0].meta.slug}"
    good = [
        statements.experienced(ACTOR, iri, "intro").to_json(),
        statements.answered(ACTOR, iri, "q1", "b", True).to_json(),
    ]
    resp = c.post("/api/xapi", json=good)
    assert resp.status_code == 202 and resp.get_json() == {"queued": 2, "dropped": 0}
    assert statements.drained(app.extensions["lrs"], 10)
    assert [s["id"] for s in state.received] == [s["id"] for s in good]

    bad = {**good[0], "verb": {"id": "http://adlnet.gov/expapi/verbs/hacked"}}
    resp = c.post("/api/xapi", json=bad)
    assert resp.status_code == 400 and "verb" in resp.get_json()["error"]
    assert c.post("/api/xapi", data="not json", content_type="application/json").status_code == 400
    assert c.post("/api/xapi", json=[good[0]] * 21).status_code == 400
    assert c.post("/api/xapi", json=[]).status_code == 400
    # The store trusts this server's credentials: a statement about another activity is not forwarded.
    for elsewhere in ("https://lab.example/lessons/nope", "https://compliance.example/course", iri + "x"):
        other = statements.answered(ACTOR, elsewhere, "q1", "b", True).to_json()
        resp = c.post("/api/xapi", json=[good[0], other])
        assert resp.status_code == 400 and "1.object.id" in resp.get_json()["error"]
    foreign = {**good[1], "context": {"contextActivities": {"grouping": [{"id": "https://compliance.example/"}]}}}
    assert "context" in c.post("/api/xapi", json=foreign).get_json()["error"]
    # Each activity in its role: the course is a grouping, never what a statement is about.
    course = iri.rsplit("/lessons/", 1)[0] + "/"
    about_course = statements.lesson_completed(ACTOR, iri).to_json()
    about_course["object"]["id"] = course
    assert c.post("/api/xapi", json=about_course).status_code == 400
    lesson_as_grouping = {**good[1], "context": {"contextActivities": {"grouping": [{"id": iri}]}}}
    assert c.post("/api/xapi", json=lesson_as_grouping).status_code == 400
    # Another site's page may not send statements in the learner's name.
    assert c.post("/api/xapi", json=good[0], headers={"Origin": "https://evil.example"}).status_code == 403
    assert len(state.received) == 2
