"""The lesson's Markdown: how it is parsed and rendered, apart from what the lesson loader checks.

Four additions to CommonMark: long names in inline code may break after a ``/``, ``_`` or ``.``;
a ``json legacy|modern DefName`` fence is a wire message, drawn as a
captioned figure (a legacy block followed by its modern counterpart makes a side-by-side pair); every
level-2 heading gets an anchor; and a disclosure container,

    :::: details "Summary the reader clicks"

    Anything: paragraphs, message pairs, tables, level-3 headings.

    ::::

renders as ``<details><summary>``, so long explanations and examples stay one click away. It is
mdit-py-plugins' container: each of its two lines stands alone on its line, at the top level; disclosures
do not nest and hold no level-2 heading (the table of contents links to those, so they must stay in view).
A widget may sit inside one: the lesson is cut into HTML runs around each widget, and the runs are joined
back in order, so the widget lands between the disclosure's opening and closing tags and waits behind its
summary like the text around it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin

from lesson.i18n import DEFAULT, has_locale, translate
from lesson.sim.model import VERSION, Era

from .base import ContentModel
from .yamlfile import ContentError

WIDGET_LINE = re.compile(r"^::: ([a-z][a-z0-9-]*)$")
_DEF_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_DETAILS_OPEN = re.compile(r'^:::: details "([^"]+)"$')
_DETAILS_CLOSE = "::::"


class TocEntry(ContentModel):
    """A level-2 heading: its anchor id and its text."""

    id: str
    title: str


class MessageBlock(ContentModel):
    """A wire message shown in a ``json legacy|modern DefName`` code block."""

    era: Era
    def_name: str
    data: Any
    line: int


class ProseLink(ContentModel):
    """A link in the lesson's text, and the file line it sits on."""

    href: str
    line: int


# --- Markdown --------------------------------------------------------------------------------------


def era_title(locale: str, era: str) -> str:
    """The era as a title names it ("Legacy (2025-11-25)"), from the catalogue in ``locale`` (English for
    a lesson translated into a language the server has no messages in)."""
    return translate(locale if has_locale(locale) else DEFAULT, f"js.era.{era}")


