"""Fixtures for the LTI tests: the tool's keys, a test platform (tests/lti/platform.py), and the app
configured with the platform's registration."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from lesson.portal.lti.keys import write_keys
from tests.threads import serve_in_thread

from .platform import Platform

FIXTURE_CONTENT = Path(__file__).parent.parent / "fixtures" / "content"
TOOL = "http://127.0.0.1:5000"


@pytest.fixture(scope="session")
def tool_keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lti-keys")
    write_keys(folder)
    return folder


@pytest.fixture(scope="session")
def platform() -> Platform:
    p = Platform("http://localhost:9")
    p.tool = TOOL
    return p


def lti_config(tmp_path: Path, platform: Platform, tool_keys: Path, **extra) -> dict:
    path = tmp_path / "lti.json"
    path.write_text(json.dumps(platform.registration(tool_keys)), encoding="utf-8")
    return {
        "SECRET_KEY": "t",
        "TESTING": True,
        "LTI_CONFIG": str(path),
        "LTI_STATE": str(tmp_path / "lti-state.sqlite3"),
        "OUTBOX_URL": f"sqlite:///{tmp_path / 'outbox.sqlite3'}",
        "CONTENT_ROOT": str(FIXTURE_CONTENT),
        **extra,
    }


@pytest.fixture
def lti_app(tmp_path: Path, platform: Platform, tool_keys: Path):
    from lesson.web import create_app

    return create_app(lti_config(tmp_path, platform, tool_keys))


@pytest.fixture
def lti_client(lti_app):
    return lti_app.test_client()


class Flow:
    """Login initiation and launch as the platform's pages post them (another site's Origin)."""

    def __init__(self, client, platform: Platform, base: str = TOOL) -> None:
        self.client = client
        self.base = base
        self.platform = platform
        self.origin = {"Origin": platform.base}

    def login(self, **extra: str):
        return self.client.post(
            "/lti/login", data=self.platform.login_query(**extra), headers=self.origin, base_url=self.base
        )

    def start(self, **extra: str) -> tuple[str, str]:
        """A login initiation; gives the state and nonce the tool sent to the authorization endpoint."""
        resp = self.login(**extra)
        if resp.status_code == 200:  # platform storage: the page keeps them, then follows its link
            html = resp.get_data(as_text=True)
            return re.search(r'data-state="([^"]+)"', html)[1], re.search(r'data-nonce="([^"]+)"', html)[1]
        assert resp.status_code == 302, resp.get_data(as_text=True)
        query = parse_qs(urlsplit(resp.headers["Location"]).query)
        return query["state"][0], query["nonce"][0]

    def launch(self, token: str, state: str, **extra: str):
        return self.client.post(
            "/lti/launch", data={"id_token": token, "state": state, **extra}, headers=self.origin, base_url=self.base
        )


@pytest.fixture
def flow(lti_client, platform) -> Flow:
    return Flow(lti_client, platform)


def launch_id(html: str) -> str:
    m = re.search(r'data-launch="([^"]+)"', html) or re.search(r'name="launch" value="([^"]+)"', html)
    assert m, "no launch id on the page"
    return m.group(1)


class Live:
    """The test platform on http://localhost:P and the tool on http://127.0.0.1:T, both served in
    threads of this process: two sites, as an LMS and a tool are."""

    def __init__(self, tmp_path: Path, tool_keys: Path, **config) -> None:
        from werkzeug.serving import make_server

        from lesson.web import create_app
        from lesson.web.server import make_dev_server

        self.platform = Platform()
        self.platform_server = make_server("127.0.0.1", 0, self.platform.app(), threaded=True)
        self.platform.base = f"http://localhost:{self.platform_server.server_port}"
        path = tmp_path / "lti.json"
        path.write_text(json.dumps(self.platform.registration(tool_keys, key_set_url=True)), encoding="utf-8")
        self.app = create_app(
            {
                **lti_config(tmp_path, self.platform, tool_keys),
                "LTI_CONFIG": str(path),
                "OUTBOX_RETRY_INITIAL": 0.05,
                "OUTBOX_RETRY_MAX": 0.5,
                "OUTBOX_POLL": 0.1,
                **config,
            }
        )
        self.tool_server = make_dev_server("127.0.0.1", 0, self.app)
        self.tool = f"http://127.0.0.1:{self.tool_server.server_port}"
        self.platform.tool = self.tool
        self.threads = [serve_in_thread(s) for s in (self.platform_server, self.tool_server)]

    def stop(self) -> None:
        box = self.app.extensions.get("outbox")
        if box is not None:
            box.stop()
        for server in (self.tool_server, self.platform_server):
            server.shutdown()
            server.server_close()


@pytest.fixture
def live(tmp_path: Path, tool_keys: Path):
    started: list[Live] = []

    def start(**config) -> Live:
        started.append(Live(tmp_path, tool_keys, **config))
        return started[-1]

    yield start
    for one in started:
        one.stop()
