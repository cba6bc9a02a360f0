"""What the gateway, explicit-handles and misbehaving-servers playgrounds answer, press by press, as
the page receives it (frames through the service): servers, the next prompt, counters, the log's lines
by narration code, and the wire of the step. How the page draws these answers is tested in
tests/e2e/test_panels.py."""

from __future__ import annotations

import json
import re

import pytest

from lesson.content.course import default_root, load_panels
from lesson.i18n import translate
from lesson.playground.service import Service

from .pageclient import PageClient


@pytest.fixture(scope="module")
def service() -> Service:
    return Service(load_panels(default_root()))


class Playground(PageClient):
    """One playground in process, with the questions a test asks of its latest answer."""

    def __init__(self, service: Service, panel: str) -> None:
        super().__init__(lambda frame: service.handle_text(json.dumps(frame)).data(), panel)
        self.open()

    def press(self, *buttons: str) -> dict:
        for button in buttons:
            answer = self.do("press", button=button)
            assert answer["type"] == "view", answer
        return answer

    @property
    def view(self) -> dict:
        return self.last["view"]

    def row(self, name: str) -> dict | None:
        return next((r for r in self.view["servers"] if r["name"] == name), None)

    def prompt(self) -> list[tuple[str, str, str]]:
        """The next prompt's tools as the page names them: (tool, from, change)."""
        return [
            (t["name"], t["origin"] + " via " + t["server"] if t.get("origin") else t["server"], t["change"])
            for t in self.view["next_prompt"]["tools"]
        ]

    def codes(self, step: int) -> list[str]:
        return [line["code"] for line in self.history[step]["lines"]]

    def text(self, step: int) -> str:
        return " ".join(line["text"] for line in self.history[step]["lines"])

    def wire(self) -> list[dict]:
        """The latest step's messages in the era the host speaks."""
        return self.view["comparison"]["this"]["wire"]


def methods(wire: list[dict]) -> list[str]:
    return [(m["payload"] or {}).get("method") for m in wire if (m["payload"] or {}).get("method")]


# --- A gateway in front ------------------------------------------------------------------------


def test_gateway_backend_fails_recovers_and_c_joins(service) -> None:
    g = Playground(service, "gateway")
    # The host's table has one row: G. The backends show only in what G offers.
    assert [(r["name"], r["title"]) for r in g.view["servers"]] == [("G", "gateway")]
    assert ("create_ticket", "B via G", "unchanged") in g.prompt()

    g.press("b-fails")
    gw = g.row("G")
    assert gw["status"] == "connected" and gw["tools"] == ["search_docs", "read_page"]
    assert gw["last_change"]["code"] == "narration.table.change" and gw["last_error"] is None
    assert [t[:2] for t in g.prompt()] == [("search_docs", "A via G"), ("read_page", "A via G")]
    assert g.codes(1) == [
        "narration.backend_unhealthy",
        "narration.list_changed_relisted",
        "narration.gateway_told_other_hosts",
        "narration.no_cache_yet",  # no turn yet: no prompt cached to lose
    ]
    # The same notice goes to every listening host: this one and the two others.
    told = [m["receiver"] for m in g.wire() if (m["payload"] or {}).get("method") == "notifications/tools/list_changed"]
    assert told == ["host", "host-2", "host-3"]

    g.press("turn")
    assert g.codes(2)[0] == "narration.turn_prompt" and len(g.view["turn"]["tools_seen"]) == 2
    assert g.view["next_prompt"]["turns"] == 1

    g.press("b-recovers")
    assert "create_ticket" in g.row("G")["tools"]
    assert ("create_ticket", "B via G", "new") in g.prompt()
    assert g.codes(3)[0] == "narration.backend_recovered"
    # A turn has been taken, so its prompt is cached: the next turn will miss it, and counts it then.
    assert "narration.cache_will_miss" in g.codes(3)
    assert g.view["next_prompt"]["cache_invalidations"] == 0

    g.press("c-joins")
    assert g.row("C") is None and "find_slot" in g.row("G")["tools"]
    assert ("find_slot", "C via G", "new") in g.prompt()
    assert g.codes(4)[0] == "narration.backend_joined"
    assert "narration.gateway_told_other_hosts" in g.codes(4)

    g.press("a-leaves")
    assert "search_docs" not in [t[0] for t in g.prompt()] + g.row("G")["tools"]
    # One client the whole time: G is the only server the host itself connects to.
    assert [r["name"] for r in g.view["servers"]] == ["G"]


