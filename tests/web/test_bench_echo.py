"""The load bench's echo (only with BENCH_ECHO): a real answer's text, at the size the URL asks for, or
at the size a frame names, so each echo can match the press it is compared with."""

from __future__ import annotations

import json

import websocket


def echo(base: str, query: str) -> websocket.WebSocket:
    return websocket.create_connection(base.replace("http", "ws") + "/bench/echo" + query, timeout=10)


def test_the_echo_answers_at_the_size_asked_for(serve_app) -> None:
    base = serve_app(BENCH_ECHO=True)
    ws = echo(base, "?size=300")
    try:
        ws.send(json.dumps({"v": 2, "type": "press"}))
        fixed = ws.recv()
        assert len(fixed) == 300
        assert fixed.startswith('{"v":2,"type":"view"')  # an answer's own text, not filler
        ws.send("2345")
        assert len(ws.recv()) == 2345
        ws.send("17")
        assert len(ws.recv()) == 17
        for other in ("not a size", "²"):  # "²" is a digit to str.isdigit, not to int()
            ws.send(other)
            assert ws.recv() == fixed
    finally:
        ws.close()


def test_without_the_setting_there_is_no_echo(client) -> None:
    assert client.get("/bench/echo").status_code == 404