def _render_fence(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    era = token.meta.get("era")
    if era is None:
        return str(self.fence(tokens, idx, options, env))
    body = json_lines(json.dumps(token.meta["data"], indent=2, ensure_ascii=False))
    figure = (
        f'<figure class="message message--{era}">'
        f'<figcaption><span class="message__era">{escapeHtml(era_title(env.get("locale", DEFAULT), era))}</span> '
        f'<code class="message__def">{_camel_breaks(token.meta["def_name"])}</code></figcaption>'
        f'<pre><code class="language-json">{body}</code></pre></figure>\n'
    )
    if era == "legacy" and era_of(tokens, idx + 1) == "modern":
        return '<div class="message-pair">\n' + figure
    if era == "modern" and era_of(tokens, idx - 1) == "legacy":
        return figure + "</div>\n"
    return figure


MAX_INDENT = 16  # the deepest indent lesson.css gives a hanging indent (.i0 to .i16); render.js has the same


def json_lines(text: str) -> str:
    """Indented JSON as HTML, a box per line, so that a line too long for a narrow screen wraps
    under its own indent plus two rather than at the left edge (static/js/render.js does the same
    for the playground's wire). The newlines stay as text: a copy is the JSON as it was."""
    out = []
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        css = f"ln i{indent}" if indent <= MAX_INDENT else "ln"
        # The indent never wraps: a long key then breaks where the line is full, not after its indent.
        lead = f'<span class="ind">{line[:indent]}</span>' if indent else ""
        # A long name breaks after its separators (io.modelcontextprotocol/|subscriptionId), not mid-word.
        out.append(f'<span class="{css}">{lead}{breakable(line[indent:])}</span>')
    return "\n".join(out)


def era_of(tokens: list[Token], idx: int) -> str | None:
    if 0 <= idx < len(tokens) and tokens[idx].type == "fence":
        return tokens[idx].meta.get("era")
    return None


# After a separator that follows a letter and comes before one: "list_|changed", never "_|meta" at
# the start or "https:/|/" between two slashes.
_BREAK_AFTER = re.compile(r"(?<=[^/_.][/_.])(?=[^/_.])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _camel_breaks(name: str) -> str:
    """A schema definition's name (``SubscriptionsAcknowledgedNotification``), escaped, with a line
    break allowed between its words."""
    return "<wbr>".join(escapeHtml(p) for p in _CAMEL.split(name))


def _breakable_word(word: str) -> str:
    parts = _BREAK_AFTER.split(word) if len(word) >= 14 else [word]
    return "<wbr>".join(escapeHtml(p) for p in parts)


def breakable(text: str) -> str:
    """Plain text as HTML, escaped, with a line break allowed after each ``/``, ``_`` and ``.`` of a
    long word: on a narrow screen ``notifications/tools/list_changed`` breaks at a slash, not inside
    a word. (Quiz prompts are plain text; the lesson's inline code goes through here too.)"""
    return "".join(_breakable_word(p) if i % 2 else escapeHtml(p) for i, p in enumerate(re.split(r"(\S+)", text)))


def _render_code_inline(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    """Inline code, breakable after the separators of a long name (see :func:`breakable`)."""
    return "<code>" + _breakable_word(tokens[idx].content) + "</code>"


GLOSSARY_LINK = re.compile(r"^/glossary#([a-z0-9-]+)$")


def _render_link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    """A link to a glossary entry is marked as a term (a dotted underline says "defined elsewhere")."""
    token = tokens[idx]
    if GLOSSARY_LINK.match(str(token.attrGet("href") or "")):
        token.attrSet("class", "term")
    return str(self.renderToken(tokens, idx, options, env))


def _summary(markup: str, params: str) -> str | None:
    """The summary of a disclosure's opening line (``::::`` and ``details "..."``), or None if it is not one."""
    opening = _DETAILS_OPEN.match(f"{markup} {params.strip()}")
    return opening.group(1).strip() if opening else None


def _is_details(params: str, markup: str) -> bool:
    return _summary(markup, params) is not None


def _mark_unclosed(state: StateCore) -> None:
    """Mark each disclosure that runs to the end of the text: the container plugin closes it there."""
    end = state.src.count("\n") + (0 if state.src.endswith("\n") else 1)
    for token in state.tokens:
        if token.type == "container_details_open" and token.map and token.map[1] >= end:
            token.meta["unclosed"] = True


def slugify(title: str) -> str:
    """A heading's anchor id: lower case, runs of other characters become one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    container_plugin(md, "details", validate=_is_details)
    # Each section heading (##) gets its anchor id; a second heading of one title gets "-1" after it.
    anchors_plugin(md, min_level=2, max_level=2, slug_func=slugify)
    md.core.ruler.push("details_unclosed", _mark_unclosed)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_inline", _render_code_inline)
    md.add_render_rule("link_open", _render_link_open)
    return md


MD = _markdown()


def inline_text(inline: Token) -> str:
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline")).strip()


def links(inline: Token, line: int) -> list[ProseLink]:
    out = []
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        elif child.type == "link_open":
            out.append(ProseLink(href=str(child.attrGet("href") or ""), line=line))
    return out


def message_block(path: Path, token: Token, line: int) -> MessageBlock | None:
    words = token.info.split()
    if len(words) < 2 or words[0] != "json":
        return None
    if len(words) != 3 or words[1] not in VERSION or not _DEF_NAME.match(words[2]):
        raise ContentError(
            path,
            line,
            f"message block info {token.info.strip()!r} must read 'json legacy DefName' or 'json modern DefName'",
        )
    era, def_name = words[1], words[2]
    # Marked before parsing, so a block that does not parse still counts as its era's half of a pair.
    token.meta = {"era": era, "def_name": def_name, "data": None}
    try:
        data = json.loads(token.content)
    except json.JSONDecodeError as exc:
        raise ContentError(
            path,
            line,
            f"the 'json {era} {def_name}' block is not valid JSON: {exc.msg} (line {exc.lineno} of the block, "
            f"column {exc.colno})",
        ) from None
    token.meta = {"era": era, "def_name": def_name, "data": data}
    return MessageBlock(era=era, def_name=def_name, data=data, line=line)


def check_pairs(path: Path, tokens: list[Token], body_line: int) -> list[ContentError]:
    # Every message is shown in both eras, legacy first, so the page can set them side by side.
    out = []
    for i, token in enumerate(tokens):
        era = era_of(tokens, i)
        line = body_line + token.map[0] if token.map else None
        if era == "legacy" and era_of(tokens, i + 1) != "modern":
            out.append(
                ContentError(path, line, "a legacy message block must be followed at once by its modern counterpart")
            )
        if era == "modern" and era_of(tokens, i - 1) != "legacy":
            out.append(
                ContentError(path, line, "a modern message block must come straight after its legacy counterpart")
            )
    return out


def _as_html(token: Token, html: str) -> None:
    """Make a disclosure's container token raw HTML, as the renderer and the lesson loader read it."""
    token.type, token.tag, token.nesting, token.content = "html_block", "", 0, html


def disclosures(path: Path, tokens: list[Token], body_line: int) -> tuple[list[ContentError], int]:
    """Make every ``:::: details "Summary"`` ... ``::::`` container (mdit-py-plugins' container) raw
    <details> HTML in place, the blocks inside it at the top level again.

    Returns the problems found and the number of disclosures."""
    problems: list[ContentError] = []
    open_at: int | None = None  # file line of the disclosure being read
    count = 0
    for i, token in enumerate(tokens):
        line = body_line + token.map[0] if token.map else body_line
        if token.type == "container_details_open" and token.level == 0:
            count, open_at = count + 1, line
            if token.meta.get("unclosed"):
                problems.append(
                    ContentError(path, line, "this disclosure is never closed: add a '::::' line after its text")
                )
            summary = _summary(token.markup, token.info)
            _as_html(token, f'<details class="more">\n<summary>{escapeHtml(summary or "")}</summary>\n')
            continue
        if token.type == "container_details_open":
            problems.append(
                ContentError(path, line, f"disclosures do not nest: the one opened on line {open_at} is still open")
                if open_at is not None
                else ContentError(path, line, _ALONE)
            )
        if token.type == "container_details_close" and token.level == 0:
            _as_html(token, "</details>\n")
            open_at = None
            continue
        if open_at is not None:
            token.level -= 1  # the lesson reads what a disclosure holds as it reads the text around it
            if token.type == "heading_open" and token.tag == "h2":
                problems.append(
                    ContentError(path, line, "a level-2 heading cannot sit inside a disclosure: close it first")
                )
        if token.type == "paragraph_open" and any(p.startswith("::::") for p in tokens[i + 1].content.split("\n")):
            words = "this '::::' closes no disclosure" if tokens[i + 1].content == _DETAILS_CLOSE else _ALONE
            problems.append(ContentError(path, line, words))
    return problems, count


_ALONE = "a disclosure line must read ':::: details \"Summary\"' or '::::', alone at the top level"


# --- glossary terms --------------------------------------------------------------------------------


def term_pattern(spellings: dict[str, str]) -> re.Pattern[str]:
    """One pattern for every spelling (spelling -> term id), longest first, so that ``Mcp-Session-Id`` is
    one use of its own term, not a use of ``MCP`` and ``session id`` too. Case does not matter, a space
    also matches a hyphen, and a plural in -s or -es counts. The group ``t<n>`` that matched names the
    spelling (see :func:`term_uses`)."""
    parts = []
    for n, spelling in enumerate(sorted(spellings, key=len, reverse=True)):
        body = r"[\s-]+".join(re.escape(w) for w in spelling.split())
        plural = "(?:e?s)?" if spelling[-1].isalpha() else ""
        parts.append(f"(?P<t{n}>{body}{plural})")
    return re.compile(r"(?<![\w])(?:" + "|".join(parts) + r")(?![\w])", re.IGNORECASE)


class TermMark(ContentModel):
    """A place in a lesson where a glossary term is used, or linked to its entry, or a widget stands."""

    kind: Literal["use", "link", "widget"]
    name: str  # the term's id, or the widget's name
    line: int
    text: str = ""  # the words as written, for a use


def term_uses(text: str, spellings: dict[str, str], pattern: re.Pattern[str], line: int) -> list[TermMark]:
    """The uses of glossary terms in a piece of plain text, in order."""
    ordered = sorted(spellings, key=len, reverse=True)
    out = []
    for match in pattern.finditer(text):
        n = int(str(match.lastgroup)[1:])
        out.append(
            TermMark(
                kind="use",
                name=spellings[ordered[n]],
                line=line + text[: match.start()].count("\n"),
                text=match.group(0),
            )
        )
    return out


def term_marks(tokens: list[Token], body_line: int, spellings: dict[str, str]) -> list[TermMark]:
    """In page order: each use of a glossary term in the lesson's text (headings, paragraphs, lists and
    tables; not code blocks), each link to a glossary entry, and each widget line."""
    pattern = term_pattern(spellings)
    out: list[TermMark] = []
    for token in tokens:
        if token.type != "inline" or token.map is None:
            continue
        line = body_line + token.map[0]
        if match := WIDGET_LINE.match(token.content):
            out.append(TermMark(kind="widget", name=match.group(1), line=line))
            continue
        for child in token.children or []:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "link_open" and (link := GLOSSARY_LINK.match(str(child.attrGet("href") or ""))):
                out.append(TermMark(kind="link", name=link.group(1), line=line))
            elif child.type in ("text", "code_inline"):
                out += term_uses(child.content, spellings, pattern, line)
    return out