def test_gateway_repeated_press_is_refused_with_its_reason(service) -> None:
    g = Playground(service, "gateway")
    g.press("b-fails", "b-fails", "b-recovers", "b-recovers")
    assert g.codes(2) == ["refusal.already_unhealthy"]
    assert g.codes(4) == ["refusal.not_unhealthy"]


def test_gateway_in_legacy(service) -> None:
    g = Playground(service, "gateway")
    g.do("era", era="legacy")
    g.press("b-fails")
    assert "create_ticket" not in g.row("G")["tools"]
    this, other = g.view["comparison"]["this"], g.view["comparison"]["other"]
    assert (this["era"], other["era"]) == ("legacy", "modern")
    assert "narration.list_changed_relisted" in g.codes(2)
    assert [line["code"] for line in this["lines"]] == g.codes(2)
    sent = [m for m in g.wire() if (m["payload"] or {}).get("method") == "notifications/tools/list_changed"]
    assert {m["sender"] for m in sent} == {"G"} and "host" in [m["receiver"] for m in sent]
    assert any("Mcp-Session-Id" in m["headers"] for m in g.wire())


# --- Explicit state handles --------------------------------------------------------------------

BASKET = re.compile(r'"basket_id": "bsk_\w+"')


def test_handles_durable_store(service) -> None:
    h = Playground(service, "handles")
    assert h.last["variant"] == "durable"  # the panel's first variant
    h.press("create", "add")
    assert h.codes(1) == h.codes(2) == ["narration.basket_call"]
    assert DURABLE in h.text(1) and BASKET.search(h.text(1))
    assert '"items": ["A-100"]' in h.text(2)
    call = next(m for m in h.wire() if (m["payload"] or {}).get("method") == "tools/call")
    assert call["payload"]["params"]["name"] == "add_item" and "basket_id" in call["payload"]["params"]["arguments"]

    h.press("restart")
    # S runs as two replicas, and a restart restarts both: the line says so.
    assert h.codes(3)[0] == "narration.restarted_replicas" and h.row("S")["status"] == "connected"
    h.press("add")
    assert h.codes(4) == ["narration.basket_call"] and '"items": ["A-100", "A-100"]' in h.text(4)
    # Replica 2 reads the same durable store.
    h.press("replica-2", "add")
    assert '"A-100", "A-100", "A-100"' in h.text(6)


DURABLE = translate("en", "narration.where.durable_store")
REPLICA_1 = translate("en", "narration.where.replica_memory", replica=1)


def test_handles_in_process_memory(service) -> None:
    h = Playground(service, "handles")
    h.do("reset", variant="in-process")
    h.press("create")
    assert REPLICA_1 in h.text(1)
    h.press("restart", "add")
    assert h.codes(2)[0] == "narration.restarted_replicas"  # both replicas' memory is gone
    assert h.codes(3) == ["narration.basket_call_failed"]
    assert re.search(r"Unknown basket_id 'bsk_\w+'", h.text(3)) and "create_basket" in h.text(3)
    # A new basket lives in replica 1's memory; replica 2 has never heard of it.
    h.press("create", "replica-2")
    assert h.codes(5) == ["narration.replica_switched"] and "replica 2" in h.text(5)
    h.press("add")
    assert h.codes(6) == ["narration.basket_call_failed"]
    h.press("replica-1", "add")
    assert h.codes(8) == ["narration.basket_call"]
    assert '"items": ["A-100"]' in h.text(8) and REPLICA_1 in h.text(8)


def test_handles_add_item_before_any_basket(service) -> None:
    h = Playground(service, "handles")
    h.press("add")
    assert h.codes(1) == ["refusal.no_basket_yet"]


def test_the_handles_goal_needs_an_item_added_to_a_basket_that_outlived_a_restart(service) -> None:
    durable = Playground(service, "handles")
    assert durable.press("create")["goal"]["met"] is False  # a handle alone is not the point
    assert durable.press("add")["goal"]["met"] is False  # no restart yet
    assert durable.press("restart")["goal"]["met"] is False
    assert durable.press("add")["goal"]["met"] is True
    assert durable.press("replica-2")["goal"]["met"] is False  # the goal reads the latest press

    memory = Playground(service, "handles")
    memory.do("reset", variant="in-process")
    assert memory.press("create", "restart", "add")["goal"]["met"] is False  # the basket is gone
    assert memory.codes(3) == ["narration.basket_call_failed"]
    # A basket made after the restart takes an item, but it did not outlive one.
    assert memory.press("create", "add")["goal"]["met"] is False


# --- Misbehaving servers (lesson 2) --------------------------------------------------------------

BEFORE = [("create_ticket", "P"), ("assign_ticket", "P"), ("query", "Q"), ("list_tables", "Q")]


