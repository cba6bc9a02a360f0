"""Deep Linking 2.0: the author's picker and the response the platform receives; the JWKS and the
configuration JSON a platform reads."""

from __future__ import annotations

import re

import jwt
from jwcrypto.jwk import JWK

from lesson.content.course import load_content

from .conftest import FIXTURE_CONTENT, TOOL, launch_id

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


def _picker(flow, platform) -> str:
    state, nonce = flow.start(lti_message_hint="deeplink")
    resp = flow.launch(platform.sign(platform.claims(nonce, kind="deeplink")), state)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _verify(client, token: str, platform) -> dict:
    keys = client.get("/lti/jwks", base_url=TOOL).get_json()["keys"]
    kid = jwt.get_unverified_header(token)["kid"]
    key = JWK(**next(k for k in keys if k["kid"] == kid)).export_to_pem()
    return jwt.decode(token, key, algorithms=["RS256"], audience=platform.issuer, issuer=platform.client_id)


def test_the_picker_lists_the_course_s_lessons(flow, platform):
    html = _picker(flow, platform)
    for title, summary in (("Fixture one", "A small lesson the engine tests use."), ("Fixture two", None)):
        assert title in html
        if summary:
            assert summary in html
    minutes = {lesson.minutes for lesson in load_content(FIXTURE_CONTENT).lessons}  # each lesson's estimate
    assert all(re.search(rf"\b{m} min", html) for m in minutes)
    assert html.count('type="checkbox" name="lesson"') == 2  # the platform accepts several


def test_chosen_lessons_go_back_as_resource_links_with_line_items(flow, platform):
    html = _picker(flow, platform)
    resp = flow.client.post(
        "/lti/deep-link",
        data={"launch": launch_id(html), "lesson": ["first", "second"], "retakes": "1"},
        headers={"Origin": TOOL},
        base_url=TOOL,
    )
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert f'action="{platform.base}/deep-link-return"' in page
    # the page may post to the platform's return URL's origin, and nowhere else
    csp = dict(d.strip().split(" ", 1) for d in resp.headers["Content-Security-Policy"].split(";"))
    assert csp["form-action"] == platform.base
    token = re.search(r'name="JWT" value="([^"]+)"', page)[1]
    body = _verify(flow.client, token, platform)
    assert body[CLAIM + "message_type"] == "LtiDeepLinkingResponse"
    assert body[CLAIM + "deployment_id"] == platform.deployment_id
    assert body[DL + "data"] == "platform-data-1"
    first, second = body[DL + "content_items"]
    assert first["type"] == "ltiResourceLink" and first["title"] == "Fixture one"
    assert first["url"] == f"{TOOL}/lti/launch"
    assert first["custom"] == {"lesson": "first", "retakes": "1"}
    assert first["lineItem"] == {"scoreMaximum": 2, "label": "Fixture one", "resourceId": "first"}
    assert second["custom"]["lesson"] == "second" and "lineItem" not in second  # no quick check, no grade


def test_choosing_nothing_says_so_and_keeps_the_picker(flow, platform):
    html = _picker(flow, platform)
    resp = flow.client.post("/lti/deep-link", data={"launch": launch_id(html)}, headers={"Origin": TOOL}, base_url=TOOL)
    assert resp.status_code == 400
    page = resp.get_data(as_text=True)
    assert 'role="alert"' in page and 'name="lesson"' in page


def test_a_picker_post_for_an_unknown_launch_is_refused(flow):
    form = {"launch": "lti1p3-launch-nope", "lesson": "first"}
    resp = flow.client.post("/lti/deep-link", data=form, headers={"Origin": TOOL}, base_url=TOOL)
    assert resp.status_code == 400 and 'data-lti-reason="unknown_launch"' in resp.get_data(as_text=True)


def test_a_resource_launch_cannot_be_used_to_answer_a_picker(flow, platform):
    state, nonce = flow.start()
    html = flow.launch(platform.sign(platform.claims(nonce)), state).get_data(as_text=True)
    resp = flow.client.post(
        "/lti/deep-link", data={"launch": launch_id(html), "lesson": "first"}, headers={"Origin": TOOL}, base_url=TOOL
    )
    assert resp.status_code == 400


def test_jwks_publishes_the_tool_s_public_key(lti_client, tool_keys):
    keys = lti_client.get("/lti/jwks", base_url=TOOL).get_json()["keys"]
    assert len(keys) == 1
    key = keys[0]
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig" and key["kid"]
    assert "d" not in key and "p" not in key  # public parts only
    public = JWK.from_pem((tool_keys / "public.key").read_bytes())
    assert key["n"] == public.export_public(as_dict=True)["n"]


def test_the_configuration_json_names_the_tool_s_urls(lti_client):
    conf = lti_client.get("/lti/config.json", base_url=TOOL).get_json()
    assert conf["oidc_initiation_url"] == f"{TOOL}/lti/login"
    assert conf["target_link_uri"] == f"{TOOL}/lti/launch"
    assert conf["public_jwk_url"] == f"{TOOL}/lti/jwks"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in conf["scopes"]
    placements = conf["extensions"][0]["settings"]["placements"]
    assert {p["message_type"] for p in placements} == {"LtiDeepLinkingRequest"}
    assert conf["public_jwk"]["kid"] == lti_client.get("/lti/jwks", base_url=TOOL).get_json()["keys"][0]["kid"]
