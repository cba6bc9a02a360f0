"""Assert what a message says, not how: the key facts it must name, each somewhere in it."""

from __future__ import annotations


def says(found: object, *facts: str) -> None:
    """``found`` (a message, or anything whose str is one) names every one of ``facts``; the wording
    around them may change."""
    text = str(found)
    missing = [fact for fact in facts if fact not in text]
    assert not missing, f"{missing} not in {text!r}"
