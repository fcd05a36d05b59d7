"""Keeping grouped transitions durable while they wait for their digest.

A grouped transition waits in memory for ``group_wait`` (or
``group_interval``), while the worker records its object as acted on right
away. So that "acted on" never outlives the only copy of what is to be told,
the engine hands every member it holds to a ``Holding`` (the service's keeps
it in the state database, behind the same writer as the worker's record) and
tells it to forget the members of a release once that release has been
submitted, so that the digest is in the outbox first. At start, the members a
previous process still held are offered again (``RulesEngine.restore``).

No I/O here: this module only says what a holding is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from notifier.notifications import Notification
from notifier.rules.timing.timers import Timer
from notifier.transitions.model import Transition


@dataclass(frozen=True, slots=True)
class Held:
    """One member waiting in a group: its token, its rule, what happened and when it was held."""

    token: int
    rule: str
    transition: Transition
    held_at: float


class Holding(Protocol):
    def held(self) -> list[Held]:
        """What a previous process held and never released, oldest first."""
        ...

    def hold(self, member: Held) -> None:
        """Keep ``member`` (asynchronously is fine, in order with the worker's state writes)."""
        ...

    def forget(self, tokens: Sequence[int]) -> None:
        """The members with these tokens were released and submitted: drop their copies."""
        ...


class NoHolding:
    """Without a state database, held members live in memory only."""

    def held(self) -> list[Held]:
        return []

    def hold(self, member: Held) -> None:
        return None

    def forget(self, tokens: Sequence[int]) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Released:
    """Notifications to submit now, and the held members they make obsolete once submitted."""

    notifications: list[Notification] = field(default_factory=list)
    tokens: tuple[int, ...] = ()
    timers: tuple[Timer, ...] = ()  # ``for:`` timers that fired: kept fired once submitted


def joined(first: Released, second: Released) -> Released:
    return Released(
        first.notifications + second.notifications,
        first.tokens + second.tokens,
        first.timers + second.timers,
    )
