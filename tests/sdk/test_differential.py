"""Each flow the lessons teach, run on real SDK servers and clients, its frames held against ``lesson trace``.

A flow names the allowed variants it needs (``allowed_variants.yaml``); everything else must match. A
difference that is a simulation bug is marked ``xfail(strict=True)`` with the difference as its reason,
so the test turns red the day the simulation is fixed and the mark must go.
"""

from __future__ import annotations

import contextlib
import json
import select
import subprocess
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from lesson.sim import Start, advance, begin, parse_event, view
from lesson.sim import wire as w
from tests import schemas

from .harness import (
    REPO,
    SETUP,
    TEARDOWN,
    WAIT,
    Lab,
    compare,
    diff,
    scenario_playground,
    sdk_frames,
    show,
    sim_calls,
    sim_frames,
)
from .host import LabHost

FLOW_TIMEOUT = 60  # seconds: a flow that hangs fails instead (a flow takes 2-5 s on a quiet machine)
HTTP_VARIANTS = ["body-json-or-sse", "get-accept-extra", "session-id-echoed"]
SCENARIOS = REPO / "content" / "scenarios"
ERAS = ["modern", "legacy"]
RESTART, TURN = {"kind": "restart_server", "server": "W"}, {"kind": "take_turn"}


def differential(
    tmp_path: Path,
    playground: dict[str, Any],
    variants: list[str],
    flow: Callable[[Lab, LabHost, dict[int, list]], Awaitable[None]],
    http: tuple[str, ...] = (),
    tokens: bool = False,
    once: dict[str, dict[str, str]] | None = None,
    listen: bool | None = None,
    **server_args: str,
) -> None:
    """Start the servers, run ``flow`` with an SDK host, stop everything, then compare the two wires.
    ``tokens``: the servers want a bearer token, and the user holds one. ``once``: server arguments for the
    first process of each named server only."""
    start = playground["start"]
    lab = Lab(tmp_path, start["name"], start.get("options"), **server_args)
    token = ""
    if tokens:
        lab.server_args["tokens_file"] = lab.tokens_file()
        token = lab.issue_token()
    calls = sim_calls(playground)
    try:
        if http:
            lab.start_http(*http, each=once)

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                # The restart lab listens only when its switch says so; every other start's host listens.
                options = start.get("options") or {}
                listens = bool(options.get("listen")) if start["name"] == "restart" else True
                host = LabHost(lab, start["era"], tg, listen=listens if listen is None else listen, token=token)
                try:
                    with anyio.fail_after(FLOW_TIMEOUT):
                        await flow(lab, host, calls)
                finally:
                    lab.step(TEARDOWN)  # what the host sends as the test ends is no step of the playground
                    await host.close()
                    tg.cancel_scope.cancel()

        # In a thread of its own: Playwright's sync API keeps an event loop running in the main thread for
        # the whole session once a browser test has run, and anyio will not start a second one there.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(anyio.run, main).result()
    except BaseException:
        # Shown by pytest with the failure: what crossed until then, and what broke in a proxy, if anything.
        print("the wire until the flow failed:\n" + "\n".join(map(json.dumps, lab.records())))
        raise
    finally:
        lab.close()
    sim, sdk = compare(sim_frames(playground), sdk_frames(lab.records()), variants)
    notes = [r for r in lab.records() if r.get("kind") == "note"]  # what the SDK host raised, if anything
    assert sdk == sim, f"the two wires differ:\n{diff(sim, sdk)}\n\nthe SDK's frames:\n{show(sdk)}\n{notes}"


async def turn(lab: Lab, host: LabHost, calls: dict[int, list], step: int) -> None:
    """The model's turn: the calls the simulated model makes at this step, made by the SDK host."""
    lab.step(step)
    for server, tool, arguments in calls.get(step, []):
        await host.call(server, tool, arguments)


def playground(name: str, era: str, *events: dict[str, Any], **options: Any) -> dict[str, Any]:
    """A playground of the start ``name`` in ``era`` with these start options, then ``events``."""
    start: dict[str, Any] = {"name": name, "era": era, **({"options": options} if options else {})}
    return {"start": start, "events": list(events)}


async def logged(lab: Lab, match: Callable[[dict[str, Any]], bool], what: str, after: int) -> dict[str, Any]:
    """The first record from ``after`` on that ``match`` accepts, waited for in a thread (the log is a file)."""
    return await anyio.to_thread.run_sync(lambda: lab.wait_logged(match, what, after))


