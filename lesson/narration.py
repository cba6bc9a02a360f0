"""What the simulation says, in words: its log lines are codes with values (``lesson.sim.step``), and
the sentences are the ``narration.*`` and ``refusal.*`` messages of the catalogue (``lesson/i18n.py``).

This is the one place they meet. The simulation never reads the catalogue; whatever sends a view out
(the service's answers, the stepper and restart-lab data, ``lesson trace``) renders it here, in one
locale, and the page receives each line's ``text`` beside its ``code`` (the values stay in the run).
"""

from __future__ import annotations

from typing import Any, TypeVar

from .i18n import DEFAULT, catalogue
from .sim.frames import WireFrame
from .sim.step import LogLine, Said
from .sim.view import Comparison, ServerRow, StepLog, View

S = TypeVar("S", bound=Said)


def sentence(code: str, params: dict[str, Any] | None = None, locale: str = DEFAULT) -> str:
    """The message ``code`` in ``locale`` filled with ``params``; a value that is itself a message
    (``{"code": ..., "params": ...}``, see ``lesson.sim.step.msg``) is rendered first."""
    values = {
        k: sentence(v["code"], v.get("params"), locale) if isinstance(v, dict) and "code" in v else v
        for k, v in (params or {}).items()
    }
    return catalogue(locale)[code].format(**values)


def line(said: S, locale: str = DEFAULT) -> S:
    """A copy of a log line (or anything else said) with its text: the simulation's are shared by cached runs."""
    return said.model_copy(update={"text": sentence(said.code, said.params, locale)})


def line_text(said: Said) -> str:
    """A line's (or a heading's) sentence in English (``lesson trace``)."""
    return sentence(said.code, said.params)


def frames(wire: list[WireFrame], locale: str = DEFAULT) -> list[WireFrame]:
    """Copies of the frames with their notes in words (a frame without a note is shared as it is)."""
    return [f if f.note is None else f.model_copy(update={"note": line(f.note, locale)}) for f in wire]


def lines(log_lines: list[LogLine], locale: str = DEFAULT) -> list[LogLine]:
    return [line(x, locale) for x in log_lines]


def _row(row: ServerRow, locale: str) -> ServerRow:
    said = {k: line(x, locale) for k in ("listen", "last_change", "last_error") if (x := getattr(row, k)) is not None}
    return row.model_copy(update=said)


def view(v: View, locale: str = DEFAULT) -> View:
    """A copy of the view with every line of its log and its comparison in words, and the server table's
    cells. The newest log entry and this era's side of the comparison hold the same lines: each is put
    in words once."""
    said: dict[int, LogLine] = {}

    def words(xs: list[LogLine]) -> list[LogLine]:
        out = []
        for x in xs:
            if id(x) not in said:
                said[id(x)] = line(x, locale)
            out.append(said[id(x)])
        return out

    update: dict[str, Any] = {
        "log": [StepLog(step=s.step, label=line(s.label, locale), lines=words(s.lines)) for s in v.log],
        "servers": [_row(row, locale) for row in v.servers],
        "stores": [s.model_copy(update={"label": line(s.label, locale)}) for s in v.stores],
    }
    if v.comparison is not None:
        this, other = v.comparison.this, v.comparison.other
        update["comparison"] = Comparison(
            this=this.model_copy(update={"lines": words(this.lines), "wire": frames(this.wire, locale)}),
            other=other.model_copy(update={"lines": words(other.lines), "wire": frames(other.wire, locale)}),
        )
    return v.model_copy(update=update)


__all__ = ["line", "line_text", "lines", "sentence", "view"]
