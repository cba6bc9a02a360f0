"""Each flow the lessons teach, run on real SDK servers and clients, its frames held against ``lesson trace``."""

from __future__ import annotations

import anyio
import pytest

from .harness import Lab, compare, sdk_frames, show, sim_frames
from .host import Host


def check(lab: Lab, playground: dict, variants: list[str]) -> None:
    sim, sdk = compare(sim_frames(playground), sdk_frames(lab.records()), variants)
    assert sdk == sim, f"the SDK's frames:\n{show(sdk)}\n\nthe simulation's:\n{show(sim)}"


def run(flow) -> None:
    async def main() -> None:
        async with anyio.create_task_group() as tg:
            try:
                await flow(tg)
            finally:
                tg.cancel_scope.cancel()

    anyio.run(main)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_list_changed_over_http(tmp_path, era):
    """B deploys a tool from outside any request: B's notice on the open stream, then a re-list."""
    lab = Lab(tmp_path, "outage")
    playground = {"start": {"name": "outage", "era": era}, "events": [{"kind": "deploy_tool", "server": "B"}]}
    try:
        lab.start_http("A", "B")

        async def flow(tg):
            host = Host(lab, era, tg)
            try:
                lab.step(0)
                await host.connect("A")
                await host.connect("B")
                lab.step(1)
                lab.deploy("B")
                assert "close_ticket" in await host.changed("B")
            finally:
                await host.close()

        run(flow)
    finally:
        lab.close()
    check(lab, playground, ["body-json-or-sse", "get-accept-extra", "session-id-echoed"])