async def logged_404(lab: Lab, after: int) -> None:
    await logged(lab, lambda r: r.get("kind") == "response" and r["status"] == 404, "a 404", after)


async def opening(lab: Lab, host: LabHost, *names: str, **how: Any) -> None:
    """Step 0: the host connects to each server in turn."""
    lab.step(0)
    for name in names:
        await host.connect(name, **how)


async def dies(lab: Lab, host: LabHost, name: str) -> int:
    """``name``'s process is killed and the host sees it go; where the log stood before the kill."""
    mark = len(lab.records())
    lab.kill(name)
    await host.wait_lost(name)
    return mark


async def back(lab: Lab, host: LabHost, name: str, era: str, mark: int, reconnect: bool = True) -> None:
    """``name`` is back as a new process. Legacy: the SDK client's own GET retry (with the old session id)
    meets it and is answered 404, then the host starts a new session (``reconnect``; otherwise its next
    request finds out). Modern: the host listens again and re-lists."""
    lab.start_http(name)
    if era == "legacy":
        await logged_404(lab, mark)
        if reconnect:
            await host.connect(name)
    else:
        await host.back(name)


async def asked_then_restarted(lab: Lab, host: LabHost, tool: str, arguments: dict[str, str]) -> None:
    """Steps 0 to 2: the host connects to W, the model's call to ``tool`` asks the user, and W restarts (its
    new process started with the lab's server arguments); then step 3, where the user answers, begins."""
    await opening(lab, host, "W")
    lab.step(1)
    await host.ask("W", tool, arguments)
    lab.step(2)
    lab.kill("W")
    lab.start_http("W")
    lab.step(3)


async def call_running(
    lab: Lab, host: LabHost, server: str, tool: str, arguments: dict[str, str], era: str, resent: bool = False
) -> anyio.Event:
    """The model's call, started and left running: returns once the server has it, with an event set when the
    call ends. ``resent``: should the call break, the host sends it again itself (the flow does), so the break
    builds no error for the model."""
    mark = len(lab.records())
    ended = anyio.Event()

    async def broken_quietly() -> None:
        with contextlib.suppress(Exception):
            await host.conns[server].client.call_tool(tool, arguments)
        ended.set()

    if resent:
        host.tg.start_soon(broken_quietly)
    else:
        host.tg.start_soon(host.call, server, tool, arguments)
    call = await logged(lab, lambda r: (r.get("msg") or {}).get("method") == "tools/call", "the call", mark)
    if era == "legacy" and call.get("kind") == "request":
        # Over HTTP the call runs once the server has answered with its SSE stream's head. Killed before that
        # (the proxy logs a request before the server reads it), the SDK client's POST fails with no response
        # at all, which ends the whole client, its GET retry with it: a different flow from the lesson's.
        x = call["exchange"]
        await logged(lab, lambda r: r.get("kind") == "response" and r["exchange"] == x, "the call's stream", mark)
    return ended


@pytest.mark.parametrize("era", ERAS)
def test_list_changed_over_http(tmp_path, era):
    """B deploys a tool from outside any request: B's notice on the open stream, then a re-list."""
    outage = playground("outage", era, {"kind": "deploy_tool", "server": "B"})

    async def flow(lab, host, calls):
        await opening(lab, host, "A", "B")
        lab.step(1)
        lab.deploy("B")
        assert "close_ticket" in await host.changed("B")

    differential(tmp_path, outage, HTTP_VARIANTS, flow, http=("A", "B"))


@pytest.mark.parametrize("listen", [True, False], ids=["listening", "not-listening"])
def test_legacy_http_restart(tmp_path, listen):
    """W restarts. Listening, the client's GET meets 404, it initializes again, re-opens its stream and
    re-lists; the next call works on the new session. Not listening (the restart lab's switch off), the
    host learns of it only at its next request, a call, which meets 404; it starts a new session, lists
    again and sends the call again."""
    restart = playground("restart", "legacy", RESTART, TURN, listen=listen)

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        mark = len(lab.records())
        lab.kill("W")
        # The SDK's legacy client has a GET stream whatever the host wants, and tries to reopen it by itself
        # a second after it broke: waited for, so the wire is the same however long the restart takes.
        await back(lab, host, "W", "legacy", mark, reconnect=listen)
        await turn(lab, host, calls, 2)

    variants = HTTP_VARIANTS if listen else [*HTTP_VARIANTS, "get-stream-optional"]
    differential(tmp_path, restart, variants, flow, http=("W",), tokens=True)


