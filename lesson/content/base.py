"""The base of the models content files are read into."""

from __future__ import annotations

from pydantic import ConfigDict

from lesson.sim.model import Strict


class ContentModel(Strict):
    """A part of a content file: unknown fields are errors (``Strict``), a value of the wrong type is
    an error rather than converted (a quoted number is not a number), and it is frozen once read."""

    model_config = ConfigDict(strict=True, frozen=True)


class At(ValueError):
    """A validator's error about one part of what it validates: ``loc`` leads from the validated value
    to that part (``("predictions", 2, "after")``), so ``lesson check`` names the part's own line."""

    def __init__(self, loc: tuple[int | str, ...], message: str) -> None:
        super().__init__(message)
        self.loc = loc


def no_duplicates(ids: list[str], what: str, loc: tuple[int | str, ...] = ()) -> None:
    """For a model's validator: the first id given twice is an error that names it, at the second use
    (``loc`` leads from the validated value to the list of ids' items)."""
    seen: set[str] = set()
    for n, i in enumerate(ids):
        if i in seen:
            raise At((*loc, n), f"duplicate {what} id {i!r}")
        seen.add(i)
