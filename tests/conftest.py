"""Shared fixtures: the Flask app and client, and a live server plus Chromium for browser tests."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.ports import free_port
from tests.threads import serve_in_thread

# Property tests draw new examples on every local run; CI (HYPOTHESIS_PROFILE=ci, set by .ci/run)
# draws the same ones each time, so a run's verdict depends on the code, not on the draw.
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Browser tests wait on conditions (auto-waiting expect), never on a clock; the ceiling on how long a
# condition may take to come true is generous, so a machine busy with other work slows the suite
# rather than failing it.
with contextlib.suppress(ImportError):
    from playwright.sync_api import expect

    expect.set_options(timeout=20_000)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def find_chromium(headless_shell: bool = False) -> str | None:
    """$LESSON_CHROMIUM, then Debian's Chromium, then Playwright's own managed browser.

    With ``headless_shell``, Debian's chromium-headless-shell comes first when installed: the same Blink
    without the browser's user interface, which opens a page in about half the time (the browser tests
    open some 300). Benchmarks and tests that need a full browser's settings (a profile's third-party
    storage blocking) ask for the full one."""
    explicit = os.environ.get("LESSON_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    candidates = ["/usr/bin/chromium", shutil.which("chromium") or ""]
    if headless_shell:
        candidates.insert(0, "/usr/bin/chromium-headless-shell")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            managed = p.chromium.executable_path
        if managed and Path(managed).exists():
            return ""  # Playwright's default: no executable_path needed
    except Exception:
        pass
    return None


# Fixtures through which a test drives Chromium (pytest-playwright's, and the conftests' own).
BROWSER_FIXTURES = {"page", "context", "browser", "browser_type", "blocking_context"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist with ``--dist loadgroup`` (``make test`` runs two processes), every browser test
    is one group: they run in order on one process, one Chromium at a time, while the other process takes
    the rest (servers, subprocesses, property tests), whose waits and work overlap with the browser's.
    Without xdist the mark does nothing.

    A browser test that fails runs again, twice at most, after a pause of 2 s (pytest-rerunfailures).
    The tests wait on conditions, never on a clock, yet Chromium on two busy cores still loses a race
    now and then, in one or two tests of a full run, a different one each time. A real fault fails every
    run the same way, and ``-rR`` lists every rerun, so none goes unseen."""
    rerun = config.pluginmanager.hasplugin("rerunfailures")
    for item in items:
        if not BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            continue
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group("browser"))
        if rerun and not item.get_closest_marker("flaky"):
            item.add_marker(pytest.mark.flaky(reruns=2, reruns_delay=2))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    path = find_chromium(headless_shell=True)
    if path is None:
        pytest.fail(
            "No Chromium for the browser tests. Install Debian's (apt-get install chromium), "
            "set LESSON_CHROMIUM=/path/to/chromium, or run `.venv/bin/python -m playwright install chromium`. "
            "`make test` installs Debian's package by itself when run as root.",
            pytrace=False,
        )
    args = {**browser_type_launch_args, "headless": True, "args": CHROMIUM_ARGS}
    if path:
        args["executable_path"] = path
    return args


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Pages open in reduced motion, as a learner who asks for it sees them: a press's changes then
    come into view at once. With motion, the page scrolls them in smoothly, and a click aimed while
    that scroll runs can land beside its button. The tests of motion itself switch it back on
    (``page.emulate_media(reduced_motion="no-preference")``)."""
    return {**browser_context_args, "reduced_motion": "reduce"}


@pytest.fixture
def blocking_context(browser_type, browser_type_launch_args: dict, browser_context_args: dict, tmp_path: Path):
    """Chromium with its own "block third-party cookies" setting on, which also refuses third-party
    storage: a cross-site frame's sessionStorage throws SecurityError, as in many portals."""
    profile = tmp_path / "profile"
    (profile / "Default").mkdir(parents=True)
    prefs = {"profile": {"cookie_controls_mode": 1, "block_third_party_cookies": True}}
    (profile / "Default" / "Preferences").write_text(json.dumps(prefs))
    # One renderer for every frame (site isolation off). An LTI launch moves its frame from the tool's
    # site to the platform's (the authorization page) and back; with site isolation each move swaps the
    # frame's renderer process, and Playwright, following the frame across the swaps, now and then lost
    # it and waited for ever. Cookies and storage are refused to a cross-site frame all the same (the
    # embedded-page tests check that). Only this flag: a --disable-features of our own would replace
    # Playwright's list, whose entries keep third-party storage as these tests expect it.
    args = {**browser_type_launch_args}
    args["args"] = [*args.get("args", []), "--disable-site-isolation-trials"]
    full = find_chromium()  # the headless shell reads no profile settings
    if full:
        args["executable_path"] = full
    context = browser_type.launch_persistent_context(
        str(profile), reduced_motion=browser_context_args["reduced_motion"], **args
    )
    # Should the browser stop answering mid-test all the same, Playwright's calls on it (closing included)
    # would wait for ever and the run stall. If the test and its close are not done within the deadline,
    # the browser is killed: the waiting call fails, and the test fails (and reruns).
    watchdog = threading.Timer(BLOCKING_CONTEXT_DEADLINE_S, kill_browsers_of, args=(profile,))
    watchdog.daemon = True
    watchdog.start()
    try:
        yield context
        context.close()
    finally:
        watchdog.cancel()


