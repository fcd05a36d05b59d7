"""Noise control: dedup and grouping between the rules and the sinks.

Stateful but without I/O, clocks or threads of its own: the caller passes
``now`` to ``offer`` (for each matched transition) and to ``tick`` (every
second or so, or at ``next_due()``) and sends what comes back. Items are
opaque (``T``): this module decides *when* and *together with what*, never
what a message says.

``offer`` returns a ``Release`` right away for rules without ``group_by``,
or holds the item in its group (``Admission.held``). Either way, the same
``dedup_key`` offered again within the rule's dedup window is suppressed
(``SuppressReason.DEDUP``). A held item carries the caller's ``token``, and
its release lists the tokens of all it released, so a caller that keeps a
durable copy of each held item knows which copies a release makes obsolete.
Thread-safe: workers offer concurrently while one loop ticks.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic

from notifier.rules.metrics import PENDING_GROUPS
from notifier.rules.noise.dedup import DedupMemory
from notifier.rules.noise.grouping import Group, GroupLabels, GroupState, Release, T
from notifier.rules.noise.policy import NoisePolicy
from notifier.rules.reasons import SuppressReason

_PRUNE_EVERY = 256  # offers between prunes of the dedup memory, in case nobody ticks


@dataclass(frozen=True, slots=True)
class Admission(Generic[T]):
    release: Release[T] | None = None  # send this now
    suppressed: SuppressReason | None = None  # or why nothing is sent for this item

    @property
    def held(self) -> bool:
        """The item waits in a group (alone or with others) for a later release."""
        return self.release is None and self.suppressed in (None, SuppressReason.GROUP)


class NoiseControl(Generic[T]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sent = DedupMemory()
        self._groups: dict[tuple[str, GroupLabels], Group[T]] = {}
        self._offers = 0

    def offer(
        self,
        item: T,
        *,
        rule: str,
        policy: NoisePolicy,
        dedup_key: str,
        group: GroupLabels,
        now: float,
        token: int = 0,
    ) -> Admission[T]:
        """Admit one item; ``group`` holds the values of ``policy.group_by`` for it."""
        with self._lock:
            self._maybe_prune(now)
            if self._sent.seen(dedup_key, now):
                return Admission(suppressed=SuppressReason.DEDUP)
            self._sent.remember(dedup_key, now, policy.dedup_window)
            if not policy.grouped:
                return Admission(release=Release(rule, (item,), 1))
            return self._grouped(item, rule, policy, (dedup_key, group, token), now)

    def tick(self, now: float) -> list[Release[T]]:
        """Releases of the groups that are due; closes groups that are done."""
        with self._lock:
            self._sent.prune(now)
            released = [r for g in self._groups.values() if (r := g.release(now)) is not None]
            closed = [key for key, group in self._groups.items() if group.closed(now)]
            for key in closed:
                del self._groups[key]
            PENDING_GROUPS.set(len(self._groups))
        return released

    def next_due(self) -> float | None:
        """When the next group release is due, if any group holds members."""
        with self._lock:
            dues = [group.due_at for group in self._groups.values() if group.pending]
        return min(dues, default=None)

    def open_groups(self) -> list[GroupState[T]]:
        """The groups holding members now: one pass under the lock, nothing rendered."""
        with self._lock:
            return [group.state() for group in self._groups.values() if group.pending]

    def _grouped(
        self,
        item: T,
        rule: str,
        policy: NoisePolicy,
        member: tuple[str, GroupLabels, int],
        now: float,
    ) -> Admission[T]:
        key, labels, token = member
        group = self._groups.get((rule, labels))
        if group is None:
            group = Group(rule, labels, policy, due_at=now + policy.group_wait)
            self._groups[rule, labels] = group
            PENDING_GROUPS.set(len(self._groups))
        joined_others = group.pending > 0
        if not group.add(item, key, now, token):
            return Admission(suppressed=SuppressReason.DEDUP)
        return Admission(suppressed=SuppressReason.GROUP if joined_others else None)

    def _maybe_prune(self, now: float) -> None:
        self._offers += 1
        if self._offers % _PRUNE_EVERY == 0:
            self._sent.prune(now)
