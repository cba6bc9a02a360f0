"""The page's transport: plain HTTP when the WebSocket is blocked, reconnecting a dropped socket,
and the same playground after a reload (its handle lives in sessionStorage). Each test walks one page
through the states a connection goes through; what the service answers to each frame is checked fast
in tests/web/test_protocol.py and tests/web/test_outage_answers.py."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, Route, WebSocketRoute, expect

from .helpers import (
    OUTAGE,
    RESTARTS,
    START,
    TO_LEGACY,
    choose_era,
    expect_status,
    heading,
    lead,
    log_labels,
    message,
    narrated,
    open_playground,
    press,
    prompt_tool,
    restart_lab,
)

pytestmark = pytest.mark.e2e

TITLE = "Play out an outage"


def connection_status(page: Page):
    """The header's live status line about the connection."""
    return page.get_by_role("banner").get_by_role("status")


def expect_steps(section, steps: list[tuple[str, dict]]) -> None:
    """The log holds exactly these steps after the start: each an event's kind and the values its heading names."""
    expect(log_labels(section)).to_have_text([START, *(heading(n, kind, **v) for n, (kind, v) in enumerate(steps, 1))])


class SlowFrames:
    """Every frame over plain HTTP (the WebSocket refused), with answers the test can hold back, as a slow
    connection would, and then let go."""

    def __init__(self, page: Page) -> None:
        self.holding = False
        self.held: list[Route] = []
        page.route_web_socket("**/ws", lambda ws: ws.close())
        page.route("**/api/frame", self._frame)

    def _frame(self, route: Route) -> None:
        if self.holding:
            self.held.append(route)
        else:
            route.continue_()

    def let_go(self) -> None:
        self.holding = False
        for route in self.held:
            route.continue_()
        self.held.clear()


def test_a_press_the_network_loses_is_said_and_the_next_one_goes(page: Page) -> None:
    """Over HTTP, a press whose request fails (the network gone) says so where the learner pressed and
    changes nothing; with the network back, the next press goes out and is drawn."""
    page.route_web_socket("**/ws", lambda ws: ws.close())
    network = {"up": True}
    page.route("**/api/frame", lambda route: route.continue_() if network["up"] else route.abort())
    outage = open_playground(page, OUTAGE, TITLE)
    expect(connection_status(page)).to_contain_text(message("transport.http"))

    network["up"] = False
    outage.get_by_role("button", name="A dies").click()
    said = outage.locator('[data-role="announce"]')
    expect(said).to_have_text(re.compile("^" + re.escape(message("playground.error", message="")) + ".+"))
    expect(log_labels(outage)).to_have_text([START])

    network["up"] = True
    press(outage, "A dies", 1)
    expect_status(outage, "A", "down")


def test_a_press_while_the_playground_reopens_waits_its_turn(page: Page) -> None:
    """A press made from an earlier step first reopens the playground at that step. A second press made
    before that reopen is answered (a slow connection holds it back here) goes out after it; it is
    never dropped."""
    slow = SlowFrames(page)
    outage = open_playground(page, OUTAGE, TITLE)
    expect(connection_status(page)).to_contain_text(message("transport.http"))
    press(outage, "A dies", 1)
    press(outage, "Take a model turn", 2)
    outage.get_by_role("slider", name="Timeline of presses").fill("1")

    slow.holding = True
    with page.expect_request("**/api/frame"):  # the reopen at step 1, held back
        outage.get_by_role("button", name="A is back").click()
    outage.get_by_role("button", name="Take a model turn").click()
    slow.let_go()
    expect_steps(outage, [("server_dies", {"server": "A"}), ("server_back", {"server": "A"}), ("take_turn", {})])
    expect_status(outage, "A", "connected")


def test_plain_http_when_the_websocket_is_blocked(page: Page) -> None:
    """Every frame goes as a POST, presses made before the last answer wait their turn, and the restart
    lab in its own lesson goes over HTTP too."""
    frames: list[str] = []
    page.on("request", lambda r: frames.append(r.method) if r.url.endswith("/api/frame") else None)
    slow = SlowFrames(page)
    outage = open_playground(page, OUTAGE, TITLE)
    expect(connection_status(page)).to_contain_text(message("transport.http"))

    press(outage, "A dies", 1)
    expect_status(outage, "A", "down")
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_text([START])
    choose_era(outage, "legacy")
    expect(log_labels(outage).last).to_have_text(heading(1, "switch_era", **TO_LEGACY))

    # On a slow connection the learner presses "A dies" and, before the answer, "Take a model turn".
    slow.holding = True
    with page.expect_request("**/api/frame"):
        outage.get_by_role("button", name="A dies").click()
    turn = outage.get_by_role("button", name="Take a model turn")
    # Refusing the press visibly (a disabled button while busy) would be fine too; dropping it silently is not.
    pressed_on = turn.is_enabled()
    if pressed_on:
        turn.click()
    slow.let_go()
    if pressed_on:
        expect(log_labels(outage).last).to_have_text(heading(3, "take_turn"))
        expect(log_labels(outage).nth(2)).to_have_text(heading(2, "server_dies", server="A"))
    else:
        expect(log_labels(outage).last).to_have_text(heading(2, "server_dies", server="A"))
    expect_status(outage, "A", "down")
    assert frames and set(frames) == {"POST"}

    page.goto(RESTARTS)
    expect(connection_status(page)).to_contain_text(message("transport.http"))
    lab = restart_lab(page)
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation="idle"))
    assert set(frames) == {"POST"}


