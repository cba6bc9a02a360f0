"""Goals and expectations as data: a small condition language over a playground's view.

A condition is YAML such as::

    all:
      - {path: "servers[name=A].status", equals: down}
      - not: {path: "next_prompt.tools[*].server", contains: A}
      - {path: counters.conversation, at_least: 2}

A path walks the view (see ``lesson.sim.view.View``): ``a.b`` follows keys, ``[*]`` takes every item of a
list, ``[n]`` one item, ``[field=value]`` the first item whose field has that value. A test holds exactly one
of ``equals``, ``contains`` (an item of a list, or a piece of a string), ``at_least`` or ``at_most`` (a
number, or a list's length). :func:`holds` is pure: it reads the view and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, cached_property
from typing import Annotated, Any, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag, model_validator

from lesson.sim.spelling import did_you_mean
from lesson.sim.view import View

from .base import ContentModel

Value = str | int | bool


class _Cond(ContentModel):
    model_config = ConfigDict(populate_by_name=True)


class _Condition(_Cond):
    @cached_property
    def check(self) -> Callable[[Any], bool]:
        """The condition as a function of a view, compiled on first use and kept: a panel's goal is
        evaluated on every press. A condition is frozen, so it never goes stale; build a new one
        rather than ``model_copy(update=...)`` one, which would carry the old function along."""
        return _compile(self)  # type: ignore[arg-type]


TESTS = ("equals", "contains", "at_least", "at_most")


class Test(_Condition):
    """One test of the value at ``path``."""

    path: Annotated[
        str,
        Field(
            description="where in the view to look, e.g. servers[name=A].status or next_prompt.tools[*].server",
            min_length=1,
            examples=["servers[name=A].status", "next_prompt.tools[*].server"],
        ),
    ]
    equals: Annotated[Value | None, Field(description="the value at the path is this one")] = None
    contains: Annotated[Value | None, Field(description="the list at the path holds this value")] = None
    at_least: Annotated[int | None, Field(description="the number at the path is at least this")] = None
    at_most: Annotated[int | None, Field(description="the number at the path is at most this")] = None

    @property
    def op(self) -> str:
        """The test this one makes: the one key of equals, contains, at_least, at_most it was written with
        (``equals: null`` among them: a value the view shows as null, such as a server with no error)."""
        return next(k for k in TESTS if k in self.model_fields_set)

    @model_validator(mode="after")
    def _one_test(self) -> Test:
        given = [k for k in TESTS if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(f"a test needs exactly one of equals, contains, at_least, at_most (got {given or 'none'})")
        if given[0] != "equals" and getattr(self, given[0]) is None:
            raise ValueError(f"{given[0]} needs a value (only equals can test for null)")
        problem, named = _walk(self.path)
        counts = given[0] in ("at_least", "at_most") and "[*]" not in self.path
        if problem is None and counts and named.get("type") == "string":
            problem = f"path {self.path!r} is text: {given[0]} counts a number or a list; use equals or contains"
        if problem is None and self.equals is not None:
            problem = value_problem(self.path, self.equals)
        if problem is None and self.contains is not None:
            problem = value_problem(self.path, self.contains, contains=True)
        if problem:
            raise ValueError(problem)
        return self


class All(_Condition):
    all: Annotated[list[Condition], Field(description="every condition in this list holds", min_length=1)]


class AnyOf(_Condition):
    any: Annotated[list[Condition], Field(description="at least one condition in this list holds", min_length=1)]


class Not(_Condition):
    not_: Condition = Field(description="this condition does not hold", alias="not")


def _kind(data: Any) -> str:
    # Tell the branches apart by their key, so an error names the branch the author meant.
    if isinstance(data, dict):
        return next((k for k in ("all", "any", "not") if k in data), "test")
    return {All: "all", AnyOf: "any", Not: "not"}.get(type(data), "test")


def _one_kind(data: Any) -> Any:
    """A condition is one kind: two side by side (``all:`` beside ``not:``, a test beside ``not:``) would
    otherwise read as a key the other does not know, naming the very key the author wrote."""
    if isinstance(data, dict):
        kinds = [k for k in ("all", "any", "not", "path") if k in data]
        if len(kinds) > 1:
            both = " and ".join(repr(k) for k in kinds)
            raise ValueError(
                f"a condition is one of all, any, not or a test (path); this one has {both}: "
                "to ask for several, list them under all"
            )
    return data


Condition = Annotated[
    Union[  # noqa: UP007 (a forward-referenced recursive union)
        Annotated[All, Tag("all")],
        Annotated[AnyOf, Tag("any")],
        Annotated[Not, Tag("not")],
        Annotated[Test, Tag("test")],
    ],
    Discriminator(_kind),
    BeforeValidator(_one_kind),
]
All.model_rebuild()
AnyOf.model_rebuild()
Not.model_rebuild()


class Goal(_Cond):
    """What the learner is asked to reach in a panel, and the condition that says they did."""

    text: Annotated[str, Field(description="the goal as the learner reads it", min_length=1)]
    when: Annotated[Condition, Field(description="the condition over the view that says the goal is reached")]


# --- paths ------------------------------------------------------------------------------------------

_SEGMENT = re.compile(r"^([a-z_][a-z0-9_]*)(?:\[(\*|\d+|[a-z_][a-z0-9_]*=[^\]]*)\])?$")


@cache
def _segments(path: str) -> tuple[tuple[str, str | None], ...]:
    out = []
    for part in path.split("."):
        match = _SEGMENT.match(part)
        if match is None:
            raise ValueError(f"path {path!r}: cannot read {part!r} (write key, key[*], key[2] or key[field=value])")
        out.append((match.group(1), match.group(2)))
    return tuple(out)


@cache
def _view_schema() -> dict[str, Any]:
    return View.model_json_schema()


def _deref(schema: dict[str, Any]) -> dict[str, Any]:
    defs = _view_schema().get("$defs", {})
    while True:
        if "$ref" in schema:
            schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
        elif "anyOf" in schema:  # optional values: take the branch that is not null
            schema = next((s for s in schema["anyOf"] if s.get("type") != "null"), schema["anyOf"][0])
        elif "oneOf" in schema:  # a tagged union (wire items): a field of any branch may be named
            props: dict[str, Any] = {}
            for branch in schema["oneOf"]:
                props.update(_deref(branch).get("properties", {}))
            return {"type": "object", "properties": props}
        else:
            return schema


def _walk(path: str) -> tuple[str | None, dict[str, Any]]:
    """Why ``path`` cannot name anything in a view (or None when it can), and the schema of what it names."""
    try:
        segments = _segments(path)
    except ValueError as exc:
        return str(exc), {}
    schema = _deref(_view_schema())
    for key, selector in segments:
        props = schema.get("properties", {})
        if key not in props:
            return f"path {path!r}: no {key!r} here; known: {', '.join(props) or 'nothing (a plain value)'}", {}
        schema = _deref(props[key])
        if selector is not None:
            if schema.get("type") != "array":
                return f"path {path!r}: {key!r} is not a list, so [{selector}] does not apply", {}
            schema = _deref(schema.get("items", {}))
            if "=" in selector and selector.split("=", 1)[0] not in schema.get("properties", {}):
                return f"path {path!r}: the items of {key!r} have no field {selector.split('=', 1)[0]!r}", {}
    return None, schema


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot name anything in a view, or None when it can."""
    return _walk(path)[0]