def test_legacy_http_restart_without_a_session_id(tmp_path):
    """W issues no session id: there is no session to lose. The restart breaks the GET stream; the host opens
    it again, re-lists, and the next call just works, with no 404 and no initialize."""
    restart = playground("restart", "legacy", RESTART, TURN, listen=True, issues_session_id=False)

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        await dies(lab, host, "W")
        lab.start_http("W")
        await host.back("W")
        await turn(lab, host, calls, 2)

    variants = [*HTTP_VARIANTS, "get-stream-optional"]  # the SDK opens no GET to a server with no sessions
    differential(tmp_path, restart, variants, flow, http=("W",), tokens=True, stateless="yes")


def test_modern_http_restart(tmp_path):
    """W restarts while the host listens: the listen stream breaks with the old process, and the host listens to
    the new one, waits for the acknowledgement and re-lists (no session to lose); the next call just works."""
    restart = playground("restart", "modern", RESTART, TURN, listen=True)

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        mark = await dies(lab, host, "W")
        await back(lab, host, "W", "modern", mark)
        await turn(lab, host, calls, 2)

    differential(tmp_path, restart, HTTP_VARIANTS, flow, http=("W",), tokens=True)


@pytest.mark.parametrize("era", ERAS)
def test_churn(tmp_path, era):
    """The session with churn (content/scenarios/churn.yaml): turns, a deploy on B, C added by an admin, A dies
    (the model's call to A gets the host's own error, nothing is sent) and comes back."""
    churn = scenario_playground(SCENARIOS / "churn.yaml", era)

    async def flow(lab, host, calls):
        await opening(lab, host, "A", "B")
        await turn(lab, host, calls, 1)
        lab.step(2)
        lab.deploy("B")
        await host.changed("B")
        await turn(lab, host, calls, 3)
        lab.step(4)
        await host.connect("C")
        await turn(lab, host, calls, 5)
        lab.step(6)
        mark = await dies(lab, host, "A")
        await turn(lab, host, calls, 7)
        lab.step(8)
        await back(lab, host, "A", era, mark)
        await turn(lab, host, calls, 9)

    differential(tmp_path, churn, HTTP_VARIANTS, flow, http=("A", "B", "C"))


def test_modern_stdio_restart(tmp_path):
    """A restart on stdio is a new process the host launches: the listen request it held is gone, so it
    meets the new process from scratch, listens again, waits for the ack and re-lists."""
    restart = playground("restart", "modern", RESTART, TURN, transport="stdio", listen=True)

    async def flow(lab, host, calls):
        await opening(lab, host, "W", stdio=True)
        lab.step(1)
        await dies(lab, host, "W")
        await host.connect("W", stdio=True)
        await turn(lab, host, calls, 2)

    differential(tmp_path, restart, [], flow)


def test_legacy_stdio_restart(tmp_path):
    """On legacy stdio the new process needs initialize before anything else, then a re-list."""
    restart = playground("restart", "legacy", RESTART, TURN, transport="stdio", listen=True)

    async def flow(lab, host, calls):
        await opening(lab, host, "W", stdio=True)
        lab.step(1)
        lab.kill("W")
        await host.connect("W", stdio=True)
        await turn(lab, host, calls, 2)

    differential(tmp_path, restart, [], flow)


@pytest.mark.parametrize("era", ERAS)
def test_stdio_crash_with_a_call_in_flight(tmp_path, era):
    """The process exits while a call runs: the host reads EOF and gives the model an error it builds itself;
    nothing answers the call. Back as a new process, it is met from scratch and the next turn works."""
    events = [{"kind": kind, "server": "W"} for kind in ("start_call", "server_dies", "server_back")]
    restart = playground("restart", era, *events, TURN, transport="stdio", listen=True)

    async def flow(lab, host, calls):
        [(server, tool, arguments)] = calls[1]
        await opening(lab, host, "W", stdio=True, hangs=tool)
        lab.step(1)
        await call_running(lab, host, server, tool, arguments, era)
        lab.step(2)
        await dies(lab, host, "W")
        await host.wait_local_error("W")
        lab.step(3)
        await host.connect("W", stdio=True)
        await turn(lab, host, calls, 4)

    differential(tmp_path, restart, [], flow)


