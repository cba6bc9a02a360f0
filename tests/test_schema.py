"""The JSON Schemas under content/schema are generated from the models, current, and accept the content."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from lesson.content.check import SCHEMAS
from lesson.content.schema import stale, write

CONTENT = Path(__file__).resolve().parents[1] / "content"


def test_committed_schemas_are_current() -> None:
    assert stale(CONTENT / "schema") == [], "run `lesson schema` and commit content/schema/"


def test_lesson_schema_writes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "schema"
    stale_run = subprocess.run(
        [sys.executable, "-m", "lesson.cli", "schema", "--check", "--out", str(out)], capture_output=True, text=True
    )
    assert stale_run.returncode == 1 and "out of date" in stale_run.stderr
    made = subprocess.run(
        [sys.executable, "-m", "lesson.cli", "schema", "--out", str(out)], capture_output=True, text=True
    )
    assert made.returncode == 0 and sorted(p.name for p in out.iterdir()) == sorted(
        p.name for p in write(tmp_path / "again")
    )
    assert subprocess.run([sys.executable, "-m", "lesson.cli", "schema", "--check", "--out", str(out)]).returncode == 0


@pytest.mark.parametrize(("folder", "name"), SCHEMAS.items())
def test_schemas_accept_the_shipped_files_and_reject_a_typo(folder: str, name: str) -> None:
    validator = Draft202012Validator(json.loads((CONTENT / "schema" / f"{name}.schema.json").read_text()))
    files = sorted((CONTENT / folder).glob("*.yaml"))
    assert files
    for path in files:
        data = yaml.safe_load(path.read_text())
        assert list(validator.iter_errors(data)) == [], path
        assert list(validator.iter_errors({**data, "titel": "typo"})) != [], path