def value_problem(path: str, value: Any, contains: bool = False) -> str | None:
    """Why ``value`` can never be found at ``path`` (a status the view never shows), or None when it can.
    Only closed sets are checked: a status or a kind has a list of values, a server's name has none."""
    schema = _walk(path)[1]
    if contains and schema.get("type") == "array":
        schema = _deref(schema.get("items", {}))
    allowed = schema.get("enum")
    if allowed is None or value in allowed:
        return None
    if contains and "[*]" not in path and isinstance(value, str) and any(value in a for a in allowed):
        return None  # `contains` on one text is a piece of it ("connect" in "connected")
    hint = did_you_mean(value, allowed)
    return f"path {path!r} is one of {', '.join(repr(a) for a in allowed)}, never {value!r}{hint}"


def _get(value: Any, key: str) -> Any:
    """A key of a dict, or a field of a model (the view's models use no aliases, so the JSON key is
    the field's name; a name that is no field, a method's say, reads as nothing)."""
    if isinstance(value, dict):
        return value.get(key)
    if isinstance(value, BaseModel) and key in type(value).model_fields:
        return getattr(value, key)
    return None


def _plain(value: Any) -> Any:
    """A value as it reads in JSON: models dumped, tuples made lists."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):  # a tuple of types: ``list | tuple`` builds a union every call
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def resolve(view: View | dict[str, Any], path: str) -> Any:
    """The value at ``path`` in a view (the model, or the view dumped as JSON): a list when the path
    takes ``[*]``, None when absent. Models on the way are read as they are, not dumped: a goal is
    evaluated on every press."""
    values: list[Any] = [view]
    fanned = False
    for key, selector in _segments(path):
        nxt: list[Any] = []
        for value in values:
            item = _get(value, key)
            if selector is None:
                nxt.append(item)
            elif not isinstance(item, list):
                nxt.append(None)
            elif selector == "*":
                nxt.extend(item)
            elif selector.isdigit():
                nxt.append(item[int(selector)] if int(selector) < len(item) else None)
            else:
                field, wanted = selector.split("=", 1)
                nxt.append(next((x for x in item if str(_get(x, field)) == wanted), None))
        fanned = fanned or selector == "*"
        values = nxt
    if fanned:
        return [_plain(v) for v in values if v is not None]
    return _plain(values[0]) if values else None


def _size(value: Any) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, (list, str)):
        return len(value)
    return None


def _read_one(path: str) -> Callable[[Any], Any] | None:
    """``resolve`` for a path that takes no ``[*]``, walking one value instead of a list of them (a
    goal is evaluated on every press); None for a path that takes ``[*]``."""
    steps: list[tuple[str, int | None, tuple[str, str] | None]] = []
    for key, selector in _segments(path):
        if selector == "*":
            return None
        if selector is None:
            steps.append((key, None, None))
        elif selector.isdigit():
            steps.append((key, int(selector), None))
        else:
            field, wanted = selector.split("=", 1)
            steps.append((key, None, (field, wanted)))

    def read(view: Any) -> Any:
        value = view
        for key, index, match in steps:
            value = _get(value, key)
            if index is None and match is None:
                continue
            if not isinstance(value, list):
                return None  # as resolve: nothing further down a missing list
            if index is not None:
                value = value[index] if index < len(value) else None
            else:
                field, wanted = match  # type: ignore[misc]
                found = None
                for x in value:  # a loop, not next() over a generator: closing one early raises inside it
                    if str(_get(x, field)) == wanted:
                        found = x
                        break
                value = found
        return _plain(value)

    return read


def _compile(condition: Condition) -> Callable[[Any], bool]:
    """The condition as a function of a view."""
    if isinstance(condition, All):
        parts = [_compile(c) for c in condition.all]

        return lambda view: all(part(view) for part in parts)
    if isinstance(condition, AnyOf):
        options = [_compile(c) for c in condition.any]

        return lambda view: any(option(view) for option in options)
    if isinstance(condition, Not):
        inner = _compile(condition.not_)
        return lambda view: not inner(view)
    path = condition.path
    read = _read_one(path) or (lambda view: resolve(view, path))
    if condition.op == "equals":
        equals = condition.equals
        return lambda view: read(view) == equals
    if condition.op == "contains":
        want = condition.contains
        piece = str(want)

        def contains(view: Any) -> bool:
            value = read(view)
            if isinstance(value, str):
                return piece in value
            return isinstance(value, list) and want in value

        return contains
    at_least, at_most = condition.at_least, condition.at_most

    def sized(view: Any) -> bool:
        size = _size(read(view))
        if size is None:
            return False
        if at_least is not None:
            return size >= at_least
        return at_most is not None and size <= at_most

    return sized


def holds(condition: Condition, view: View | dict[str, Any]) -> bool:
    """Whether the condition holds for this view."""
    return condition.check(view)


def describe(condition: Condition) -> str:
    """The condition in one line, for messages to authors."""
    if isinstance(condition, All):
        return "(" + " and ".join(describe(c) for c in condition.all) + ")"
    if isinstance(condition, AnyOf):
        return "(" + " or ".join(describe(c) for c in condition.any) + ")"
    if isinstance(condition, Not):
        return "not " + describe(condition.not_)
    value = getattr(condition, condition.op)
    return f"{condition.path} {condition.op.replace('_', ' ')} {'null' if value is None else repr(value)}"


__all__ = ["All", "AnyOf", "Condition", "Goal", "Not", "Test", "describe", "holds", "path_problem", "resolve"]
