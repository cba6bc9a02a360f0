"""YAML content files with line numbers, validated into pydantic models.

Every problem becomes a :class:`ContentError` that names the file and, where one exists, the line to fix.
Validation reports every problem a file has, not only the first, so ``lesson check`` can list them all.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lesson.sim.spelling import did_you_mean

from .base import PATTERN_WORDS, At
from .yamlsyntax import plain_yaml_problem, runs_on, structure_problem, unclosed_quote

T = TypeVar("T")


class ContentError(Exception):
    """A problem in a content file, with the file and (when known) the 1-based line to fix.

    ``problems`` holds every problem found in the same pass (this one first); a loader that stops at
    the first problem still carries the rest, so a caller can report them all.
    """

    def __init__(self, path: Path, line: int | None, message: str, problems: list[ContentError] | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        self.problems: list[ContentError] = problems or [self]
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


def raise_first(problems: list[ContentError]) -> None:
    """Raise the first problem (carrying all of them), if there is any."""
    if problems:
        first = problems[0]
        more = len(problems) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''}; `lesson check` lists them all)" if more else ""
        raise ContentError(first.path, first.line, first.message + suffix, problems)


@dataclass
class YamlDoc:
    """A YAML document parsed twice over: the node tree (for lines) and the plain data."""

    path: Path
    node: Node | None
    data: Any
    first_line: int  # file line of the text's first line
    top_line: int | None  # where to point when the whole document is at fault

    def line(self, loc: tuple[int | str, ...]) -> int | None:
        """The file line of the deepest key (or list item) along ``loc`` that exists."""
        node = self.node
        if node is None:
            return self.top_line
        line = self.top_line if self.top_line is not None else node.start_mark.line + self.first_line
        for part in loc:
            if isinstance(node, MappingNode):
                hit = next(
                    (kv for kv in node.value if isinstance(kv[0], ScalarNode) and kv[0].value == str(part)), None
                )
                if hit is None:
                    break
                line = hit[0].start_mark.line + self.first_line
                node = hit[1]
            elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                node = node.value[part]
                line = node.start_mark.line + self.first_line
            else:
                break
        return line


def parse_yaml(text: str, path: Path, first_line: int = 1, top_line: int | None = None) -> YamlDoc:
    """Parse one YAML document; a syntax error or a duplicated key raises a ContentError at its line."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None and (problem := structure_problem(node, text, first_line)) is not None:
            raise ContentError(path, *problem)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else None
        plain = plain_yaml_problem(exc.problem or "invalid YAML", exc.context)
        if plain.startswith("a tab") and mark is not None:  # unseen in most editors: say where it is
            plain += f" (the tab is at column {mark.column + 1}: replace it with spaces)"
        # A quote that is not closed makes the parser stumble lines later, where the quoted value it is
        # still reading meets a key, or at the file's end: point at the quote instead.
        if (swallowed := unclosed_quote(text)) is not None:
            line, plain = swallowed[0] + first_line, runs_on(swallowed[1] + first_line)
        elif exc.context == "while scanning a quoted scalar" and exc.context_mark is not None:
            line, plain = exc.context_mark.line + first_line, "a quote is not closed: the file ends inside it"
        raise ContentError(path, line, f"YAML syntax error: {plain}") from None
    except yaml.YAMLError as exc:
        raise ContentError(path, None, f"YAML syntax error: {exc}") from None
    finally:
        loader.dispose()
    return YamlDoc(path, node, data, first_line, top_line)


def where(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as an author reads it: ``steps[2].event``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _clean_loc(data: Any, loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    # A union adds the name of the branch it tried (an event's kind, a model's name) to the location;
    # keep only the parts an author can find in the file. The last part may be a missing key.
    out: list[int | str] = []
    for n, part in enumerate(loc):
        last = n == len(loc) - 1
        in_dict = isinstance(data, dict) and part in data
        if in_dict or (isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)):
            data = data[part]
        elif last and isinstance(data, dict) and isinstance(part, str) and not part.startswith("function-"):
            data = None
        else:
            continue
        out.append(part)
    return tuple(out)


def _kind_of(value: object, wanted: str = "") -> str:
    if isinstance(value, bool):
        # YAML 1.1, which PyYAML reads, takes a bare yes, no, on or off for true or false too.
        if "text" in wanted:
            return (
                "true or false (a bare yes, no, on, off, true or false is read so: put it in quotes to keep it as text)"
            )
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, datetime.date):
        return "a date (put it in quotes to keep it as text)"
    return {dict: "a mapping", list: "a list", str: "text", type(None): "nothing"}.get(
        type(value), "another kind of value"
    )


# Pydantic's type errors, by the kind of value each wants.
_WANTS = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping of keys",
    "model_type": "a mapping of keys",
    "model_attributes_type": "a mapping of keys",  # a union of models told apart by a key (a panel's kind)
}


