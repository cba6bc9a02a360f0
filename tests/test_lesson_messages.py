"""The messages a lesson prints from a playground's server are that server's own, as the playground's Wire
tab shows them: lesson 2's P (project-management) and Q (postgres) of the guide playground."""

from __future__ import annotations

from typing import Any

import pytest

from lesson.content.course import default_root, load_content, messages
from lesson.sim import Playground
from lesson.sim.trace import trace

ERAS = ["legacy", "modern"]


def sim_results(era: str) -> list[dict[str, Any]]:
    """Every result P and Q send in the guide playground, P's list after a sign-in as an admin included."""
    sign_in = {"kind": "reauthenticate", "server": "P", "role": "admin"}
    playground = Playground.model_validate({"start": {"name": "guide", "era": era}, "events": [sign_in]})
    return [r["msg"]["result"] for r in trace(playground) if r["from"] in ("P", "Q") and "result" in (r["msg"] or {})]


def lesson_results(era: str) -> list[dict[str, Any]]:
    lesson = load_content(default_root()).lesson("list-changed")
    assert lesson is not None
    return [data["result"] for e, _, data, _ in messages(lesson) if e == era and "result" in data]  # type: ignore[operator]


def server_info(result: dict[str, Any]) -> dict[str, Any] | None:
    return result.get("serverInfo") or (result.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo")


@pytest.mark.parametrize("era", ERAS)
def test_the_tool_list_lesson_2_prints_is_the_admin_s_list_p_sends(era: str) -> None:
    [printed] = [r for r in lesson_results(era) if "tools" in r]
    [sent] = [r for r in sim_results(era) if "tools" in r and len(r["tools"]) == len(printed["tools"])]
    # Annotations are left out of the print, to keep it short; what a tool is and takes is not.
    fields = ("name", "description", "inputSchema")
    assert [{k: t[k] for k in fields} for t in printed["tools"]] == [{k: t[k] for k in fields} for t in sent["tools"]]
    assert printed.get("ttlMs") == sent.get("ttlMs")


@pytest.mark.parametrize("era", ERAS)
def test_each_handshake_lesson_2_prints_names_the_server_as_it_introduces_itself(era: str) -> None:
    printed = [server_info(r) for r in lesson_results(era) if server_info(r)]
    sent = [server_info(r) for r in sim_results(era) if server_info(r)]
    assert printed and all(info in sent for info in printed), (printed, sent)
