"""The scenario files as the tests read them: each validated, not replayed (the app reads them through
``page_scenarios`` and ``load_scenario``, and ``lesson check`` replays them)."""

from __future__ import annotations

from pathlib import Path

from lesson.content.scenarios import Scenario
from lesson.content.yamlfile import load_yaml_file


def load_scenarios(root: Path) -> dict[str, Scenario]:
    """Every scenario file under ``root/scenarios``, by its name; raises ContentError."""
    return {p.stem: load_yaml_file(p, Scenario)[0] for p in sorted((Path(root) / "scenarios").glob("*.yaml"))}
