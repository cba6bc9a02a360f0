"""Model classes read their fields through CPython's own attribute lookup (lesson.sim.model.generic_reads):
the same values and the same errors as through pydantic's hook."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, PrivateAttr

from lesson.sim.model import _MAKE_GENERIC, Mutable, Strict, generic_reads

needs_cpython = pytest.mark.skipif(_MAKE_GENERIC is None, reason="the generic lookup is only set on CPython")


class Point(Strict):
    x: int
    y: int = 2


class Counter(Mutable):
    n: int = 0


@needs_cpython
def test_a_plain_model_class_is_given_the_generic_lookup_once():
    class Loose(BaseModel):
        a: int

    assert generic_reads(Loose) is True
    assert generic_reads(Loose) is False  # already has it
    assert generic_reads(Point) is False  # every Strict subclass has it from its creation
    assert Loose(a=3).a == 3


def test_a_class_with_private_attributes_or_extra_fields_keeps_pydantic_lookup():
    class Secret(BaseModel):
        a: int
        _hidden: str = PrivateAttr(default="kept")

    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        a: int

    assert generic_reads(Secret) is False
    assert generic_reads(Open) is False
    assert Secret(a=1)._hidden == "kept"
    assert Open(a=1, b=5).b == 5  # an extra field is read through pydantic's hook


def test_fields_read_and_missing_names_fail_as_before():
    p = Point(x=1)
    assert (p.x, p.y) == (1, 2)
    with pytest.raises(AttributeError, match=r"'Point' object has no attribute 'z'"):
        p.z  # noqa: B018
    assert getattr(p, "z", "fallback") == "fallback"
    assert not hasattr(p, "z")
    assert p.model_fields_set == {"x"}  # pydantic's own attributes and properties still resolve


def test_assigned_fields_are_read_back():
    c = Counter()
    c.n = 5
    assert c.n == 5 and c.model_dump() == {"n": 5}
