"""A panel that declares its own server is drawn and played by the page like any other: its buttons
render, and the views the page draws (the server table, the next prompt, the log) carry the declared
server, so the page's scripts need nothing new."""

from __future__ import annotations

import shutil
from pathlib import Path

from lesson.web import create_app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_the_d_joins_panel_renders_and_plays(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(FIXTURES / "content", root)
    shutil.copy(FIXTURES / "grow" / "panels" / "d-joins.yaml", root / "panels")
    lesson = root / "lessons" / "01-first.md"
    lesson.write_text(lesson.read_text() + "\n## D\n\n::: d-joins\n")
    client = create_app({"TESTING": True, "SECRET_KEY": "test", "CONTENT_ROOT": str(root)}).test_client()
    page = client.get("/lessons/first").get_data(as_text=True)
    assert 'data-panel-id="d-joins"' in page and ">Add server D</button>" in page

    def frame(**body) -> dict:
        answer = client.post("/api/frame", json={"v": 2, **body}).get_json()
        assert answer["type"] == "view", answer
        return answer

    opened = frame(type="open", panel="d-joins")
    assert "D" not in [r["name"] for r in opened["view"]["servers"]]
    (intro,) = opened["view"]["log"][0]["lines"]
    assert intro["code"] == "narration.start" and "D (search" in intro["text"]  # the start's summary, from content
    added = frame(type="press", handle=opened["handle"], seq=1, button="add-d")
    (row,) = [r for r in added["view"]["servers"] if r["name"] == "D"]
    assert row["status"] == "connected" and row["tools"] == ["web.search", "save_result"]
    assert {"web.search", "save_result"} <= {t["name"] for t in added["view"]["next_prompt"]["tools"]}
    died = frame(type="press", handle=opened["handle"], seq=2, button="d-dies")
    assert [r["status"] for r in died["view"]["servers"] if r["name"] == "D"] == ["down"]
    assert "D" not in {t["server"] for t in died["view"]["next_prompt"]["tools"]}
