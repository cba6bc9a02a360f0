"""One client per era. The host picks the client by the era it speaks to that server."""

from __future__ import annotations

from ..model import Client
from ..step import Step
from .base import ARGUMENTS, QUESTION, BaseClient
from .legacy import LegacyClient
from .modern import ModernClient

_BY_ERA: dict[str, type[BaseClient]] = {"legacy": LegacyClient, "modern": ModernClient}


def client_for(st: Step, c: Client) -> BaseClient:
    return _BY_ERA[c.era](st, c)


__all__ = ["ARGUMENTS", "QUESTION", "BaseClient", "LegacyClient", "ModernClient", "client_for"]
