"""What the page reads and does, as small typed views the composition root hands to the app.

The page never reaches into the pipeline: each view answers from memory it
already keeps (bounded) or from one bounded query, and the writes (a
silence added or expired, dead letters replayed) are callables the root
gives only when writes are enabled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from notifier.api.decision_log import DecisionRecord
from notifier.api.paged import Paged, Where
from notifier.api.readiness import Verdict
from notifier.rules.timing.held_back import OpenGroup, PendingTimer
from notifier.silences.book import Silence, SilenceWrites


class Told(NamedTuple):
    """A notification handed to a sink: its latest one about an entry."""

    sink: str
    notification_id: str


@dataclass(frozen=True, slots=True)
class FiringItem:
    rule: str
    kind: str
    namespace: str
    name: str
    states: tuple[str, ...]
    since: float
    told: tuple[Told, ...]  # empty: told before a restart, or muted
    resolved_at: float | None = None
    muted_by: str = ""  # the silence that muted its latest change ("" when none did)


@dataclass(frozen=True, slots=True)
class SendState:
    """Where a notification is with its sink, from delivery's own records.

    ``state``: ``delivered``, ``queued``, ``retrying`` (``detail``: the last
    error), ``dead-lettered`` (``detail``: why it was given up on), or
    ``unknown`` (never handed to delivery here: a standby, or past what
    delivery remembers). A dead letter replayed since has ``replayed_at``:
    ``delivered`` by that replay (``detail`` still why it had been given up
    on), or ``dead-lettered`` with the replay's ``replay_error``.
    """

    sink: str
    state: str
    detail: str = ""
    attempts: int = 0
    at: float = 0.0  # when it got there (0: unknown)
    cause: str = ""  # enrich: [changes]'s likely cause, as it was sent
    replayed_at: float = 0.0  # when its dead letter was last replayed (0: never)
    replay_error: str = ""  # why that replay failed ("" when it delivered)


class SendStateView(Protocol):
    def state(self, told: Told) -> SendState: ...


class HealthView(Protocol):
    """The same verdict as /readyz (``api/readiness.py``)."""

    def verdict(self) -> Verdict: ...


class NowView(Protocol):
    def firing(self, where: Where, offset: int, limit: int) -> Paged[FiringItem]: ...

    def resolved(self, where: Where, limit: int) -> list[FiringItem]: ...


class WaitingView(Protocol):
    """What the rules hold back: pending ``for:`` timers (soonest first), open groups."""

    def pending(self, where: Where, offset: int, limit: int) -> Paged[PendingTimer]: ...

    def groups(self, where: Where, offset: int, limit: int) -> Paged[OpenGroup]: ...


class DecisionView(Protocol):
    def search(self, text: str, offset: int, limit: int) -> Paged[DecisionRecord]: ...


class SilenceView(Protocol):
    def silences(self) -> list[Silence]: ...

    def preview(self, matchers: dict[str, str], limit: int) -> Paged[FiringItem]: ...


@dataclass(frozen=True, slots=True)
class SinkQueue:
    name: str
    integration: str
    depth: int
    oldest_seconds: float


@dataclass(frozen=True, slots=True)
class SendFailure:
    at: float
    sink: str
    reason: str
    detail: str
    notification: str  # its ordering key (kind/namespace/name)
    attempt: int


@dataclass(frozen=True, slots=True)
class DeadLetterItem:
    id: int
    dead_at: float
    sink: str
    reason: str
    attempts: int
    ordering_key: str
    detail: str
    replayed_at: float = 0.0  # when a replay last failed to send it again (0: none since)
    replay_error: str = ""  # why that replay failed


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    sent: int
    left: int
    lines: list[str] = field(default_factory=list)


class DeliveryView(Protocol):
    def queues(self) -> list[SinkQueue]: ...

    def failures(self, limit: int) -> list[SendFailure]: ...

    def dead_letters(self, limit: int) -> Paged[DeadLetterItem]: ...


Replay = Callable[[str | None], ReplayOutcome]  # a sink's dead letters (None: all)


@dataclass(frozen=True, slots=True)
class Writes:
    """Present only when the page may write (``--page-writes``)."""

    silences: SilenceWrites | None
    replay: Replay | None


@dataclass(frozen=True, slots=True)
class PageParts:
    """Everything the page reads, and may write: given by the composition root."""

    now: NowView
    waiting: WaitingView
    decisions: DecisionView
    silences: SilenceView
    delivery: DeliveryView
    health: HealthView
    sent: SendStateView
    writes: Writes | None = None  # None: the page is read-only (the default)
    silences_map: str = ""  # NAMESPACE/NAME of the silences ConfigMap; "" when none is watched
