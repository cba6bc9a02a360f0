"""Build hook: copy the top-level templates/, static/ and content/ into the built package.

They stay at the repository's top level for editing; a wheel can only install files inside its
packages, so ``build_py`` copies them to ``lesson/_data/`` in the build tree. ``lesson.paths`` finds
them there in an installed wheel and at the top level in a checkout or an editable install.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA_DIRS = ("templates", "static", "content")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".DS_Store")


class build_py_with_data(build_py):  # noqa: N801 - setuptools command naming
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        target = Path(self.build_lib) / "lesson" / "_data"
        for name in DATA_DIRS:
            source = HERE / name
            if not source.is_dir():
                raise SystemExit(f"build: {source} is missing; build from a full checkout or sdist")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(source, target / name, ignore=IGNORE)


setup(cmdclass={"build_py": build_py_with_data})
