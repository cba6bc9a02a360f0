"""MCP Churn Lab: an interactive lesson on how an MCP host copes with server churn.

``flask --app lesson run`` finds ``create_app`` here; it is imported lazily so that the pure
simulation (``lesson.sim``) never pulls in Flask.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "create_app":
        return _create_app_for_flask
    raise AttributeError(name)


def _create_app_for_flask(config: Any = None) -> Any:
    """The app for Flask's own command line: broken content or settings stop it with the problem in
    words, one per line, as ``lesson serve`` says them, not with Python's traceback."""
    from .content.yamlfile import ContentError
    from .settings import SettingsError
    from .web import create_app

    try:
        return create_app(config)
    except ContentError as err:
        raise SystemExit(f"content error: {err}") from None
    except SettingsError as err:
        raise SystemExit(str(err)) from None