BLOCKING_CONTEXT_DEADLINE_S = 120  # such a test takes some 5 s; 20 s on a machine busy with other work


def kill_browsers_of(profile: Path) -> None:
    """SIGKILL the browser processes started on this profile (Playwright passes it as --user-data-dir)."""
    flag = f"--user-data-dir={profile}".encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if flag in (proc / "cmdline").read_bytes().split(b"\0"):
                os.kill(int(proc.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue  # gone already, or not ours to read


@pytest.fixture
def app():
    from lesson.web import create_app

    return create_app({"TESTING": True, "SECRET_KEY": "test"})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """The real app on 127.0.0.1, a free port, in a thread; one per test session."""
    from werkzeug.serving import make_server

    from lesson.web import create_app

    server = make_server("127.0.0.1", 0, create_app({"SECRET_KEY": "e2e"}), threaded=True)
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    return live_server


@pytest.fixture
def serve_app():
    """Start the app with extra settings on 127.0.0.1 (a free port, in a thread); gives its URL."""
    from lesson.web import create_app
    from lesson.web.server import make_dev_server

    servers = []

    def start(**config) -> str:
        server = make_dev_server("127.0.0.1", 0, create_app({"SECRET_KEY": "t", **config}))
        serve_in_thread(server)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server in servers:
        server.shutdown()


def wait_healthy(base: str, proc, timeout: float = 60) -> None:
    import time
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server at {base} did not come up")


@pytest.fixture
def spawn():
    """Start `lesson serve` as its own process group (so every process of it can be SIGKILLed)."""
    import signal
    import subprocess
    import sys
    import tempfile

    procs = []

    def start(port: int | None = None, workers: int = 0, env: dict | None = None):
        port = port or free_port()
        cmd = [sys.executable, "-m", "lesson.cli", "serve", "--port", str(port)]
        if workers:
            cmd += ["--workers", str(workers), "--threads", "64"]
        log = tempfile.NamedTemporaryFile(prefix="lesson-serve-", suffix=".log", delete=False)  # noqa: SIM115
        proc = subprocess.Popen(
            cmd,
            env={**os.environ, "LESSON_WS_HELLO_TIMEOUT": "20", **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
        proc.log_path = log.name  # the server's log: tests read it for tracebacks
        log.close()
        procs.append(proc)
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, proc)
        return base, proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        with contextlib.suppress(OSError):
            os.unlink(proc.log_path)
