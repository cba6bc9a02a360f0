"""The built wheel carries everything needed to serve, and `lesson serve` runs from it in a fresh
virtualenv outside the repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# `make test` spreads tests over processes (pytest-xdist); these share one built wheel and venv, made once.
pytestmark = pytest.mark.xdist_group("wheel")
DATA_DIRS = ("templates", "static", "content")


# What a build needs; copied to a clean folder so stale build/ output in the checkout cannot leak in.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "lesson", *DATA_DIRS)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    for name in BUILD_INPUTS:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "_data"))
        else:
            shutil.copy(REPO / name, src / name)
    # No build isolation: the project venv already has the pinned setuptools, so no index is needed.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        cwd=out,
        capture_output=True,
    )
    (built,) = out.glob("mcp_churn_lab-*.whl")
    return built


def test_wheel_ships_templates_static_and_content(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in DATA_DIRS:
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                rel = path.relative_to(REPO).as_posix()
                assert f"lesson/_data/{rel}" in names, f"{rel} is missing from the wheel"
    assert "lesson/paths.py" in names


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the repo with the wheel installed, borrowing dependencies from the project venv."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
        ).strip()
    )
    # A plain path line: the project venv's .pth files (its editable install of this repo) are not run.
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    return env_dir


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LESSON_", "PYTHON"))}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def test_installed_package_uses_its_bundled_data(installed: Path, tmp_path: Path) -> None:
    out = subprocess.check_output(
        [installed / "bin" / "python", "-c", "import lesson.paths as p; print(p.data_root())"],
        cwd=tmp_path,
        env=_clean_env(),
        text=True,
    ).strip()
    assert Path(out).is_relative_to(installed), out
    assert not Path(out).is_relative_to(REPO)


def test_installed_check_validates_bundled_content(installed: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [installed / "bin" / "lesson", "check"], cwd=tmp_path, env=_clean_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "content OK" in done.stdout


@pytest.fixture
def served(installed: Path, tmp_path: Path) -> Iterator[str]:
    proc = subprocess.Popen(
        [installed / "bin" / "lesson", "serve", "--host", "127.0.0.1", "--port", "0"],
        cwd=tmp_path,
        env=_clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:  # ends when the process exits, so a crash cannot hang the test
            seen.append(line)
            found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if found:
                yield f"http://127.0.0.1:{found.group(1)}"
                break
        else:
            pytest.fail("lesson serve exited without serving:\n" + "".join(seen))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()


def test_serves_a_lesson_and_static_files_from_the_wheel(served: str) -> None:
    status, _, index = _get(served + "/")
    assert status == 200
    link = re.search(r'href="(/lessons/[^"]+)"', index)
    assert link, "the index links to no lesson"
    status, ctype, page = _get(served + link.group(1))
    assert status == 200 and ctype.startswith("text/html")
    assert "<h1" in page
    script = re.search(r'src="(/static/[^"]+\.js)"', page)
    assert script, "the lesson page loads no script"
    status, ctype, body = _get(served + script.group(1))
    assert status == 200 and "javascript" in ctype and body.strip()


def test_installed_export_scorm_finds_its_templates(installed: Path, tmp_path: Path) -> None:
    out = tmp_path / "pkg.zip"
    done = subprocess.run(
        [
            installed / "bin" / "lesson",
            "export-scorm",
            "an-outage",
            "-o",
            str(out),
            "--server",
            "https://lab.example",
        ],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert set(zipfile.ZipFile(out).namelist()) == {"imsmanifest.xml", "index.html", "scorm.js"}
