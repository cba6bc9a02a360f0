"""Every launch the tool must refuse: a clear page naming what failed (never the token's contents), the
reason in the log, and nothing recorded."""

from __future__ import annotations

import logging
import sqlite3
import time

import jwt
import pytest

from .conftest import TOOL, Flow

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


def launches_recorded(app) -> int:
    path = app.extensions["lti"].cache.path
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM cache WHERE key LIKE 'lti-launch-%'").fetchone()[0]


def assert_refused(resp, code: str, caplog, *secrets: str) -> None:
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400, html
    assert f'data-lti-reason="{code}"' in html and "<h1>" in html
    for secret in secrets:
        assert secret not in html
    assert any(code in r.getMessage() and r.name == "lesson.portal.lti" for r in caplog.records)
    for secret in secrets:
        assert all(secret not in r.getMessage() for r in caplog.records)


def _token(platform, nonce, **change):
    return platform.claims(nonce, **{"sub": "learner-secret-sub", **change})


CASES = {
    "unknown_platform": {"iss": "https://unknown.example"},
    "wrong_audience": {"aud": "another-client"},
    "expired": {"exp": int(time.time()) - 600, "iat": int(time.time()) - 900},
    "no_deployment": {CLAIM + "deployment_id": None},
    "unknown_deployment": {CLAIM + "deployment_id": "deployment-9"},
}


