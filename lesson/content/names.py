"""Whether what content names is there: the servers and tools an event names against its start, the
servers a condition tests, and the servers a start declares. Panels, scenarios, quick-check tasks and
``lesson trace`` ask the same questions, so each is answered here once, with the message an author reads.
"""

from __future__ import annotations

import re
from pathlib import Path

from lesson.sim import Event, Start, begin
from lesson.sim.model import ToolDef
from lesson.sim.spelling import did_you_mean
from lesson.sim.starts import declared_problems

from .goals import All, AnyOf, Condition, Not
from .yamlfile import ContentError, YamlDoc


def server_names(event: Event) -> set[str]:
    """Every server an event names."""
    names = {getattr(event, f, None) for f in ("server", "gateway", "backend")}
    names |= {c.server for c in getattr(event, "calls", None) or []}
    return {n for n in names if n}


def start_described(start: Start) -> str:
    """The start's servers as a message names them: the named start's, and the ones it declares."""
    if not start.servers:
        return f"start {start.name!r}"
    return f"start {start.name!r} with the servers it declares"


def unknown_servers(start: Start, events: list[Event]) -> str | None:
    """Why the events name servers the start (the named start's and the ones it declares) does not have, or None."""
    known = sorted(begin(start).state.servers)
    unknown = sorted(set().union(*(server_names(e) for e in events)) - set(known)) if events else []
    if unknown:
        named = ", ".join(repr(n) for n in unknown)
        hint = did_you_mean(unknown[0], known) if len(unknown) == 1 else ""
        return f"names {named}, which is not a server of {start_described(start)} ({', '.join(known)}){hint}"
    return None


def offered_tools(start: Start, server: str) -> list[str]:
    """Every tool a server of the start offers or can deploy (a gateway: its backends'), by name."""
    servers = begin(start).state.servers
    srv = servers.get(server)
    if srv is None:
        return []
    found = [servers[b] for b in srv.backends if b in servers] if srv.gateway else [srv]
    return [t.name for x in found for t in x.tools + x.upcoming]


def deployed(events: list[Event]) -> list[str]:
    """The tools events deploy by name (a deploy that brings its own tool definition)."""
    return [e.tool.name for e in events if isinstance(getattr(e, "tool", None), ToolDef)]


def unknown_tools(start: Start, events: list[Event], also: list[str] | None = None) -> str | None:
    """Why an event names a tool its server does not have (nor ``also``, tools other events deploy), or None.
    (A model turn's own calls may name any tool: an unknown one is an error the model reads, which a lesson
    may mean to show.)"""
    extra = deployed(events) + (also or [])
    for event in events:
        tool, server = getattr(event, "tool", None), getattr(event, "server", None)
        known = offered_tools(start, server) if isinstance(server, str) else []
        if isinstance(tool, str) and isinstance(server, str) and tool not in known + extra:
            return (
                f"names tool {tool!r}, which server {server} does not offer ({', '.join(known) or 'no tools'})"
                + did_you_mean(tool, known)
            )
    return None


_SERVER_SELECTOR = re.compile(r"\bservers\[name=([^\]]*)\]")


def condition_servers(cond: Condition, loc: tuple[int | str, ...] = ()) -> list[tuple[tuple[int | str, ...], str]]:
    """(where in the condition, server name) for each server a condition names: a ``servers[name=X]``
    selector, or the value a path ending in ``server`` is tested against."""
    if isinstance(cond, All):
        return [x for n, c in enumerate(cond.all) for x in condition_servers(c, (*loc, "all", n))]
    if isinstance(cond, AnyOf):
        return [x for n, c in enumerate(cond.any) for x in condition_servers(c, (*loc, "any", n))]
    if isinstance(cond, Not):
        return condition_servers(cond.not_, (*loc, "not"))
    found = [((*loc, "path"), m.group(1)) for m in _SERVER_SELECTOR.finditer(cond.path)]
    if cond.path.rsplit(".", 1)[-1] == "server":
        for key in ("equals", "contains"):
            if isinstance(value := getattr(cond, key), str):
                found.append(((*loc, key), value))
    return found


def unknown_condition_servers(
    start: Start, cond: Condition, loc: tuple[int | str, ...], what: str
) -> list[tuple[tuple[int | str, ...], str]]:
    """(where, why) for each server a condition names that the start does not have: such a test never holds."""
    known = sorted(begin(start).state.servers)
    return [
        (
            where_,
            f"{what} names server {name!r}, which is not a server of {start_described(start)} ({', '.join(known)})"
            + did_you_mean(name, known),
        )
        for where_, name in condition_servers(cond, loc)
        if name not in known
    ]


def declared_server_problems(doc: YamlDoc, path: Path, start: Start, loc: tuple[int | str, ...]) -> list[ContentError]:
    """Declared servers whose names are taken (by the named start's servers or an earlier declared one), each
    at its own line; ``loc`` is where the start sits in the file."""
    try:
        found = declared_problems(start)
    except KeyError:
        return []  # an unknown start is reported where it is played
    return [ContentError(path, doc.line((*loc, "servers", n, "name")), message) for n, message in found]


__all__ = [
    "condition_servers",
    "declared_server_problems",
    "deployed",
    "offered_tools",
    "server_names",
    "unknown_condition_servers",
    "unknown_servers",
    "unknown_tools",
    "start_described",
]
