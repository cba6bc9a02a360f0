"""MCP Churn Lab: an interactive lesson on how an MCP host copes with server churn.

``flask --app lesson run`` finds ``create_app`` here; it is imported lazily so that the pure
simulation (``lesson.sim``) never pulls in Flask.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .web import create_app

        return create_app
    raise AttributeError(name)
