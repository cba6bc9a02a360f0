"""The differential suite needs the official SDK (the ``sdk`` extra). Without it the suite fails at
collection with the command that installs it: it must never pass by being skipped."""

from __future__ import annotations

import psutil
import pytest

try:
    import mcp  # noqa: F401
except ImportError:
    raise pytest.UsageError(
        "tests/sdk needs the official MCP SDK (mcp==2.3.0). Install it with: pip install -e '.[test,sdk]'"
    ) from None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A flow that fails is run again, twice at most. Real processes meet the SDK's own fixed timeouts on a
    busy machine. A difference in the frames fails every run the same way, so a rerun never hides one."""
    for item in items:
        if item.nodeid.startswith("tests/sdk/test_differential.py"):
            item.add_marker(pytest.mark.flaky(reruns=2))


@pytest.fixture(scope="session", autouse=True)
def zygote():
    """One process that has imported the SDK forks the servers of every flow (HTTP and stdio)."""
    from . import harness

    harness.ZYGOTE = harness.Zygote()
    yield harness.ZYGOTE
    harness.ZYGOTE.close()
    harness.ZYGOTE = None


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """Every process a flow started is gone when it ends, whether it passed or failed."""
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    yield
    left = [p for p in me.children(recursive=True) if p.pid not in before]
    _, alive = psutil.wait_procs(left, timeout=5)
    for p in alive:
        p.kill()
    assert not alive, f"processes left running: {[(p.pid, p.cmdline()[:4]) for p in alive]}"
