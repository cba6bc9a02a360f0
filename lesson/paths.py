"""Where the templates, static files and content live, in a checkout and in an installed wheel.

In a checkout (and an editable install) they sit at the repository's top level, next to ``lesson/``.
A built wheel carries copies under ``lesson/_data/`` (see ``setup.py``), because a wheel can only
install files inside its packages.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUNDLED = PACKAGE_DIR / "_data"
CHECKOUT = PACKAGE_DIR.parent


def data_root() -> Path:
    """The folder holding ``templates/``, ``static/`` and ``content/``: the wheel's bundled copy when
    present, else the checkout this package was imported from."""
    if (BUNDLED / "templates").is_dir():
        return BUNDLED
    if (CHECKOUT / "templates").is_dir():
        return CHECKOUT
    raise FileNotFoundError(
        f"no templates/ found in {BUNDLED} or {CHECKOUT}: reinstall the package (pip install .) or run from a checkout"
    )


def templates_dir() -> Path:
    return data_root() / "templates"


def static_dir() -> Path:
    return data_root() / "static"


def content_dir() -> Path:
    return data_root() / "content"