def _in_words(kind: str, ctx: dict[str, Any], value: object) -> str | None:
    """Pydantic's message for the common mistakes, in an author's words (None: its own words will do)."""
    if kind == "string_pattern_mismatch" and isinstance(value, str):
        form = PATTERN_WORDS.get(str(ctx.get("pattern")), f"text matching {ctx.get('pattern')}")
        return f"{value!r} does not have the right form: write {form}"
    if kind in _WANTS:
        return f"this should be {_WANTS[kind]}, not {_kind_of(value, _WANTS[kind])}"
    if kind == "too_short" and "min_length" in ctx:
        return f"needs at least {ctx['min_length']} (has {ctx.get('actual_length', 0)})"
    if kind == "too_long" and "max_length" in ctx:
        return f"holds at most {ctx['max_length']} (has {ctx.get('actual_length', '')})"
    if kind == "string_too_long" and "max_length" in ctx:
        has = f" (has {len(value)})" if isinstance(value, str) else ""
        return f"is too long: at most {ctx['max_length']} characters{has}"
    if kind == "string_too_short" and "min_length" in ctx:
        return "is empty" if ctx["min_length"] == 1 else f"is too short: at least {ctx['min_length']} characters"
    return None


def problems_of(
    doc: YamlDoc, exc: ValidationError, prefix: str = "", schema: dict[str, Any] | None = None
) -> list[ContentError]:
    """Every error of a pydantic validation, each at the line of its key; an unknown key comes with the
    closest key the file's model (its JSON ``schema``) knows at that place."""
    if doc.data is None:  # an empty file (or front matter), or one of comments only
        return [ContentError(doc.path, doc.top_line or 1, f"{prefix}nothing is written here: it is empty")]
    out = []
    errors = exc.errors(include_url=False)
    # A mistyped key is most likely a required one that is missing beside it.
    missing: dict[tuple[int | str, ...], list[str]] = {}
    type_errors: dict[tuple[int | str, ...], list[str]] = {}
    merged: set[tuple[int | str, ...]] = set()
    # A value of the right kind for one branch of a union, and wrong there (an empty list where a list
    # or a text may go): that branch's error is the one; the other branches' "should be text" is noise.
    fits: set[tuple[int | str, ...]] = set()
    for err in errors:
        loc = _clean_loc(doc.data, tuple(err["loc"]))
        if err["type"] == "missing" and loc:
            missing.setdefault(loc[:-1], []).append(str(loc[-1]))
        if err["type"] in _WANTS and _WANTS[err["type"]] not in type_errors.setdefault(loc, []):
            type_errors[loc].append(_WANTS[err["type"]])
        if err["type"] in ("too_short", "too_long") and len(err["loc"]) > len(loc):
            fits.add(loc)
    for err in errors:
        loc = _clean_loc(doc.data, tuple(err["loc"]))
        kind = err["type"]
        if kind in _WANTS and loc in fits:
            continue
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, At):  # a validator's error about one part: at that part's line
            loc = (*loc, *cause.loc)
            out.append(ContentError(doc.path, doc.line(loc), f"{prefix}{where(loc) + ': ' if loc else ''}{cause}"))
            continue
        if kind in _WANTS and len(wants := type_errors.get(loc, [])) > 1:
            # A value that may be one of several kinds (a union): one problem naming them all.
            if loc not in merged:
                merged.add(loc)
                either = ", ".join(wants[:-1]) + f" or {wants[-1]}"
                words = f"this should be {either}, not {_kind_of(err.get('input'), either)}"
                out.append(ContentError(doc.path, doc.line(loc), f"{prefix}{where(loc) + ': ' if loc else ''}{words}"))
            continue
        if (words := _in_words(kind, err.get("ctx") or {}, err.get("input"))) is not None:
            out.append(ContentError(doc.path, doc.line(loc), f"{prefix}{where(loc) + ': ' if loc else ''}{words}"))
            continue
        if kind == "missing" and loc:
            parent = where(loc[:-1])
            message = f"{parent + ': ' if parent else ''}missing required key {loc[-1]!r}"
            line = doc.line(loc[:-1])
        elif kind == "extra_forbidden" and loc:
            parent = where(loc[:-1])
            here = _keys_at(schema, loc[:-1]) if schema else set()
            hint = did_you_mean(loc[-1], missing.get(loc[:-1], [])) or did_you_mean(loc[-1], sorted(here))
            if not here and schema:  # the schema cannot say what belongs here: any key of the file's
                hint = hint or did_you_mean(loc[-1], sorted(_all_keys(schema)))
            message = f"{parent + ': ' if parent else ''}unknown key {loc[-1]!r}{hint}"
            line = doc.line(loc)
        elif kind == "union_tag_not_found" and isinstance(err.get("ctx"), dict):
            key = str(err["ctx"].get("discriminator", "kind")).strip(chr(39))
            message = f"{where(loc) + ': ' if loc else ''}missing required key {key!r}"
            line = doc.line(loc)
        elif kind == "union_tag_invalid" and isinstance(err.get("ctx"), dict):
            ctx = err["ctx"]
            tags = re.findall(r"'([^']*)'", str(ctx.get("expected_tags", "")))
            key = str(ctx.get("discriminator", "kind")).strip(chr(39))
            message = (
                f"{where(loc) + ': ' if loc else ''}unknown {key} "
                f"{ctx.get('tag')!r}{did_you_mean(ctx.get('tag'), tags)} (expected one of {ctx.get('expected_tags')})"
            )
            line = doc.line((*loc, key))  # at the key itself, not the mapping's first line
        else:
            text = re.sub(r"^(Value error|Assertion failed), ", "", err["msg"])
            value = err.get("input")
            if kind not in ("value_error", "assertion_error") and isinstance(value, str | int | float | bool):
                text += f" (got {value!r})"
            if kind in ("literal_error", "enum") and isinstance(err.get("ctx"), dict):
                text += did_you_mean(value, re.findall(r"'([^']*)'", str(err["ctx"].get("expected", ""))))
            message = f"{where(loc) + ': ' if loc else ''}{text}"
            line = doc.line(loc)
        out.append(ContentError(doc.path, line, prefix + message))
    return out


