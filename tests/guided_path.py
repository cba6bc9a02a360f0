"""The guided path through the playgrounds, shared by its fast test (tests/web/test_guided_path_facts.py)
and its browser test (tests/e2e/test_guided_path.py): the walk-through each playground is walked by (a
scenario, by the start of its title) and, for a playground without one, the presses that meet its goal."""

from __future__ import annotations

# The one a learner is offered first (the outage's passes both predictions: the call on A, A dying, and A
# coming back).
WALKS = {"outage": "An outage", "gateway": "A gateway in front", "answering": "A restart while the user is answering"}
GOAL_PRESSES = {"guide": ["admin", "turn"], "handles": ["create", "add", "replica-2", "restart", "add"]}