def test_a_dropped_socket_reconnects_where_the_learner_was(page: Page) -> None:
    """A socket dropped twice: the page reopens its playground from its handle, nothing pressed twice,
    the step the learner was looking back on still on view; a press made while no socket opens says it
    waits, where it was made, and goes through once the socket is back."""
    sockets: list[WebSocketRoute] = []
    allow = {"open": True}

    def forward(ws: WebSocketRoute) -> None:
        if not allow["open"]:
            ws.close()  # refused before it opens: the page keeps trying
            return
        ws.connect_to_server()  # with no handlers of our own, messages pass through both ways
        sockets.append(ws)

    page.route_web_socket("**/ws", forward)
    outage = open_playground(page, OUTAGE, TITLE)
    expect(connection_status(page)).to_have_text("")
    press(outage, "B deploys a new tool", 1)
    press(outage, "A dies", 2)
    assert len(sockets) == 1

    sockets[0].close()
    expect(connection_status(page)).to_have_text(message("transport.reconnected"))
    expect_steps(outage, [("deploy_tool", {"server": "B"}), ("server_dies", {"server": "A"})])
    expect_status(outage, "A", "down")
    expect(prompt_tool(outage, "close_ticket", "B")).to_be_visible()
    assert len(sockets) == 2

    press(outage, "A is back", 3)
    expect_status(outage, "A", "connected")
    press(outage, "Take a model turn", 4)

    # Looking back on the timeline, then a second drop: the same step is on view, and the next press
    # continues from there, as the note on screen says.
    viewing = outage.get_by_text(message("timeline.viewing", name=message("step.after.of", k=2, total=4)), exact=True)
    outage.get_by_role("slider", name="Timeline of presses").fill("2")
    expect(viewing).to_be_visible()
    sockets[1].close()
    expect(connection_status(page)).to_have_text(message("transport.reconnected"))
    expect(viewing).to_be_visible()
    expect_status(outage, "A", "down")
    press(outage, "Add server C", 3)  # continues from press 2
    expect_steps(
        outage, [("deploy_tool", {"server": "B"}), ("server_dies", {"server": "A"}), ("add_server", {"server": "C"})]
    )

    # The connection stays down a while: the press says it waits, in the playground's own status.
    allow["open"] = False
    sockets[2].close()
    expect(connection_status(page)).to_contain_text(re.compile("reconnecting"))
    outage.get_by_role("button", name="A is back", exact=True).click()
    expect(outage.get_by_role("status")).to_have_text(message("playground.waiting"))
    allow["open"] = True
    expect(log_labels(outage).last).to_have_text(
        heading(4, "server_back", server="A")
    )  # within a retry (at most 5 s apart)
    expect_status(outage, "A", "connected")


def test_a_link_shared_before_a_reconnect_still_holds_after_it(page: Page) -> None:
    """A reconnect reopens the same playground: the link shown for it stays on view."""
    sockets: list[WebSocketRoute] = []

    def forward(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def up(message: str | bytes) -> None:
            frame = json.loads(message)
            if len(sockets) > 1 and frame["type"] == "press":  # after the drop: refused here, visibly
                held = {"v": 2, "type": "error", "re": frame["id"], "code": "held", "message": "held back"}
                ws.send(json.dumps(held))
            else:
                server.send(message)

        ws.on_message(up)
        server.on_message(ws.send)
        sockets.append(ws)

    page.route_web_socket("**/ws", forward)
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "A dies", 1)
    outage.get_by_role("button", name="Share link").click()
    link = outage.get_by_role("textbox", name="Link to this playground")
    expect(link).to_be_visible()

    sockets[0].close()
    expect(connection_status(page)).to_have_text(message("transport.reconnected"))
    # Presses go out one at a time: this one leaves once the reopen's answer is drawn.
    outage.get_by_role("button", name="A is back", exact=True).click()
    expect(outage.get_by_role("status")).to_contain_text("held back")
    expect(link).to_be_visible()
    assert "#pg=outage:modern::a-dies" in link.input_value()


def forge(page: Page, script: str) -> None:
    """Change the page's own bookkeeping in sessionStorage; no role or text reaches it."""
    page.evaluate(f"() => {{ const k = 'churn-lab:playground:outage'; {script} }}")


