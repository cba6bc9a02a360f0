"""What the simulation says, in words: its log lines are codes with values (``lesson.sim.step``), and
the sentences are the ``narration.*`` and ``refusal.*`` messages of the catalogue (``lesson/i18n.py``).

This is the one place they meet. The simulation never reads the catalogue; whatever sends a view out
(the service's answers, the stepper and restart-lab data, live mode) writes it in one locale with
:func:`words` (``lesson trace`` with :func:`line_text`), and the page receives each line's ``text``
beside its ``code`` (the values stay in the run).
"""

from __future__ import annotations

from typing import Any

from .i18n import DEFAULT, catalogue
from .sim.model import Said


def sentence(code: str, params: dict[str, Any] | None = None, locale: str = DEFAULT) -> str:
    """The message ``code`` in ``locale`` filled with ``params``; a value that is itself a message
    (``{"code": ..., "params": ...}``, see ``lesson.sim.step.msg``) is rendered first."""
    values = {
        k: sentence(v["code"], v.get("params"), locale) if isinstance(v, dict) and "code" in v else v
        for k, v in (params or {}).items()
    }
    return catalogue(locale)[code].format(**values)


def line_text(said: Said) -> str:
    """A line's (or a heading's) sentence in English (``lesson trace``)."""
    return sentence(said.code, said.params)


def words(locale: str = DEFAULT) -> dict[str, Any]:
    """What writes a view out in ``locale``'s words: the serialization context under which every ``Said``
    in it (a log line, a step's heading, a frame's note, a server-table cell, a store's name) writes its
    sentence as its ``text``: ``model_dump_json(context=words(locale))``. The simulation's objects are
    shared by cached runs, so nothing is copied or changed; one sentence said twice in a view (the
    newest log entry and this era's side of the comparison hold the same lines) is put in words once.
    Make one per dump: it keeps what it said until it is dropped."""
    said: dict[int, tuple[Said, str]] = {}  # by identity, holding the object so its id stays its own

    def say(x: Said) -> str:
        hit = said.get(id(x))
        if hit is None:
            hit = said[id(x)] = (x, sentence(x.code, x.params, locale))
        return hit[1]

    return {"say": say}


__all__ = ["line_text", "sentence", "words"]
