"""One notification group: members gathered until the group is due, then released together.

Timing follows Alertmanager, read for events rather than firing alerts:

* the first member opens the group; it is released ``group_wait`` later,
  with whatever else arrived meanwhile;
* members arriving after a release are held and released together
  ``group_interval`` after the previous release;
* a member already released is not released again within
  ``repeat_interval`` (the group remembers it);
* a group with nothing pending closes ``repeat_interval`` after its last
  release, or right away if it never released anything.

Only the first ``max_listed`` pending members are kept; the rest are
counted, so a digest of 10,000 pods holds 20 of them and says how many
more there were. Every pending member's ``token`` is kept, listed or not,
so the caller can forget the durable copy of each once its release is sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from notifier.rules.noise.dedup import DedupMemory
from notifier.rules.noise.policy import NoisePolicy

T = TypeVar("T")
GroupLabels = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Release(Generic[T]):
    """What to send now: one member alone, or a digest of a group."""

    rule: str
    items: tuple[T, ...]  # the members listed (at most ``max_listed``)
    total: int  # members in this release, listed or not
    group: GroupLabels | None = None  # None: not grouped
    tokens: tuple[int, ...] = ()  # the callers' tokens of every member released

    @property
    def is_digest(self) -> bool:
        return self.group is not None and self.total > 1


@dataclass(frozen=True, slots=True)
class GroupState(Generic[T]):
    """A group holding members, as it stood when read (for the page)."""

    rule: str
    labels: GroupLabels
    members: int  # held now, listed or not
    listed: tuple[T, ...]  # the first ``max_listed`` of them
    due_at: float  # when they are released together


@dataclass
class Group(Generic[T]):
    rule: str
    labels: GroupLabels
    policy: NoisePolicy
    due_at: float
    released_at: float | None = None
    listed: list[T] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    reported: DedupMemory = field(default_factory=DedupMemory)

    @property
    def pending(self) -> int:
        return len(self.tokens)

    def add(self, item: T, member_key: str, now: float, token: int = 0) -> bool:
        """Hold ``item`` for the next release; False if it was released recently."""
        if self.reported.seen(member_key, now):
            return False
        self.reported.remember(member_key, now, self.policy.repeat_interval)
        if len(self.listed) < self.policy.max_listed:
            self.listed.append(item)
        self.tokens.append(token)
        return True

    def state(self) -> GroupState[T]:
        return GroupState(self.rule, self.labels, self.pending, tuple(self.listed), self.due_at)

    def release(self, now: float) -> Release[T] | None:
        """The pending members if the group is due, else None."""
        if not self.pending or now < self.due_at:
            return None
        released = Release(
            self.rule, tuple(self.listed), self.pending, self.labels, tuple(self.tokens)
        )
        self.listed, self.tokens = [], []
        self.released_at, self.due_at = now, now + self.policy.group_interval
        self.reported.prune(now)
        return released

    def closed(self, now: float) -> bool:
        if self.pending:
            return False
        if self.released_at is None:
            return True
        return now >= self.released_at + self.policy.repeat_interval