@pytest.mark.parametrize("era", ERAS)
def test_restart_while_the_user_answers(tmp_path, era):
    """content/scenarios/restart-answering.yaml: W asks the user, restarts, the answer is refused by the new
    process (modern: the requestState key lived in the old process; legacy: the session did), the user is
    asked again and the second answer finishes the call."""
    answering = scenario_playground(SCENARIOS / "restart-answering.yaml", era)
    [(_, tool, arguments)] = sim_calls(answering)[1]

    async def flow(lab, host, calls):
        await asked_then_restarted(lab, host, tool, arguments)
        assert not await host.answer("W", "OR")
        lab.step(4)
        assert await host.answer("W", "OR")
        await turn(lab, host, calls, 5)

    variants = HTTP_VARIANTS + (["get-stream-optional"] if era == "legacy" else [])
    differential(tmp_path, answering, variants, flow, http=("W",), tokens=True, asks=tool)


def test_mrtr_across_a_restart_with_a_durable_key(tmp_path):
    """The requestState key outlives the process (RequestStateSecurity with a key both processes hold): the
    retry after the restart verifies and the call finishes; the user is asked once."""
    asks = {"kind": "ask_user_input", "server": "W", "tool": "get_forecast"}
    answers = {"kind": "user_answers", "server": "W", "answer": "OR"}
    restart = playground("restart", "modern", asks, RESTART, answers, TURN, state_key_durable=True)
    [(_, tool, arguments)] = sim_calls(restart)[1]

    async def flow(lab, host, calls):
        await asked_then_restarted(lab, host, tool, arguments)
        assert await host.answer("W", "OR")
        await turn(lab, host, calls, 4)

    differential(tmp_path, restart, HTTP_VARIANTS, flow, http=("W",), tokens=True, asks=tool, state_key="ab" * 32)


def test_an_answer_after_the_request_state_expired(tmp_path):
    """W asks the user; the user answers after the requestState's time to live: the same process refuses it
    (-32602, HTTP 400), asks again, and the answer in time finishes the call."""
    asks = {"kind": "ask_user_input", "server": "W", "tool": "get_forecast"}
    late = {"kind": "user_answers", "server": "W", "answer": "OR", "after_expiry": True}
    answers = {"kind": "user_answers", "server": "W", "answer": "OR"}
    restart = playground("restart", "modern", asks, late, answers, TURN)
    [(_, tool, arguments)] = sim_calls(restart)[1]
    ttl = 1.0  # seconds: long enough for the answer in time on a busy machine, short enough to wait out

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        await host.ask("W", tool, arguments)
        await anyio.sleep(ttl * 1.5)  # the user takes longer than the state lives: the expiry is the flow
        lab.step(2)
        assert not await host.answer("W", "OR")
        lab.step(3)
        assert await host.answer("W", "OR")
        await turn(lab, host, calls, 4)

    args = {"asks": tool, "state_ttl": str(ttl)}
    differential(tmp_path, restart, HTTP_VARIANTS, flow, http=("W",), tokens=True, **args)


@pytest.mark.parametrize("era", ERAS)
def test_a_server_added_and_removed(tmp_path, era):
    """An admin adds C to the host's config (nothing on the wire announced it), the model uses it; the admin
    removes it: a legacy client ends its session with DELETE, a modern one just closes its stream."""
    add, remove = {"kind": "add_server", "server": "C"}, {"kind": "remove_server", "server": "C"}
    outage = playground("outage", era, add, TURN, remove, TURN)

    async def flow(lab, host, calls):
        await opening(lab, host, "A", "B")
        lab.step(1)
        await host.connect("C", end_session=True)
        await turn(lab, host, calls, 2)
        lab.step(3)
        await host.drop("C")
        await turn(lab, host, calls, 4)

    differential(tmp_path, outage, HTTP_VARIANTS, flow, http=("A", "B", "C"))


