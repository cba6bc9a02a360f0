"""The base of the models content files are read into."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from lesson.sim.model import Strict


class ContentModel(Strict):
    """A part of a content file: unknown fields are errors (``Strict``), a value of the wrong type is
    an error rather than converted (a quoted number is not a number), and it is frozen once read."""

    model_config = ConfigDict(strict=True, frozen=True)


# The forms an id or an address in a content file takes, and how an author is told them when one does
# not fit (pydantic would quote the regular expression).
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
ITEM_PATTERN = r"^[a-z0-9-]+$"
SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
PRESS_PATTERN = r"^([a-z0-9][a-z0-9-]*|@legacy|@modern)$"
SEE_PATTERN = r"^(#|/lessons/)[A-Za-z0-9/#_-]+$"
MOVED_TO_PATTERN = r"^/(lessons/[a-z0-9-]+|reference)(#[a-z0-9-]+)?$"
PATTERN_WORDS = {
    ID_PATTERN: "lowercase letters, digits and dashes, starting with a letter or a digit",
    ITEM_PATTERN: "lowercase letters, digits and dashes",
    SLUG_PATTERN: "lowercase words of letters and digits joined by single dashes",
    PRESS_PATTERN: "a button id (lowercase letters, digits and dashes), @legacy or @modern",
    SEE_PATTERN: "'#section' or '/lessons/<slug>#section'",
    MOVED_TO_PATTERN: "'/lessons/<slug>', '/lessons/<slug>#section' or '/reference#section'",
}
# An id: of a panel, a button, a question, a variant; and a frame's id on the page's protocol.
ID_MAX = 40
ID = Annotated[str, Field(pattern=ID_PATTERN, max_length=ID_MAX)]


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
