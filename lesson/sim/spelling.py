"""The known name closest to a mistyped one, for every "did you mean" the project says: in content
problems (``lesson check``), an unknown start, a message catalogue's keys. Here, in the simulation, since
it is pure and the simulation is the one package every other one may import."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: object, known: Iterable[object]) -> str | None:
    """The known name a mistyped ``name`` most likely meant, or None when none is near."""
    if not isinstance(name, str):
        return None
    near = difflib.get_close_matches(name, [str(k) for k in known], n=1, cutoff=0.6)
    return near[0] if near else None


def did_you_mean(name: object, known: Iterable[object]) -> str:
    """``"; did you mean 'x'?"`` for the known name closest to a mistyped one, or ``""``."""
    near = closest(name, known)
    return f"; did you mean {near!r}?" if near else ""


__all__ = ["closest", "did_you_mean"]
