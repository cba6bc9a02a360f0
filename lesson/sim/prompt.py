"""The model's next prompt: which tools it will see, what changed since the last turn, and what the
changes cost in prompt-cache invalidations (one at a turn whose tool list differs from the last turn's,
however many changes made it; none before the first turn, when no prompt has been sent for the provider
to cache); and what the model does with
it when the lesson does not say: the calls it makes and the arguments it passes."""

from __future__ import annotations

import functools

from .model import PromptTool, State, ToolCall, ToolDef
from .step import Step

# The one string the model passes for each argument: a plausible value, not the same words everywhere.
ARGUMENTS = {
    "query": "release 2.0 checklist",
    "page": "release-notes",
    "title": "Ship release 2.0",
    "ticket": "REL-20",
    "pair": "REL-20, REL-21",
    "who": "release team",
    "slot": "Thursday 10:00",
    "city": "Portland",
    "team": "ops",
    "workspace": "release-2.0",
    "sql": "select name, due from milestones",
    "schema": "public",
    "customer": "learner",
    "sku": "A-100",
}


def tool_keys(tools: list[PromptTool]) -> set[tuple[str, str]]:
    """For membership tests: comparing pydantic models one by one is slow."""
    return {(t.name, t.server) for t in tools}


def prompt_defs(state: State) -> list[tuple[str, ToolDef]]:
    """(server, tool) for every tool the host would put in the model's next prompt, in order."""
    out: list[tuple[str, ToolDef]] = []
    for name in state.host.configured:
        client = state.host.clients[name]
        if client.status == "connected":
            out += [(name, tool) for tool in client.tools]
    return out


def prompt_keys(state: State) -> list[tuple[str, str]]:
    """``prompt_tools`` as (name, server) pairs: cheap to build and compare."""
    return [(t.name, name) for name, t in prompt_defs(state)]


def last_prompt_keys(state: State) -> list[tuple[str, str]]:
    """The last turn's prompt (the one the provider cached) as (name, server) pairs, in order."""
    return [(t.name, t.server) for t in state.host.last_prompt]


def prompt_tools(state: State) -> list[PromptTool]:
    """The tools the host would put in the model's next prompt, rebuilt from every client."""
    return [prompt_tool(t.name, name, t.origin) for name, t in prompt_defs(state)]


@functools.lru_cache(maxsize=4096)
def prompt_tool(name: str, server: str, origin: str | None = None) -> PromptTool:
    """One shared instance per tool: a PromptTool is never changed, and every kept state holds a prompt."""
    return PromptTool(name=name, server=server, origin=origin)


def prompt_cached(st: Step) -> bool:
    """Whether the provider holds a prompt to lose: only once a turn has sent one."""
    return st.s.host.turns > 0


def count_change(st: Step, before: list[tuple[str, str]]) -> None:
    """After a step that was not a turn, whose next prompt's tool list changed: say what it will cost. The
    provider has cached the last turn's prompt; the next turn misses that cache if its tool list differs
    from the cached one then (counted by the turn, ``turn_begins``), once however many changes made it."""
    now = prompt_keys(st.s)
    if now == before:
        return
    h = st.s.host
    h.pending_changes += 1
    if not prompt_cached(st):
        st.say("narration.no_cache_yet")
    elif h.batching:
        st.say("narration.change_held_for_turn")
    elif now == (cached := last_prompt_keys(st.s)):
        st.say("narration.cache_matches_again")
    elif before != cached:  # it differed already: still one miss at the next turn
        st.say("narration.cache_still_misses")
    else:
        st.say("narration.cache_will_miss")


def default_calls(st: Step, prompt: list[PromptTool]) -> tuple[list[ToolCall], list[PromptTool]]:
    """What the model does when the lesson does not say: carry on with each server it worked with,
    trying a brand-new tool first, unless that tool is destructive: a careful host asks the user
    before any such call, so the model leaves it alone. Returns the calls and the tools held back."""
    last = st.s.host.last_prompt
    # A tool is destructive by its definition in the next prompt (the last one listed, should a gateway
    # list a name twice); one no longer there is not.
    defs = {(t.name, server): t for server, t in prompt_defs(st.s)}
    destructive = {key for key, t in defs.items() if t.destructive}
    present = {t.server for t in prompt} | {t.server for t in last}
    servers = [s for s in st.s.host.configured if s in present]
    servers += [t.server for t in last if t.server not in servers and t.server not in st.s.host.configured]
    calls: list[ToolCall] = []
    held: list[PromptTool] = []
    seen = tool_keys(last)
    for name in dict.fromkeys(servers):
        safe, new = [], []
        for t in prompt:
            if t.server != name:
                continue
            key = (t.name, t.server)
            if key not in destructive:
                safe.append(t)
                if key not in seen:
                    new.append(t)
            elif key not in seen:
                held.append(t)
        pick = (new or safe or [None])[0]
        if pick is None:  # nothing safe there in this prompt: a safe tool it saw there last turn
            for t in last:  # a loop, not next() over a generator: closing one early raises inside it
                if t.server == name and (t.name, t.server) not in destructive:
                    pick = t
                    break
        if pick is not None:
            calls.append(ToolCall(server=name, tool=pick.name))
    return calls, held
