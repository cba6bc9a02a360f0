"""A playground whose variants make a difference in one era only (``variants_era``) turns the choice off in
the other era. That is true of the simulation: there, every variant plays every press alike; in the named
era, some press plays differently."""

from __future__ import annotations

import itertools

import pytest

from lesson.content.course import default_root, load_panels
from lesson.content.panels import PlaygroundPanel
from lesson.sim import advance, begin, view

PANELS = [p for p in load_panels(default_root()).values() if isinstance(p, PlaygroundPanel) and p.variants_era]
OTHER = {"legacy": "modern", "modern": "legacy"}


def played(panel: PlaygroundPanel, variant_id: str, era: str, presses: tuple[str, ...]) -> list:
    """What each press shows: its lines (codes and values) and the server table."""
    run = begin(panel.start_for(panel.variant(variant_id), era=era))
    out = []
    for press in presses:
        run = advance(run, panel.button(press).event)
        v = view(run)
        out.append(([(line.code, line.params) for line in run.last.lines], v.model_dump(mode="json")["servers"]))
    return out


def sequences(panel: PlaygroundPanel) -> list[tuple[str, ...]]:
    """Every order of up to three of the panel's presses."""
    ids = [b.id for b in panel.buttons]
    return [seq for n in (1, 2, 3) for seq in itertools.product(ids, repeat=n)]


def test_a_panel_uses_it() -> None:
    assert PANELS, "no shipped panel has a choice that matters in one era only: the tests below check nothing"


@pytest.mark.parametrize("panel", PANELS, ids=lambda p: p.id)
def test_the_variants_differ_only_in_their_era(panel: PlaygroundPanel) -> None:
    ids = [v.id for v in panel.variants]
    for era in (panel.variants_era, OTHER[panel.variants_era]):
        differ = any(len({repr(played(panel, v, era, seq)) for v in ids}) > 1 for seq in sequences(panel))
        assert differ == (era == panel.variants_era), era
