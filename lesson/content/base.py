"""The base of the models content files are read into."""

from __future__ import annotations

from pydantic import ConfigDict

from lesson.sim.model import Strict


class ContentModel(Strict):
    """A part of a content file: unknown fields are errors (``Strict``), a value of the wrong type is
    an error rather than converted (a quoted number is not a number), and it is frozen once read."""

    model_config = ConfigDict(strict=True, frozen=True)


def no_duplicates(ids: list[str], what: str) -> None:
    """For a model's validator: the first id given twice is an error that names it."""
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise ValueError(f"duplicate {what} id {i!r}")
        seen.add(i)