def test_a_reload_brings_the_same_playground_back_even_when_the_server_forgot_it(page: Page) -> None:
    outage = open_playground(page, OUTAGE, TITLE)
    choose_era(outage, "legacy")
    expect(log_labels(outage).last).to_have_text(heading(1, "switch_era", **TO_LEGACY))
    press(outage, "Add server C", 2)
    press(outage, "A dies", 3)

    page.reload()
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect_steps(outage, [("switch_era", TO_LEGACY), ("add_server", {"server": "C"}), ("server_dies", {"server": "A"})])
    expect_status(outage, "A", "down")
    expect_status(outage, "C", "connected")
    expect(outage.get_by_role("radio", name="Legacy (2025-11-25)")).to_be_checked()
    expect(outage.get_by_role("button", name="Undo")).to_be_enabled()
    expect(outage.get_by_role("status")).to_contain_text(lead("playground.after", k=3))
    expect(outage.get_by_role("status")).to_contain_text(narrated("narration.event.server_dies", server="A"))

    # The server no longer knows the handle (it restarted, or another worker answers): the page hands
    # back its log and the playground goes on where it was, through a press and a reload.
    forge(
        page,
        "const log = JSON.parse(sessionStorage.getItem(k)); log.handle = 'x'.repeat(32);"
        " sessionStorage.setItem(k, JSON.stringify(log));",
    )
    press(outage, "A is back", 4)
    expect_status(outage, "A", "connected")
    expect(log_labels(outage)).to_have_count(5)
    page.reload()
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect(log_labels(outage)).to_have_count(5)
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_count(4)
    expect_status(outage, "A", "down")

    # A new tab is a new session: it gets a playground of its own.
    other = page.context.new_page()
    fresh = open_playground(other, OUTAGE, TITLE)
    expect(log_labels(fresh)).to_have_text([START])
    other.close()

    # A log the server refuses gives a fresh playground, and the page says so.
    forge(
        page,
        "sessionStorage.setItem(k, JSON.stringify({handle: null, variant: null, era: 'modern',"
        " events: [['p', 'no-such-button']], seq: 1}));",
    )
    page.reload()
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect(outage.get_by_role("status")).to_contain_text(message("playground.link_broken"))
    expect(log_labels(outage)).to_have_text([START])
    press(outage, "A dies", 1)
    expect_status(outage, "A", "down")


def test_an_embedded_lesson_says_it_fell_back_without_moving_the_lesson(page: Page) -> None:
    """In a portal's frame there is no site header: the connection line lies over the top of the page,
    so a status that appears moves nothing the learner is reading, at a phone's width or a desktop's."""
    page.goto("/embed/an-outage")
    expect(page.get_by_role("button", name="Reset").first).to_be_enabled()
    refused = page.context.new_page()
    refused.route_web_socket("**/ws", lambda ws: ws.close())
    refused.goto("/embed/an-outage")
    expect(refused.get_by_role("status").filter(has_text=message("transport.http"))).to_be_visible()
    expect(page.get_by_role("status").filter(has_text=message("transport.http"))).to_have_count(0)
    for width in (375, 1280):
        for tab in (page, refused):
            tab.set_viewport_size({"width": width, "height": 700})
        calm = page.get_by_role("heading", level=1).bounding_box()
        assert refused.get_by_role("heading", level=1).bounding_box() == calm, width
    refused.close()


def test_a_server_that_keeps_refusing_sockets_is_not_hammered(page: Page, serve_app) -> None:
    """Sockets the server accepts and closes at once (1013: too many from this address) are retried
    after a delay that doubles; it used to start again at 250 ms on every open, four sockets a second."""
    from websockets.sync.client import connect

    base = serve_app(WS_MAX_PER_ADDRESS=1)
    page.clock.install()
    # When each socket is made and closed, on the page's (installed) clock; no role or text shows it.
    page.add_init_script(
        """(() => { const Real = window.WebSocket; window.__ws = [];
        window.WebSocket = function (url, protocols) {
          const socket = new Real(url, protocols), times = { made: Date.now() };
          window.__ws.push(times);
          socket.addEventListener("close", (e) => { times.closed = Date.now(); times.code = e.code; });
          return socket;
        };
        Object.assign(window.WebSocket, Real); window.WebSocket.prototype = Real.prototype; })()"""
    )
    with connect(base.replace("http", "ws") + "/ws"):  # the address's one socket
        page.goto(base + "/lessons/an-outage")
        page.get_by_role("region", name=TITLE, exact=True).scroll_into_view_if_needed()
        for _ in range(120):  # bounded: at most 60 s of the page's clock
            if page.evaluate("window.__ws.filter((s) => s.closed).length") >= 5:
                break
            # The server refuses in real time: on a busy machine the page's clock, moved on at once,
            # would reach its own 4 s open timeout first (1006). Let a socket the page made be answered
            # (bounded: a few hundred checks) before the clock moves.
            for _ in range(300):
                if page.evaluate("window.__ws.every((s) => s.closed)"):
                    break
            page.clock.run_for(500)
        expect(connection_status(page)).to_contain_text("reconnecting")
    sockets = page.evaluate("window.__ws")
    assert [s.get("code") for s in sockets[:5]] == [1013] * 5, sockets
    waits = [later["made"] - earlier["closed"] for earlier, later in zip(sockets, sockets[1:5], strict=False)]
    assert waits == sorted(waits) and waits[-1] >= 4 * waits[0], waits