@pytest.mark.parametrize("durable", [True, False], ids=["durable-store", "replica-memory"])
@pytest.mark.parametrize("era", ERAS)
def test_baskets_on_two_replicas(tmp_path, era, durable):
    """The model creates a basket and adds to it by its handle; the load balancer sends the next calls to the
    other replica, and the model adds again. From a durable store the handle still works; from the first
    replica's memory it is unknown there (a tool error, isError). Legacy: the session lives in the first
    replica too, so the call meets 404, and the host starts a new session and calls again."""
    baskets = playground(
        "baskets",
        era,
        {"kind": "create_basket", "server": "S"},
        {"kind": "add_item", "server": "S"},
        {"kind": "land_on_replica", "server": "S", "replica": 2},
        {"kind": "add_item", "server": "S"},
        handles_durable=durable,
    )

    async def flow(lab, host, calls):
        await anyio.to_thread.run_sync(lab.start_replicas, "S", 2)
        await opening(lab, host, "S")
        handle = ""
        for step in (1, 2, 3, 4):
            lab.step(step)
            if step == 3:
                lab.land("S", 2)
            for server, tool, arguments in calls.get(step, []):
                # The simulated server's handle stands for the one the real server gave.
                args = {**arguments, "basket_id": handle} if "basket_id" in arguments else arguments
                text = await host.call(server, tool, args)
                if tool == "create_basket":
                    handle = json.loads(text or "{}")["basket_id"]

    store = str(tmp_path / "baskets.json") if durable else "memory"
    differential(tmp_path, baskets, HTTP_VARIANTS, flow, baskets=store)


async def turn_relisting(lab: Lab, host: LabHost, calls: dict[int, list], step: int, *names: str) -> None:
    """The model's turn, the host first re-listing ``names``: servers that never declared ``listChanged``."""
    lab.step(step)
    for name in names:
        await host.relist(name)
    for server, tool, arguments in calls.get(step, []):
        await host.call(server, tool, arguments)


@pytest.mark.parametrize("era", ERAS)
def test_notices_that_change_nothing(tmp_path, era):
    """The guide's misbehaving servers. P's timer says its list changed, though nothing did: the host re-lists
    and gets the same list. Q never declared listChanged: a legacy Q sends the notice anyway on the session's
    GET stream, and the host, which re-lists Q before every turn, does nothing on it; a modern host opened no
    listen stream to Q, so Q has nowhere to send it."""
    guide = playground(
        "guide",
        era,
        {"kind": "timer_list_changed", "server": "P"},
        {"kind": "undeclared_list_changed", "server": "Q"},
        TURN,
    )

    async def flow(lab, host, calls):
        await opening(lab, host, "P", "Q")
        lab.step(1)
        lab.announce("P")
        await host.changed("P")
        lab.step(2)
        lab.announce("Q")
        if era == "legacy":
            await host.notified("Q")
        await turn_relisting(lab, host, calls, 3, "Q")

    differential(tmp_path, guide, HTTP_VARIANTS, flow, http=("P", "Q"), tokens=True)


@pytest.mark.parametrize("era", ERAS)
def test_a_sign_in_as_an_admin(tmp_path, era):
    """The user signs in to P as an administrator: a new token, the re-list under it shows the admin's tool,
    and the model can call it. Only P wants a token; nothing sent to Q carries one."""
    guide = playground("guide", era, {"kind": "reauthenticate", "server": "P", "role": "admin"}, TURN)

    async def flow(lab, host, calls):
        await opening(lab, host, "P", "Q")
        lab.step(1)
        host.bearer.token = lab.issue_token("admin")
        assert "delete_workspace" in await host.relist("P")
        await turn_relisting(lab, host, calls, 2, "Q")

    differential(tmp_path, guide, HTTP_VARIANTS, flow, http=("P", "Q"), tokens=True)


@pytest.mark.parametrize("era", ERAS)
def test_an_expired_token(tmp_path, era):
    """The token expires: the next call meets 401, the client refreshes the token and sends the call again."""
    restart = playground("restart", era, {"kind": "token_expires", "server": "W"}, TURN, listen=True)

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        lab.expire(host.bearer.token)
        await turn(lab, host, calls, 2)

    differential(tmp_path, restart, [*HTTP_VARIANTS, "oauth-error-body"], flow, http=("W",), tokens=True)


@pytest.mark.parametrize("era", ERAS)
def test_a_token_revoked_by_a_restart(tmp_path, era):
    """The authorization server lived in W's process: after the restart the token is unknown, and the first
    request meets 401 before any session work (modern: the listen; legacy: the GET the SDK client retries by
    itself). The token cannot be refreshed: the user must sign in again, nothing more is sent, and the
    model's call gets the host's own error."""
    restart = playground("restart", era, RESTART, TURN, listen=True, auth_in_process=True)

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        mark = await dies(lab, host, "W")
        lab.forget_tokens()
        lab.start_http("W")
        if era == "legacy":
            await logged(lab, lambda r: r.get("status") == 401, "the GET's 401", mark)
            assert lab.refresh(host.bearer.token) is None
            host.signed_out.add("W")
        else:
            await host.back("W")
        await turn(lab, host, calls, 2)

    differential(tmp_path, restart, [*HTTP_VARIANTS, "oauth-error-body"], flow, http=("W",), tokens=True)


