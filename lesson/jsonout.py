"""Answers as JSON text: the text pydantic's ``model_dump_json`` gives, written by orjson in about half
the time (a press's answer is a tree of some hundred small models, and its serialisation is a fifth
of the press).

orjson writes a model through the values it holds (``__dict__``: exactly its fields, in declared
order). A class whose JSON is more than that (a field excluded, a serializer that changes a value,
computed fields) is written through its fields minus the excluded ones when that is all it does,
or else by pydantic itself. tests/test_jsonout.py holds the two texts equal over every panel's
presses and over random models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel
from pydantic_core import to_jsonable_python


def _as_held(model: BaseModel) -> Any:
    return model.__dict__


def _writer(cls: type[BaseModel]) -> Callable[[BaseModel], Any]:
    """How a model of ``cls`` becomes what orjson writes in its place."""
    decorators = cls.__pydantic_decorators__
    plain = (
        not decorators.model_serializers
        and not cls.model_computed_fields
        and not cls.model_config.get("serialize_by_alias")
        and cls.model_config.get("extra") != "allow"
        # A plain serializer marked ``as_it_is`` returns its value unchanged: the field is written as held.
        and all(getattr(d.func, "as_it_is", False) for d in decorators.field_serializers.values())
        and not any(getattr(f, "exclude_if", None) for f in cls.model_fields.values())
    )
    if not plain:
        return lambda model: model.model_dump(mode="json")
    excluded = frozenset(name for name, f in cls.model_fields.items() if f.exclude is True)
    if not excluded:
        return _as_held

    def without_excluded(model: BaseModel) -> dict[str, Any]:
        fields = model.__dict__.copy()  # the fields in order; a copy drops one without a pass over all
        for name in excluded:
            del fields[name]
        return fields

    return without_excluded


_WRITERS: dict[type, Callable[[Any], Any]] = {}  # by class: a dict lookup, the cheapest per model
_AS_HELD: set[type] = set()  # classes written through ``__dict__`` as it is: most, and no call more


def _default(value: Any) -> Any:
    if type(value) in _AS_HELD:
        return value.__dict__
    write = _WRITERS.get(type(value))
    if write is None:
        if not isinstance(value, BaseModel):
            return to_jsonable_python(value)  # what pydantic makes of a value it has no schema for (a set, …)
        write = _WRITERS[type(value)] = _writer(type(value))
        if write is _as_held:
            _AS_HELD.add(type(value))
    return write(value)


def dumps(model: BaseModel) -> str:
    """``model.model_dump_json()``, the same text."""
    try:
        return orjson.dumps(model, default=_default, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # what orjson cannot write (an integer past 64 bits): pydantic can
        return model.model_dump_json()
