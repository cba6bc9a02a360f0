"""YAML mistakes in an author's words: the parser's problems said without its token names, and the
mistakes YAML reads without a word (a key given twice, a quote that runs on over the keys below it, a
value cut short by what YAML takes for a comment). Pure functions over the text and its node tree; the
caller (``yamlfile.parse_yaml``) says where, as a ContentError."""

from __future__ import annotations

import re

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# PyYAML's parser speaks of tokens; say what an author did instead. Matched on the parser's problem text.
_PLAIN_YAML = [
    (
        re.compile(
            r"expected <block end>, but found '<block (mapping|sequence) start>'|"
            r"expected <block end>, but found '<block end>'"
        ),
        "the indentation is off: this line is indented differently from the lines at its level above it "
        "(keys of one mapping, and items of one list, start in the same column)",
    ),
    (
        re.compile(r"expected <block end>, but found '(-|\?)'|expected <block end>, but found '<scalar>'"),
        "the indentation is off: this line does not line up with the lines at its level above it",
    ),
    (
        re.compile(r"mapping values are not allowed here"),
        "a ': ' inside a value: if this line is a key of its own, line it up with the keys above it; "
        'else put the value in quotes ("like: this")',
    ),
    (
        re.compile(r"found character '\\t' that cannot start any token|found a tab character"),
        "a tab: YAML indents with spaces only",
    ),
    (re.compile(r"could not find expected ':'"), "a line without 'key: value' (or a quote that is never closed)"),
    (re.compile(r"found unexpected end of stream"), "the file ends inside a quoted value: a quote is not closed"),
    (re.compile(r"expected ',' or '\]'"), "a [ ] list is not closed, or an item in it needs quotes"),
    (re.compile(r"expected ',' or '}'"), "a { } mapping is not closed, or a value in it needs quotes"),
    (re.compile(r"found undefined alias"), "a value starts with '*': put it in quotes"),
    (
        re.compile(r"found character '(@|`)' that cannot start any token"),
        "a value starts with a character YAML reserves ('@' or '`'): put it in quotes",
    ),
    (re.compile(r"expected a comment or a line break"), "text after a closing quote: quote the whole value"),
]


def plain_yaml_problem(problem: str, context: str | None) -> str:
    """A PyYAML problem in an author's words (the parser's own words when there is no better way to say it)."""
    for pattern, plain in _PLAIN_YAML:
        if pattern.search(problem) or (context and pattern.search(context)):
            return plain
    return problem + (f" ({context})" if context else "")


# Where PyYAML breaks lines, so that line numbers agree with its marks.
_LINE_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
_KEY_LINE = re.compile(r"^ *(?:- +)?[\w-]+:(?:\s|$)")
_KEY_COLUMN = re.compile(r"^ *(?:- +)?")


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    """The first and last lines (0-based) of each quoted value the scanner reads before any error."""
    spans = []
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.ScalarToken) and token.style in ('"', "'"):
                spans.append((token.start_mark.line, token.end_mark.line))
    except yaml.YAMLError:
        pass
    return spans


def _swallowed_key(text: str, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """A quoted value that runs on over a line holding a key of its own level or above (the line that
    opens it, the line of that key), or None. A value wrapped on purpose indents its lines deeper."""
    lines = _LINE_BREAK.split(text)
    for first, last in spans:
        if first >= len(lines):
            continue
        column = len(_KEY_COLUMN.match(lines[first]).group(0))  # type: ignore[union-attr]
        for n in range(first + 1, min(last, len(lines) - 1) + 1):
            if _KEY_LINE.match(lines[n]) and len(lines[n]) - len(lines[n].lstrip(" ")) <= column:
                return first, n
    return None


def runs_on(line: int) -> str:
    """What a quote that is not closed did, said at the line that opens it."""
    return f"a quote is not closed: this value runs on into line {line}, a key of its own"


def unclosed_quote(text: str) -> tuple[int, int] | None:
    """For a parser error lines below it: a quoted value that runs on over a key (see ``_swallowed_key``)."""
    return _swallowed_key(text, _quoted_spans(text))


def structure_problem(node: Node, text: str, first_line: int = 1) -> tuple[int, str] | None:
    """The first mistake YAML reads without an error, as (its line in the file, what is wrong), or None;
    ``first_line`` is the file line of the text's first line (a lesson's front matter starts below 1)."""
    if (twice := _duplicate_key(node)) is not None:
        return twice.start_mark.line + first_line, f"key {twice.value!r} appears twice"
    # One walk: the quoted values that span lines, and the plain values (a mapping's or a list's, not keys).
    spans, plain = [], []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, MappingNode):
            stack += [part for kv in item.value for part in kv]
            plain += [v for _k, v in item.value if isinstance(v, ScalarNode) and v.style is None]
        elif isinstance(item, SequenceNode):
            stack += item.value
            plain += [v for v in item.value if isinstance(v, ScalarNode) and v.style is None]
        elif isinstance(item, ScalarNode) and item.style in ('"', "'") and item.end_mark.line > item.start_mark.line:
            spans.append((item.start_mark.line, item.end_mark.line))
    # A quoted value whose quote is not closed runs on over the lines below it, keys and all, until the next
    # quote closes it: YAML reads that without an error, and the keys it swallowed go missing.
    if (swallowed := _swallowed_key(text, sorted(spans))) is not None:
        return swallowed[0] + first_line, runs_on(swallowed[1] + first_line)
    # A plain value with " #" in it ends there: YAML reads the rest of the line as a comment, and the value
    # loses it without a word ("Token #1 runs out" becomes "Token"). A comment written as one starts "# ";
    # one that starts "#" and a letter or digit is taken for part of the value.
    lines = _LINE_BREAK.split(text)
    for value in plain:
        end = value.end_mark
        if value.value and end.line < len(lines) and (cut := re.match(r"\s+(#\w\S*)", lines[end.line][end.column :])):
            why = f"this value ends before {cut.group(1)!r}: YAML reads ' #' and what follows as a comment and "
            why += "leaves it out; put the whole value in quotes (or, for a comment, write '# ' with a space)"
            return end.line + first_line, why
    return None


def _duplicate_key(node: Node) -> ScalarNode | None:
    # yaml.safe_load keeps the last of two equal keys without a word; an author almost never means that.
    if isinstance(node, MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, ScalarNode):
                if key.value in seen:
                    return key
                seen.add(key.value)
            if (found := _duplicate_key(value)) is not None:
                return found
    elif isinstance(node, SequenceNode):
        for item in node.value:
            if (found := _duplicate_key(item)) is not None:
                return found
    return None


__all__ = ["plain_yaml_problem", "runs_on", "structure_problem", "unclosed_quote"]