@pytest.mark.parametrize("tool", ["get_forecast", "send_alert"], ids=["read-only", "not-safe-to-repeat"])
@pytest.mark.parametrize("era", ERAS)
def test_a_restart_with_a_call_in_flight(tmp_path, era, tool):
    """The restart lab: W restarts while the model's call runs. Its answer never comes; the host meets the new
    process as after any restart. A read-only call (get_forecast) is safe to repeat: the host sends it again
    by itself and the new process answers. One that is not (send_alert) may have taken effect: the host
    builds the model's error instead."""
    call = {"kind": "start_call", "server": "W", "tool": tool}
    restart = playground("restart", era, call, RESTART, TURN, listen=True)
    [(server, _, arguments)] = sim_calls(restart)[1]

    async def flow(lab, host, calls):
        await opening(lab, host, "W")
        lab.step(1)
        ended = await call_running(lab, host, server, tool, arguments, era, resent=True)
        lab.step(2)
        mark = await dies(lab, host, "W")
        with anyio.fail_after(WAIT):
            await ended.wait()  # the host sees its call break before it meets the new process
            if era == "modern":  # the SDK's client ends with it; the host's next request replaces the client
                await host.conns[server].owner.finished.wait()
        await back(lab, host, "W", era, mark)
        if tool == "get_forecast":
            await host.call(server, tool, arguments)
        else:
            host.local_error(server)
        await turn(lab, host, calls, 3)

    once = {"W": {"hangs": tool}}
    differential(tmp_path, restart, HTTP_VARIANTS, flow, http=("W",), tokens=True, once=once)


@pytest.mark.parametrize("era", ERAS)
def test_an_outage_during_a_call(tmp_path, era):
    """content/scenarios/outage.yaml: A dies while the model's call runs; its answer never comes and the host
    builds the model's error; a turn without A; A is back as a new process; its tools return."""
    outage = scenario_playground(SCENARIOS / "outage.yaml", era)
    [(server, tool, arguments)] = sim_calls(outage)[1]

    async def flow(lab, host, calls):
        await opening(lab, host, "A", "B")
        lab.step(1)
        await call_running(lab, host, server, tool, arguments, era)
        lab.step(2)
        mark = await dies(lab, host, "A")
        await host.wait_local_error("A")
        await turn(lab, host, calls, 3)
        lab.step(4)
        await back(lab, host, "A", era, mark)
        await turn(lab, host, calls, 5)

    differential(tmp_path, outage, HTTP_VARIANTS, flow, http=("A", "B"), once={"A": {"hangs": tool}})


def through_a_gateway(tmp_path: Path, era: str, gateway: dict[str, Any], script: list[str]) -> None:
    """One client to gateway G (an SDK server reaching backends A, B and C with the SDK's client; A and B at
    first), two other hosts listening too. ``script``, one entry a step: an operator's action on G ("fails B",
    "joins C"...), after which every listening host gets the notice and this host re-lists; or "turn"."""
    others = ["host-2", "host-3"]

    async def flow(lab, host, calls):
        lab.start_gateway("G", ["A", "B", "C"], ["A", "B"], others)
        # The other hosts are listening before the scenario starts: their opening is not part of it.
        lab.step(SETUP)
        listeners = [LabHost(lab, era, host.tg, name=other) for other in others]
        for other in listeners:
            await other.connect("G")
        lab.step(0)
        await host.connect("G")
        try:
            for step, action in enumerate(script, 1):
                if action == "turn":
                    await turn(lab, host, calls, step)
                    continue
                lab.step(step)
                lab.operate("G", action)
                await host.changed("G")
                for other in listeners:
                    await other.notified("G")
        finally:
            lab.step(TEARDOWN)
            for other in listeners:
                await other.close()

    differential(tmp_path, gateway, HTTP_VARIANTS, flow)


