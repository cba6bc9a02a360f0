"""The LTI store under gunicorn: one login and launch, then the same launch replayed on fresh
connections at once, so both workers answer some; every replay is refused."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import requests

from tests.ports import free_port

from .conftest import lti_config
from .platform import Platform


def test_two_workers_share_nonces_so_every_replay_is_refused(spawn, tmp_path, tool_keys):
    platform = Platform()
    port = free_port()
    platform.tool = f"http://127.0.0.1:{port}"
    config = lti_config(tmp_path, platform, tool_keys)
    keys = ("LTI_CONFIG", "LTI_STATE", "CONTENT_ROOT", "OUTBOX_URL", "SECRET_KEY")
    base, _ = spawn(port=port, workers=2, env={f"LESSON_{k}": str(config[k]) for k in keys})
    origin = {"Origin": platform.base}
    login = requests.post(f"{base}/lti/login", data=platform.login_query(), headers=origin, allow_redirects=False)
    assert login.status_code == 302
    query = parse_qs(urlsplit(login.headers["Location"]).query)
    state, nonce = query["state"][0], query["nonce"][0]
    form = {"id_token": platform.sign(platform.claims(nonce)), "state": state}
    # the state cookie is Secure: sent by hand over loopback http, as a browser does for 127.0.0.1
    headers = {**origin, "Cookie": f"lti1p3-{state}={state}"}
    first = requests.post(f"{base}/lti/launch", data=form, headers=headers, timeout=30)
    assert first.status_code == 200 and "Fixture one" in first.text

    def replay(_: int) -> requests.Response:
        with requests.Session() as fresh:  # a connection of its own
            return fresh.post(f"{base}/lti/launch", data=form, headers=headers, timeout=30)

    with ThreadPoolExecutor(8) as pool:
        replays = list(pool.map(replay, range(16)))
    assert [r.status_code for r in replays] == [400] * 16
    assert all('data-lti-reason="replayed"' in r.text for r in replays)
