"""Durable state in one SQLite file: outbox, dead letters, threads, last-seen objects, groups.

Its names are imported when first asked for: loading a config (``rules check``)
reads ``state.config`` alone, without SQLite and the stores.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from notifier.state.config import StateConfig
    from notifier.state.database import StateUnavailableError
    from notifier.state.dead_letters import DeadLetter
    from notifier.state.held import HeldMembers, HeldRow
    from notifier.state.outbox import Failure, Outbox, PendingPage
    from notifier.state.seen import SeenObjects, SeenRecord, encode_object
    from notifier.state.store import StateStore

_MODULES = {
    "DeadLetter": "dead_letters",
    "Failure": "outbox",
    "HeldMembers": "held",
    "HeldRow": "held",
    "Outbox": "outbox",
    "PendingPage": "outbox",
    "SeenObjects": "seen",
    "SeenRecord": "seen",
    "StateConfig": "config",
    "StateStore": "store",
    "StateUnavailableError": "database",
    "encode_object": "seen",
}

__all__ = [
    "DeadLetter",
    "Failure",
    "HeldMembers",
    "HeldRow",
    "Outbox",
    "PendingPage",
    "SeenObjects",
    "SeenRecord",
    "StateConfig",
    "StateStore",
    "StateUnavailableError",
    "encode_object",
]


def __getattr__(name: str) -> object:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