@pytest.mark.parametrize("code", list(CASES))
def test_a_bad_token_is_refused(code, lti_app, flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, nonce = flow.start()
    body = _token(platform, nonce)
    body.update({k: v for k, v in CASES[code].items() if v is not None})
    for k, v in CASES[code].items():
        if v is None:
            body.pop(k)
    token = platform.sign(body)
    assert_refused(flow.launch(token, state), code, caplog, token, "learner-secret-sub", nonce)
    assert launches_recorded(lti_app) == 0


@pytest.mark.parametrize("odd", [{"exp": "soon"}, {"iat": 10**30}, {"iat": "now"}, {"sub": {"id": 1}}])
def test_a_signed_token_with_a_malformed_claim_is_not_called_forged(odd, lti_app, flow, platform, caplog):
    """The platform signed it, so the page names the claim, not a signature that does not match."""
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, nonce = flow.start()
    token = platform.sign({**_token(platform, nonce), **odd})
    assert_refused(flow.launch(token, state), "bad_claims", caplog, token)
    assert launches_recorded(lti_app) == 0


def test_a_forged_token_whose_header_pyjwt_refuses_first_is_still_a_bad_signature(lti_app, flow, platform, caplog):
    """PyJWT checks a header (here a critical extension it does not know) before the signature: a token
    signed with another key is still called what it is, never a signed token with an odd claim."""
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, nonce = flow.start()
    pem = platform.other_key.export_to_pem(private_key=True, password=None)
    headers = {"kid": platform.kid, "crit": ["zzz"], "zzz": 1}
    token = jwt.encode(_token(platform, nonce), pem, algorithm="RS256", headers=headers)
    assert_refused(flow.launch(token, state), "bad_signature", caplog, token)


def test_a_bad_signature_is_refused(lti_app, flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, nonce = flow.start()
    token = platform.sign(_token(platform, nonce), key=platform.other_key)  # the platform's kid, another key
    assert_refused(flow.launch(token, state), "bad_signature", caplog, token, "learner-secret-sub")
    assert launches_recorded(lti_app) == 0


def test_a_tampered_token_is_refused(lti_app, flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, nonce = flow.start()
    header, payload, signature = platform.sign(_token(platform, nonce)).split(".")
    other = platform.sign(_token(platform, nonce, sub="someone-else")).split(".")[1]
    assert_refused(flow.launch(f"{header}.{other}.{signature}", state), "bad_signature", caplog)
    assert launches_recorded(lti_app) == 0


def test_a_nonce_the_tool_never_issued_is_refused(lti_app, flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, _ = flow.start()
    assert_refused(flow.launch(platform.sign(_token(platform, "made-up-nonce")), state), "unknown_nonce", caplog)
    assert launches_recorded(lti_app) == 0


def test_a_replayed_launch_is_refused(lti_app, flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, nonce = flow.start()
    token = platform.sign(_token(platform, nonce))
    assert flow.launch(token, state).status_code == 200
    assert launches_recorded(lti_app) == 1
    assert_refused(flow.launch(token, state), "replayed", caplog, token, "learner-secret-sub")
    assert launches_recorded(lti_app) == 1


def test_a_state_that_does_not_match_is_refused(lti_app, flow, platform, caplog):
    """The token comes with another state than the one this browser's login set."""
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    _, nonce = flow.start()
    token = platform.sign(_token(platform, nonce))
    assert_refused(flow.launch(token, "state-not-ours"), "state_mismatch", caplog, token)
    # another browser (no cookie) posting a state it did not start is refused the same way
    stranger = Flow(lti_app.test_client(use_cookies=False), platform)
    assert_refused(stranger.launch(token, "state-also-not-ours"), "state_mismatch", caplog, token)
    verified = lti_app.test_client().post(
        "/lti/launch/verified", data={"state": "state-x", "id_token": token}, headers={"Origin": TOOL}, base_url=TOOL
    )
    assert_refused(verified, "state_mismatch", caplog, token)
    assert launches_recorded(lti_app) == 0


def test_no_token_and_garbage_are_refused(lti_app, flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    state, _ = flow.start()
    assert_refused(flow.launch("", state), "no_token", caplog)
    assert_refused(flow.launch("not.a.jwt", state), "no_token", caplog)
    assert_refused(flow.launch("only-one-part", state), "no_token", caplog)
    assert launches_recorded(lti_app) == 0


def test_a_login_from_an_unknown_platform_or_client_is_refused(flow, platform, caplog):
    caplog.set_level(logging.WARNING, "lesson.portal.lti")
    assert_refused(flow.login(iss="https://unknown.example"), "unknown_platform", caplog)
    assert_refused(flow.login(client_id="another-client"), "unknown_platform", caplog)
    query = platform.login_query()
    query.pop("login_hint")
    resp = flow.client.post("/lti/login", data=query, headers=flow.origin, base_url=TOOL)
    assert_refused(resp, "no_login_hint", caplog)


ODD = [
    {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {"scope": "score", "lineitem": 7}},
    {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": "not an object"},
    {CLAIM + "custom": ["lesson", "first"]},
    {CLAIM + "custom": {"lesson": {"nested": 1}}},
    {CLAIM + "resource_link": "link-1"},
    {CLAIM + "roles": None},
    {"sub": ""},
    {CLAIM + "message_type": "LtiSomethingElse"},
]


@pytest.mark.parametrize("odd", ODD)
def test_odd_claims_in_a_signed_token_get_a_page_not_a_crash(odd, flow, platform):
    state, nonce = flow.start()
    resp = flow.launch(platform.sign({**_token(platform, nonce), **odd}), state)
    assert resp.status_code in (200, 400)
    assert "<h1>" in resp.get_data(as_text=True)


@pytest.mark.parametrize("return_url", ["javascript:x", "http://[::1/", None])
def test_a_deep_linking_launch_with_nowhere_to_return_to_is_refused_before_the_picker(flow, platform, return_url):
    """An author would pick lessons for nothing: the launch is refused, and the picker never shown."""
    state, nonce = flow.start()
    body = platform.claims(nonce, kind="deeplink")
    settings = body["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"]
    if return_url is None:
        del settings["deep_link_return_url"]
    else:
        settings["deep_link_return_url"] = return_url
    resp = flow.launch(platform.sign(body), state)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "<h1>" in page and 'name="launch"' not in page
    assert "javascript:" not in page


@pytest.mark.parametrize(
    "message",
    [
        "Error during fetch URL https://lms.example/jwks: Connection refused",
        "Invalid response from https://lms.example/jwks. Must be JSON: <html>",
    ],
)
def test_keys_that_cannot_be_fetched_are_named_not_called_a_bad_message(message: str) -> None:
    """The administrator is told to look at the key set URL, not at the launch."""
    from pylti1p3.exception import LtiException

    from lesson.portal.lti.tool import REASONS, reason_for

    assert reason_for(LtiException(message)) == "no_keys" and "key" in REASONS["no_keys"]
