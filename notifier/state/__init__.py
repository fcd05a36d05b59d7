"""Durable state in one SQLite file: outbox, dead letters, threads, last-seen objects, groups."""

from notifier.state.config import StateConfig
from notifier.state.database import StateUnavailableError
from notifier.state.dead_letters import DeadLetter
from notifier.state.held import HeldMembers, HeldRow
from notifier.state.outbox import Failure, Outbox, PendingPage
from notifier.state.seen import SeenObjects, SeenRecord, encode_object
from notifier.state.store import StateStore

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
