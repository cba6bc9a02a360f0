"""One client per era. The host picks the client by the era it speaks to that server."""

from __future__ import annotations

from .base import QUESTION, BaseClient, client_for
from .legacy import LegacyClient
from .modern import ModernClient

__all__ = ["QUESTION", "BaseClient", "LegacyClient", "ModernClient", "client_for"]
