"""The Dockerfile builds from what the build context keeps (no Docker daemon needed to check that)."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    return [
        (m.group(1).upper(), m.group(2).strip())
        for m in re.finditer(r"^\s*([A-Za-z]+)\s+(.*)$", text, re.M)
        if not m.group(0).lstrip().startswith("#")
    ]


def ignored(path: str) -> bool:
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    parts = path.split("/")
    for pattern in patterns:
        bare = pattern.removeprefix("**/")
        if any(fnmatch.fnmatch("/".join(parts[: i + 1]), pattern) for i in range(len(parts))):
            return True
        if pattern.startswith("**/") and any(fnmatch.fnmatch(p, bare) for p in parts):
            return True
    return False


def test_every_copied_path_exists_and_is_in_the_build_context() -> None:
    copies = [args for op, args in instructions() if op == "COPY" and not args.startswith("--from")]
    sources = [src for args in copies for src in args.split()[:-1]]
    for needed in ("pyproject.toml", "setup.py", "MANIFEST.in", "lesson", "templates", "static", "content"):
        assert needed in sources, f"the Dockerfile does not copy {needed}"
    for src in sources:
        assert (REPO / src).exists(), f"COPY {src}: no such file"
        assert not ignored(src), f"COPY {src}: .dockerignore leaves it out of the context"
    assert ignored(".venv") and ignored(".git") and ignored("lesson/__pycache__")


def test_runs_as_a_non_root_user_on_a_slim_base_and_serves_on_all_interfaces() -> None:
    ops = instructions()
    bases = [args for op, args in ops if op == "FROM"]
    assert bases and all(re.match(r"python:3\.1[1-9]-slim\b", b) for b in bases)
    final = ops[max(i for i, (op, _) in enumerate(ops) if op == "FROM") :]
    users = [args for op, args in final if op == "USER"]
    assert users and users[-1] not in ("root", "0")
    cmd = [args for op, args in final if op == "CMD"][-1]
    assert '"lesson", "serve", "--host", "0.0.0.0"' in cmd
    assert '"--workers", "2"' in cmd, "the container runs the production server, not werkzeug"
