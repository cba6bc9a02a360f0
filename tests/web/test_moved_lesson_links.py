"""The former lesson's address says where each part went: every link it serves leads to a page that
answers and holds the section linked to (the browser test reads the page; this follows its links)."""

from __future__ import annotations

import re

FORMER = "/lessons/hot-swapping"


def test_every_link_of_the_former_lesson_leads_to_its_section(client) -> None:
    page = client.get(FORMER)
    assert page.status_code == 200
    links = re.findall(r'<a href="(/[^"#]*)#([^"]+)"', page.get_data(as_text=True))
    assert ("/lessons/an-outage", "play-out-an-outage") in links
    for path, section in links:
        target = client.get(path)
        assert target.status_code == 200, path
        assert f'id="{section}"' in target.get_data(as_text=True), f"{path} has no #{section}"
