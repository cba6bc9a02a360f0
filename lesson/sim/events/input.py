"""A tool asks the user a question; the user answers (legacy: elicitation on the call's stream;
modern: input_required, then a retry)."""

from __future__ import annotations

from typing import Literal

from ..clients import client_for
from ..model import Said
from ..step import Rejected, Step, word
from .base import EventBase, handles
from .calls import pick_tool, turn_begins, turn_ends


class AskUserInput(EventBase):
    """A model turn in which the model calls a tool that needs the user to answer a question before it
    can finish (the model acts only when the host calls it, as in ``StartCall``)."""

    kind: Literal["ask_user_input"] = "ask_user_input"
    server: str
    tool: str | None = None


@handles(AskUserInput)
def _ask(st: Step, e: AskUserInput) -> None:
    c = st.client(e.server)
    if c.status != "connected":
        raise Rejected("refusal.server_status", server=e.server, status=word("status", c.shown_status()))
    if c.pending_input:
        raise Rejected("refusal.already_asking", server=e.server)
    turn = turn_begins(st)
    client = client_for(st, c)
    tool = pick_tool(c, e.tool)
    # Who made the call the question belongs to: the model, which now waits for its result.
    st.say("narration.model_calls_for_input", "model", tool=tool.name, server=e.server)
    client.begin_input(tool, client.default_args(tool.name))
    turn_ends(st, turn, [])


class UserAnswers(EventBase):
    kind: Literal["user_answers"] = "user_answers"
    server: str
    answer: str = "OR"
    after_expiry: bool = False  # the user took longer than the state's expiry

    def describe(self) -> Said:
        """A late answer says so in its heading, or it would read like the answer in time."""
        heading = super().describe()
        if not self.after_expiry:
            return heading
        return heading.model_copy(update={"code": "narration.event.user_answers_late"})


@handles(UserAnswers)
def _answer(st: Step, e: UserAnswers) -> None:
    c = st.client(e.server)
    srv = st.srv(e.server)
    if e.after_expiry and c.era == "legacy":
        # The question waits on the call's open stream: only a 2026-07-28 round seals a requestState.
        # First: the era's reason holds whatever else is going on.
        raise Rejected("refusal.no_request_state", server=e.server)
    if c.pending_input is None:
        raise Rejected("refusal.not_asking", server=e.server)
    if not srv.up or c.status == "down":
        raise Rejected("refusal.answer_waits_for_server", server=e.server)
    client_for(st, c).answer(e.answer, e.after_expiry)
