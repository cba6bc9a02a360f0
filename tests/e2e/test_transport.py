"""The page's transport: plain HTTP when the WebSocket is blocked, reconnecting a dropped socket,
and the same playground after a reload (its handle lives in sessionStorage)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route, WebSocketRoute, expect

from .helpers import (
    OUTAGE,
    RESTARTS,
    expect_status,
    log_labels,
    log_step,
    message,
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


def test_http_fallback_when_the_websocket_is_blocked(page: Page) -> None:
    frames: list[str] = []
    page.on("request", lambda r: frames.append(r.method) if r.url.endswith("/api/frame") else None)
    page.route_web_socket("**/ws", lambda ws: ws.close())
    outage = open_playground(page, OUTAGE, TITLE)
    expect(connection_status(page)).to_contain_text("using plain HTTP")

    press(outage, "A dies", 1)
    expect_status(outage, "A", "down")
    press(outage, "Take a model turn", 2)
    expect(log_step(outage, "Step 2: The model takes a turn")).to_contain_text("prompt with 2 tools")
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_text(["Start", "Step 1: A dies"])
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect(log_labels(outage).last).to_have_text("Step 2: The host switches to the legacy era")
    assert frames and set(frames) == {"POST"}

    # The restart lab, in its own lesson, goes over HTTP too.
    page.goto(RESTARTS)
    expect(connection_status(page)).to_contain_text("using plain HTTP")
    lab = restart_lab(page)
    lab.get_by_role("button", name="Restart the server").click()
    expect(lab.get_by_role("status")).to_have_text(message("lab.done", situation="idle"))
    assert set(frames) == {"POST"}


def test_a_dropped_socket_reconnects(page: Page) -> None:
    sockets: list[WebSocketRoute] = []

    def forward(ws: WebSocketRoute) -> None:
        ws.connect_to_server()  # with no handlers of our own, messages pass through both ways
        sockets.append(ws)

    page.route_web_socket("**/ws", forward)
    outage = open_playground(page, OUTAGE, TITLE)
    expect(connection_status(page)).to_have_text("")
    press(outage, "B deploys a new tool", 1)
    press(outage, "A dies", 2)
    assert len(sockets) == 1

    sockets[0].close()
    expect(connection_status(page)).to_have_text("Reconnected.")
    # The panels re-opened from their handles: the same playground, nothing pressed twice.
    expect(log_labels(outage)).to_have_text(["Start", "Step 1: B deploys a new tool", "Step 2: A dies"])
    expect_status(outage, "A", "down")
    expect(prompt_tool(outage, "close_ticket", "B")).to_be_visible()
    assert len(sockets) == 2

    press(outage, "A is back", 3)
    expect_status(outage, "A", "connected")

    # A second drop, and the page comes back again.
    sockets[1].close()
    expect(connection_status(page)).to_have_text("Reconnected.")
    press(outage, "Take a model turn", 4)
    expect(log_labels(outage)).to_have_count(5)


def test_a_reconnect_keeps_an_earlier_step_on_view(page: Page) -> None:
    """The learner was looking back on the timeline: after a reconnect the same step is on view, so
    the next press still continues from there, as the note on screen says."""
    sockets: list[WebSocketRoute] = []

    def forward(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket("**/ws", forward)
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "A dies", 1)
    press(outage, "A is back", 2)
    press(outage, "Take a model turn", 3)
    outage.get_by_role("slider", name="Timeline of presses").fill("1")
    expect(outage.get_by_text("Viewing: after press 1 of 3", exact=True)).to_be_visible()
    sockets[0].close()
    expect(connection_status(page)).to_have_text("Reconnected.")
    expect(outage.get_by_text("Viewing: after press 1 of 3", exact=True)).to_be_visible()
    expect_status(outage, "A", "down")
    press(outage, "Add server C", 2)  # continues from press 1
    expect(log_labels(outage)).to_have_text(["Start", "Step 1: A dies", "Step 2: An admin adds C"])


def test_reload_brings_the_same_playground_back(page: Page) -> None:
    outage = open_playground(page, OUTAGE, TITLE)
    outage.get_by_role("radio", name="Legacy (2025-11-25)").check()
    expect(log_labels(outage).last).to_have_text("Step 1: The host switches to the legacy era")
    press(outage, "Add server C", 2)
    press(outage, "A dies", 3)

    page.reload()
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect(log_labels(outage)).to_have_text(
        ["Start", "Step 1: The host switches to the legacy era", "Step 2: An admin adds C", "Step 3: A dies"]
    )
    expect_status(outage, "A", "down")
    expect_status(outage, "C", "connected")
    expect(outage.get_by_role("radio", name="Legacy (2025-11-25)")).to_be_checked()
    expect(outage.get_by_role("button", name="Undo")).to_be_enabled()
    expect(outage.get_by_role("status")).to_contain_text("Step 3: A dies.")
    press(outage, "A is back", 4)
    expect(log_step(outage, "Step 4: A is back")).to_contain_text("404")

    # A new tab is a new session: it gets a playground of its own.
    other = page.context.new_page()
    fresh = open_playground(other, OUTAGE, TITLE)
    expect(log_labels(fresh)).to_have_text(["Start"])
    other.close()


def test_a_playground_the_server_forgot_continues_from_the_page(page: Page) -> None:
    """The server no longer knows the handle (it restarted, or another worker answers): the page
    hands back its log and the playground goes on where it was."""
    outage = open_playground(page, OUTAGE, TITLE)
    press(outage, "B deploys a new tool", 1)
    press(outage, "A dies", 2)
    # The handle is the page's own bookkeeping in sessionStorage; no role or text reaches it.
    page.evaluate(
        """() => { const k = 'churn-lab:playground:outage';
        const log = JSON.parse(sessionStorage.getItem(k)); log.handle = 'x'.repeat(32);
        sessionStorage.setItem(k, JSON.stringify(log)); }"""
    )
    press(outage, "Take a model turn", 3)
    expect(log_labels(outage)).to_have_text(
        ["Start", "Step 1: B deploys a new tool", "Step 2: A dies", "Step 3: The model takes a turn"]
    )
    expect_status(outage, "A", "down")
    page.reload()
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect(log_labels(outage)).to_have_count(4)
    outage.get_by_role("button", name="Undo").click()
    expect(log_labels(outage)).to_have_count(3)


def test_a_log_the_server_refuses_gives_a_fresh_playground_and_says_so(page: Page) -> None:
    open_playground(page, OUTAGE, TITLE)
    page.evaluate(
        """() => sessionStorage.setItem('churn-lab:playground:outage',
        JSON.stringify({handle: null, variant: null, era: 'modern', events: [['p', 'no-such-button']], seq: 1}))"""
    )
    page.reload()
    outage = page.get_by_role("region", name=TITLE, exact=True)
    expect(outage.get_by_role("status")).to_contain_text("fresh playground")
    expect(log_labels(outage)).to_have_text(["Start"])
    press(outage, "A dies", 1)
    expect_status(outage, "A", "down")


def test_a_press_while_the_last_one_is_on_its_way(page: Page) -> None:
    """On a slow connection the learner presses "A dies" and, before the answer, "Take a model turn"."""
    held: list[Route] = []
    hold = {"on": False}

    def slow(route: Route) -> None:
        if hold["on"]:
            held.append(route)
        else:
            route.continue_()

    page.route_web_socket("**/ws", lambda ws: ws.close())  # plain HTTP, whose answers the test can hold back
    page.route("**/api/frame", slow)
    outage = open_playground(page, OUTAGE, TITLE)
    hold["on"] = True
    with page.expect_request("**/api/frame"):
        outage.get_by_role("button", name="A dies").click()
    turn = outage.get_by_role("button", name="Take a model turn")
    # Refusing the press visibly (a disabled button while busy) would be fine too; dropping it silently is not.
    if turn.is_enabled():
        turn.click()
        hold["on"] = False
        for route in held:
            route.continue_()
        expect(log_labels(outage)).to_have_text(["Start", "Step 1: A dies", "Step 2: The model takes a turn"])
        expect(log_step(outage, "Step 2: The model takes a turn")).to_contain_text("prompt with 2 tools")
    else:
        hold["on"] = False
        for route in held:
            route.continue_()
        expect(log_labels(outage).last).to_have_text("Step 1: A dies")


@pytest.mark.parametrize("width", [375, 1280])
def test_an_embedded_lesson_says_it_fell_back_without_moving_the_lesson(page: Page, width: int) -> None:
    """In a portal's frame there is no site header: the connection line lies over the top of the page,
    so a status that appears moves nothing the learner is reading."""
    page.set_viewport_size({"width": width, "height": 700})
    page.goto("/embed/an-outage")
    expect(page.get_by_role("button", name="Reset").first).to_be_enabled()
    expect(page.get_by_role("status").filter(has_text="plain HTTP")).to_have_count(0)
    calm = page.get_by_role("heading", level=1).bounding_box()

    refused = page.context.new_page()
    refused.set_viewport_size({"width": width, "height": 700})
    refused.route_web_socket("**/ws", lambda ws: ws.close())
    refused.goto("/embed/an-outage")
    expect(refused.get_by_role("status").filter(has_text="plain HTTP")).to_be_visible()
    assert refused.get_by_role("heading", level=1).bounding_box() == calm
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


def test_a_press_made_while_the_connection_is_down_says_so_where_it_was_made(page: Page) -> None:
    """The header's "reconnecting" may be far off screen: the playground's own status says the press
    waits, and the press goes through once the socket is back."""
    allow = {"open": True}
    sockets: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        if not allow["open"]:
            ws.close()  # refused before it opens: the page keeps trying
            return
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket("**/ws", route)
    outage = open_playground(page, OUTAGE, TITLE)
    allow["open"] = False
    sockets[0].close()
    expect(connection_status(page)).to_contain_text("reconnecting")
    outage.get_by_role("button", name="A dies", exact=True).click()
    expect(outage.get_by_role("status")).to_have_text(message("playground.waiting"))
    allow["open"] = True
    expect(log_labels(outage).last).to_have_text("Step 1: A dies")  # within a retry (at most 5 s apart)
    expect_status(outage, "A", "down")
