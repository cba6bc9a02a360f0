"""Login initiation and launch (Flask test client): what a platform's cross-site posts get."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from .conftest import TOOL, launch_id, lti_config


def test_without_the_setting_there_are_no_lti_routes(client):
    for path in ("/lti/login", "/lti/jwks", "/lti/config.json"):
        assert client.get(path).status_code == 404
    assert client.post("/lti/launch", data={"id_token": "x", "state": "y"}).status_code == 404


def test_login_sends_the_browser_to_the_platform_with_a_cross_site_state_cookie(flow, platform):
    resp = flow.login(lti_message_hint="m-1")
    assert resp.status_code == 302
    target = urlsplit(resp.headers["Location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == f"{platform.base}/auth"
    query = {k: v[0] for k, v in parse_qs(target.query).items()}
    assert query["client_id"] == platform.client_id
    assert query["redirect_uri"] == f"{TOOL}/lti/launch"
    assert (query["response_type"], query["response_mode"], query["scope"], query["prompt"]) == (
        "id_token",
        "form_post",
        "openid",
        "none",
    )
    assert query["login_hint"] == "hint-1" and query["lti_message_hint"] == "m-1"
    assert query["nonce"] and query["state"]
    cookie = next(c for c in resp.headers.getlist("Set-Cookie") if c.startswith(f"lti1p3-{query['state']}="))
    assert "Secure" in cookie and "SameSite=None" in cookie and "HttpOnly" in cookie


def test_login_by_get_works_too(lti_client, platform):
    resp = lti_client.get("/lti/login", query_string=platform.login_query(), base_url=TOOL)
    assert resp.status_code == 302 and resp.headers["Location"].startswith(f"{platform.base}/auth?")


def test_a_launch_opens_the_linked_lesson_embedded_and_framable_by_the_platform(flow, platform):
    state, nonce = flow.start()
    resp = flow.launch(platform.sign(platform.claims(nonce)), state)
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert "Fixture one" in html and 'data-embed="1"' in html
    assert 'class="site-header"' not in html
    assert "data-lti-grade" in html and launch_id(html).startswith("lti1p3-launch-")
    csp = resp.headers["Content-Security-Policy"]
    assert platform.base in csp.split("frame-ancestors", 1)[1]


def test_a_launch_without_a_lesson_opens_the_course_index(flow, platform):
    state, nonce = flow.start()
    resp = flow.launch(platform.sign(platform.claims(nonce, lesson=None)), state)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "/lti/lessons/first" in html and "/lti/lessons/second" in html
    lesson = flow.client.get("/lti/lessons/first", base_url=TOOL)
    assert lesson.status_code == 200 and "Fixture one" in lesson.get_data(as_text=True)
    assert platform.base in lesson.headers["Content-Security-Policy"].split("frame-ancestors", 1)[1]
    assert "data-lti-grade" not in lesson.get_data(as_text=True)  # the link named no lesson: no grade
    assert flow.client.get("/lti/lessons/nope", base_url=TOOL).status_code == 404


def test_only_login_and_launch_take_posts_from_the_platform_s_site(flow, platform):
    """Every other route keeps its origin check: the same Origin is refused there."""
    cross = {"Origin": platform.base}
    client = flow.client
    assert client.post("/api/quiz/first/one", json={"choice": "a"}, headers=cross, base_url=TOOL).status_code == 403
    answer = {"launch": "x", "question": "one", "choice": "a"}
    assert client.post("/lti/answer", json=answer, headers=cross, base_url=TOOL).status_code == 403
    verified = {"state": "s", "id_token": "t"}
    assert client.post("/lti/launch/verified", data=verified, headers=cross, base_url=TOOL).status_code == 403
    assert client.post("/lti/deep-link", data={"launch": "x"}, headers=cross, base_url=TOOL).status_code == 403
    assert flow.login().status_code == 302


def test_platform_storage_login_stores_the_state_before_leaving(flow, platform):
    resp = flow.login(lti_storage_target="_parent")
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert 'data-storage-target="_parent"' in html
    assert f'data-platform-origin="{platform.base}"' in html
    assert f'href="{platform.base}/auth?' in html.replace("&amp;", "&")
    assert any(c.startswith("lti1p3-state-") for c in resp.headers.getlist("Set-Cookie"))


def test_without_the_cookie_the_state_is_checked_in_platform_storage(lti_app, platform):
    """A frame that got no cookie back: the launch asks the page to check platform storage, and the
    tool's own page then posts the launch on."""
    from .conftest import Flow

    login_client, frame = lti_app.test_client(), lti_app.test_client(use_cookies=False)
    state, nonce = Flow(login_client, platform).start(lti_storage_target="_parent")
    token = platform.sign(platform.claims(nonce))
    resp = Flow(frame, platform).launch(token, state, lti_storage_target="_parent")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "data-lti-verify" in html and 'action="/lti/launch/verified"' in html
    done = frame.post(
        "/lti/launch/verified", data={"state": state, "id_token": token}, headers={"Origin": TOOL}, base_url=TOOL
    )
    assert done.status_code == 200 and "data-lti-grade" in done.get_data(as_text=True)


def test_without_cookie_or_storage_the_page_offers_a_window_of_its_own(lti_app, platform):
    from .conftest import Flow

    state, nonce = Flow(lti_app.test_client(), platform).start(lti_message_hint="m-2")
    frame = lti_app.test_client(use_cookies=False)
    resp = Flow(frame, platform).launch(platform.sign(platform.claims(nonce)), state)
    html = resp.get_data(as_text=True).replace("&amp;", "&")
    assert resp.status_code == 200 and 'target="_blank"' in html
    href = next(part.split('"', 1)[0] for part in html.split('href="')[1:] if "/lti/login?" in part)
    query = {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}
    assert query["lti1p3_new_window"] == "1" and query["lti_message_hint"] == "m-2"
    assert query["iss"] == platform.issuer and query["login_hint"] == "hint-1"
    # the window's own login is a top-level one: it goes straight to the platform
    again = frame.get(href.removeprefix(TOOL), base_url=TOOL)
    assert again.status_code == 302


def test_the_nonce_store_is_shared_by_workers(tmp_path, platform, tool_keys):
    """Two apps on one LTI store, as two gunicorn workers: a launch replayed on the other is refused."""
    from lesson.web import create_app

    from .conftest import Flow

    config = lti_config(tmp_path, platform, tool_keys)
    one, two = create_app(config), create_app(config)
    first = Flow(one.test_client(), platform)
    state, nonce = first.start()
    token = platform.sign(platform.claims(nonce))
    assert first.launch(token, state).status_code == 200
    replay_client = two.test_client()
    replay_client.set_cookie(f"lti1p3-{state}", state, domain="127.0.0.1")
    replay = Flow(replay_client, platform).launch(token, state)
    assert replay.status_code == 400 and 'data-lti-reason="replayed"' in replay.get_data(as_text=True)