@cache
def _schema(model: object) -> dict[str, Any]:
    """The JSON Schema of a file's model (empty for a model that has none): the keys it may hold."""
    schema_of = getattr(model, "model_json_schema", None) or getattr(model, "json_schema", None)
    return schema_of() if schema_of is not None else {}


def _keys_at(schema: dict[str, Any], loc: tuple[int | str, ...]) -> set[str]:
    """The keys the mapping at ``loc`` may hold, by the schema (every branch of a union), or an empty set
    when the schema cannot say."""
    defs = schema.get("$defs", {})

    def branches(node: Any) -> list[dict[str, Any]]:
        out, stack, seen = [], [node], 0
        while stack and seen < 200:  # a bound, should a schema refer to itself
            seen += 1
            item = stack.pop()
            if not isinstance(item, dict):
                continue
            if "$ref" in item:
                stack.append(defs.get(str(item["$ref"]).rsplit("/", 1)[-1]))
            for key in ("anyOf", "oneOf", "allOf"):
                stack.extend(item.get(key, []))
            out.append(item)
        return out

    nodes: list[Any] = [schema]
    for part in loc:
        nodes = [
            (n.get("items") if isinstance(part, int) else n.get("properties", {}).get(part))
            for n in (b for node in nodes for b in branches(node))
        ]
        nodes = [n for n in nodes if n is not None]
    return {key for node in nodes for b in branches(node) for key in b.get("properties", {})}


def _all_keys(schema: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.update(item.get("properties", {}) if isinstance(item.get("properties"), dict) else ())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def validate(doc: YamlDoc, model: type[T], prefix: str = "") -> T:
    """Validate the document into ``model``; raise a ContentError carrying every problem found."""
    try:
        # Duck-typed on purpose: any class with a pydantic-style model_validate works (e.g. a union adapter).
        return model.model_validate(doc.data)  # type: ignore[attr-defined,no-any-return]
    except ValidationError as exc:
        raise_first(problems_of(doc, exc, prefix, _schema(model)))
        raise AssertionError("unreachable") from None
    except ValueError as exc:
        raise ContentError(doc.path, doc.top_line, prefix + str(exc)) from None


def read_text(path: Path) -> str:
    """A content file's text. Content is UTF-8; a file saved in another encoding (an editor's Latin-1 or
    Windows-1252) is refused at the line of its first byte that is not UTF-8, with what to do about it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContentError(path, None, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")  # a byte-order mark (Notepad writes one) is no part of the text
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ContentError(
            path,
            line,
            f"this file is not UTF-8 (byte 0x{data[exc.start]:02x}): save it again with the encoding UTF-8",
        ) from None


def load_yaml_file(path: Path, model: type[T]) -> tuple[T, YamlDoc]:
    """Read, parse and validate one YAML file; the document comes back too, for line look-ups."""
    path = Path(path)
    doc = parse_yaml(read_text(path), path)
    return validate(doc, model), doc


def load_yaml_model(path: Path, model: type[T]) -> T:
    """Parse the YAML file at ``path`` and validate it into ``model``.

    ``model`` is a pydantic model, or any class whose ``model_validate`` raises pydantic's
    ``ValidationError``. Syntax errors and validation errors become a :class:`ContentError` carrying the
    line of the offending key (and, in ``problems``, every other problem of the file).
    """
    return load_yaml_file(Path(path), model)[0]