@pytest.mark.parametrize("era", ERAS)
def test_a_gateway_in_front(tmp_path, era):
    """content/scenarios/gateway.yaml: B fails its health check, C joins, A leaves: each change is one
    list_changed to every listening host, and this host re-lists."""
    gateway = scenario_playground(SCENARIOS / "gateway.yaml", era)
    through_a_gateway(tmp_path, era, gateway, ["fails B", "turn", "joins C", "leaves A", "turn"])


@pytest.mark.parametrize("era", ERAS)
def test_a_gateway_backend_recovers(tmp_path, era):
    """B fails its health check, then passes it again: a notice each time, and B's tools are back in the list."""
    fails, recovers = ({"kind": k, "gateway": "G", "backend": "B"} for k in ("backend_fails", "backend_recovers"))
    gateway = playground("gateway", era, fails, recovers, TURN)
    through_a_gateway(tmp_path, era, gateway, ["fails B", "recovers B", "turn"])


# Era mismatch (content/panels/eras.yaml), over stdio. The SDK's client in its default mode ("auto") is the
# dual-era host: it sends server/discover first and falls back to initialize. The SDK's servers serve both
# eras on every connection and cannot be made to serve one alone: against M (2026-07-28 only) the SDK server
# answers a client that discovers first exactly as M does; L (2025-11-25 only) is a stub written from the
# 2025-11-25 schema (servers/legacy_only.py), so that flow holds the SDK client's fallback to the lesson's.
# Neither server declares listChanged, so the host opens no listen stream and re-lists before each turn.
def eras_playground(server: str) -> dict[str, Any]:
    return playground("eras", "modern", {"kind": "add_server", "server": server}, TURN, dual_era=True)


def test_a_dual_era_host_meets_a_modern_only_server(tmp_path):
    """server/discover first, answered: the host speaks 2026-07-28 and lists; no initialize is sent."""

    async def flow(lab, host, calls):
        await opening(lab, host)
        lab.step(1)
        await host.connect("M", stdio=True)
        lab.step(2)
        await host.relist("M")  # no change notices from this server: the host re-lists before the turn
        await turn(lab, host, calls, 2)

    differential(tmp_path, eras_playground("M"), [], flow, listen=False)


def test_a_dual_era_host_falls_back_for_a_legacy_only_server(tmp_path):
    """server/discover first; the legacy-only server does not know it (-32601), and the client sends initialize
    on the same connection, then notifications/initialized, and lists."""

    async def flow(lab, host, calls):
        await opening(lab, host)
        lab.step(1)
        await host.connect("L", stdio=True, script="legacy_only.py")
        assert host.conns["L"].client.session.initialize_result is not None, "the client fell back to initialize"
        lab.step(2)
        await host.relist("L")  # no change notices from this server: the host re-lists before the turn
        await turn(lab, host, calls, 2)

    differential(tmp_path, eras_playground("L"), [], flow, listen=False)


def ask(proc: subprocess.Popen, message: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Write one line to a stdio server, read its answer (the first line that answers the message's id)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    while True:
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        assert ready, f"no answer to {message['method']} within {timeout} s"
        answer = json.loads(proc.stdout.readline())
        if answer.get("id") == message["id"]:
            return answer


def test_the_sdk_server_refuses_initialize_as_the_modern_only_server_does(tmp_path):
    """What a 2026-07-28 server answers a legacy host's initialize. The SDK server serves both eras, but once a
    connection serves 2026-07-28 (its first request carried the modern _meta) it refuses initialize with
    -32022, naming the versions it serves: the lesson's M, which speaks only 2026-07-28, answers with the same
    code and data (and the schema's UnsupportedProtocolVersionError)."""
    lab = Lab(tmp_path, "eras")
    proc = subprocess.Popen(
        lab.server_command("M", "stdio"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        discovered = ask(proc, w.request("modern", "d1", "server/discover"), FLOW_TIMEOUT)  # the SDK's import
        sdk = ask(proc, w.initialize(2), WAIT)
    finally:
        proc.kill()
        proc.wait()
    run = begin(Start(name="eras", era="legacy"))
    run = advance(run, parse_event({"kind": "add_server", "server": "M"}))
    [sim] = [m.payload for m in view(run).wire if m.sender == "M"]
    assert discovered["result"]["supportedVersions"] == sim["error"]["data"]["supported"]
    assert sdk["error"]["code"] == sim["error"]["code"] == -32022
    assert sdk["error"]["data"] == sim["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-11-25"}
    assert schemas.errors(sdk, "modern", "UnsupportedProtocolVersionError", "") == []
