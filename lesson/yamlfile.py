"""YAML content files with line numbers, validated into pydantic models.

Every problem becomes a :class:`ContentError` that names the file and, where one exists, the line to fix.
Validation reports every problem a file has, not only the first, so ``lesson check`` can list them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

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
        if node is not None:
            _check_duplicate_keys(node, path, first_line)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        context = f" ({exc.context})" if exc.context else ""
        line = mark.line + first_line if mark is not None else None
        raise ContentError(path, line, f"YAML syntax error: {problem}{context}") from None
    except yaml.YAMLError as exc:
        raise ContentError(path, None, f"YAML syntax error: {exc}") from None
    finally:
        loader.dispose()
    return YamlDoc(path, node, data, first_line, top_line)


def _check_duplicate_keys(node: Node, path: Path, first_line: int) -> None:
    # yaml.safe_load keeps the last of two equal keys without a word; an author almost never means that.
    if isinstance(node, MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, ScalarNode):
                if key.value in seen:
                    raise ContentError(path, key.start_mark.line + first_line, f"key {key.value!r} appears twice")
                seen.add(key.value)
            _check_duplicate_keys(value, path, first_line)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            _check_duplicate_keys(item, path, first_line)


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


def problems_of(doc: YamlDoc, exc: ValidationError, prefix: str = "") -> list[ContentError]:
    """Every error of a pydantic validation, each at the line of its key."""
    out = []
    for err in exc.errors(include_url=False):
        loc = _clean_loc(doc.data, tuple(err["loc"]))
        kind = err["type"]
        if kind == "missing" and loc:
            parent = where(loc[:-1])
            message = f"{parent + ': ' if parent else ''}missing required key {loc[-1]!r}"
            line = doc.line(loc[:-1])
        elif kind == "extra_forbidden" and loc:
            parent = where(loc[:-1])
            message = f"{parent + ': ' if parent else ''}unknown key {loc[-1]!r}"
            line = doc.line(loc)
        elif kind == "union_tag_invalid" and isinstance(err.get("ctx"), dict):
            ctx = err["ctx"]
            message = (
                f"{where(loc) + ': ' if loc else ''}unknown {str(ctx.get('discriminator', 'kind')).strip(chr(39))} "
                f"{ctx.get('tag')!r}; expected one of {ctx.get('expected_tags')}"
            )
            line = doc.line(loc)
        else:
            text = re.sub(r"^(Value error|Assertion failed), ", "", err["msg"])
            value = err.get("input")
            if kind not in ("value_error", "assertion_error") and isinstance(value, str | int | float | bool):
                text += f" (got {value!r})"
            message = f"{where(loc) + ': ' if loc else ''}{text}"
            line = doc.line(loc)
        out.append(ContentError(doc.path, line, prefix + message))
    return out


def validate(doc: YamlDoc, model: type[T], prefix: str = "") -> T:
    """Validate the document into ``model``; raise a ContentError carrying every problem found."""
    try:
        # Duck-typed on purpose: any class with a pydantic-style model_validate works (e.g. a union adapter).
        return model.model_validate(doc.data)  # type: ignore[attr-defined,no-any-return]
    except ValidationError as exc:
        raise_first(problems_of(doc, exc, prefix))
        raise AssertionError("unreachable") from None
    except ValueError as exc:
        raise ContentError(doc.path, doc.top_line, prefix + str(exc)) from None


def load_yaml_file(path: Path, model: type[T]) -> tuple[T, YamlDoc]:
    """Read, parse and validate one YAML file; the document comes back too, for line look-ups."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ContentError(path, None, f"cannot read the file: {exc.strerror or exc}") from None
    doc = parse_yaml(text, path)
    return validate(doc, model), doc


def load_yaml_model(path: Path, model: type[T]) -> T:
    """Parse the YAML file at ``path`` and validate it into ``model``.

    ``model`` is a pydantic model, or any class whose ``model_validate`` raises pydantic's
    ``ValidationError``. Syntax errors and validation errors become a :class:`ContentError` carrying the
    line of the offending key (and, in ``problems``, every other problem of the file).
    """
    return load_yaml_file(Path(path), model)[0]