def test_the_guide_goal_is_met_once_the_model_sees_the_admin_tool_on_a_turn(service) -> None:
    g = Playground(service, "guide")
    assert g.press("admin")["goal"]["met"] is False  # in the next prompt, not yet seen by the model
    assert "delete_workspace" in [t[0] for t in g.prompt()]
    assert g.press("turn")["goal"]["met"] is True


def test_the_gateway_goal_is_met_once_the_model_sees_the_calendar_tools_on_a_turn(service) -> None:
    g = Playground(service, "gateway")
    assert g.press("c-joins")["goal"]["met"] is False  # in the next prompt, not yet seen by the model
    assert "find_slot" in [t[0] for t in g.prompt()]
    assert g.press("turn")["goal"]["met"] is True


def test_undeclared_list_changed_modern(service) -> None:
    g = Playground(service, "guide")
    g.press("undeclared")
    assert g.codes(1) == ["narration.undeclared_list_changed_not_sent"]
    assert [t[:2] for t in g.prompt()] == BEFORE
    assert g.view["next_prompt"]["cache_invalidations"] == 0
    assert g.wire() == []


def test_undeclared_list_changed_legacy(service) -> None:
    g = Playground(service, "guide")
    g.do("era", era="legacy")
    g.press("undeclared")
    assert g.codes(2) == ["narration.undeclared_list_changed_ignored"]
    assert "tools.listChanged" in g.text(2)
    assert g.view["counters"]["ignored_notifications"] == 1
    sent = [m for m in g.wire() if (m["payload"] or {}).get("method") == "notifications/tools/list_changed"]
    assert [(m["sender"], m["receiver"]) for m in sent] == [("Q", "host")]


def test_timer_wastes_refetches(service) -> None:
    g = Playground(service, "guide")
    g.press("timer", "timer")
    assert g.codes(1) == g.codes(2) == ["narration.timer_wasted_refetch"]
    assert g.view["counters"]["wasted_refetches"] == 2
    assert g.view["next_prompt"]["cache_invalidations"] == 0
    notice = next(m for m in g.wire() if (m["payload"] or {}).get("method") == "notifications/tools/list_changed")
    assert notice["note"]["code"] == "narration.note.timer"


def test_sign_in_as_admin_and_back(service) -> None:
    g = Playground(service, "guide")
    assert "delete_workspace" not in [t[0] for t in g.prompt()]
    g.press("admin")
    assert ("delete_workspace", "P") in [t[:2] for t in g.prompt()]
    assert "delete_workspace" in g.row("P")["tools"]
    assert g.codes(1)[:2] == ["narration.signed_in_as", "narration.relisted_private_cache"]
    assert "cacheScope: private" in g.text(1)
    # Nothing changed on the server: the client re-lists by itself, with no list_changed.
    assert "tools/list" in methods(g.wire()) and "notifications/tools/list_changed" not in methods(g.wire())

    g.press("turn")
    # A destructive tool is not called the moment it appears: a careful host asks the user first.
    assert "narration.destructive_held" in g.codes(2)
    called = [m["payload"]["params"]["name"] for m in g.wire() if (m["payload"] or {}).get("method") == "tools/call"]
    assert called and "delete_workspace" not in called
    g.press("member")
    assert "delete_workspace" not in [t[0] for t in g.prompt()]
    assert ("delete_workspace", "P") in [(t["name"], t["server"]) for t in g.view["next_prompt"]["removed"]]
    g.press("member")
    assert g.codes(4) == ["refusal.already_signed_in_as"]


def test_undo_takes_the_sign_in_back(service) -> None:
    g = Playground(service, "guide")
    g.press("admin")
    answer = g.do("undo")
    assert answer["steps"] == 0 and [s["step"] for s in g.history] == [0]
    assert "delete_workspace" not in [t[0] for t in g.prompt()]


def test_server_that_never_announces_is_relisted_before_a_turn(service) -> None:
    # list_changed is a SHOULD: Q never declared it, so its change arrives silently...
    g = Playground(service, "guide")
    g.press("q-deploys")
    assert "notifications/tools/list_changed" not in methods(g.wire())
    assert "explain_query" not in [t[0] for t in g.prompt()]
    assert "narration.changed_undeclared" in g.codes(1)
    # ...and the host re-lists Q on its own before the next turn, so the model still sees it.
    g.press("turn")
    assert ("explain_query", "Q") in [t[:2] for t in g.prompt()]
    assert g.codes(2)[0] == "narration.polled_changed"
    assert "tools/list" in methods(g.wire())
