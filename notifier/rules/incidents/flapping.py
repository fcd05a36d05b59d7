"""``flapping:``: an object that enters and leaves a rule's states too often is told once.

For each rule with ``flapping: {changes: N, within: W}`` and each object the
rule matched, the detector keeps the times the object entered or left the
rule's ``to:`` states; while the rule's incident about the object is open
(``rules/incidents/resolving.py``) the object counts as inside, so the kubelet's
crash-loop cycle is no change, and flapping counts incidents that open and
end. When N of them fall within W, the object is *flapping*: the rule tells
that once, then keeps quiet about the object (its notifications and
resolutions are suppressed, ``reason="flapping"``) until the object has not
entered nor left for W; then it tells one resolution.

Memory only: a restart forgets how often an object changed (it starts
counting again). Records of objects that are quiet, outside the rule's states
and have no change within W are forgotten. Not thread-safe: the engine holds
its lock around every call.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from notifier.objects import EventType, Kind, ObjectKey
from notifier.rules import metrics
from notifier.rules.noise.policy import FlapPolicy
from notifier.rules.ruleset import CompiledRule
from notifier.transitions.model import Transition

ObjectId = tuple[Kind, ObjectKey]


@dataclass(slots=True)
class _Record:
    policy: FlapPolicy
    wanted: frozenset[str]
    transition: Transition  # the latest, to tell from
    inside: bool = False  # in one of ``wanted`` now
    changes: deque[float] = field(default_factory=deque)
    flapping_since: float | None = None

    def follow(self, transition: Transition, now: float, held: bool) -> bool:
        """Count an entry or exit; True if the object just started flapping. ``held``: the
        rule's incident about the object is open, so the object is inside whatever it holds."""
        self.transition = transition
        inside = held or (
            transition.event is not EventType.DELETED
            and not self.wanted.isdisjoint(transition.new_states)
        )
        if inside != self.inside:
            self.inside = inside
            self.changes.append(now)
        self._prune(now)
        if self.flapping_since is None and len(self.changes) >= self.policy.changes:
            self.flapping_since = now
            return True
        return False

    def stable(self, now: float) -> bool:
        self._prune(now)
        return not self.changes

    def _prune(self, now: float) -> None:
        while self.changes and self.changes[0] <= now - self.policy.within:
            self.changes.popleft()


@dataclass(frozen=True, slots=True)
class Flap:
    """A rule's flapping for one object, begun or over: what to tell."""

    rule: str
    transition: Transition
    wanted: frozenset[str]
    changes: int
    within: float
    since: float


@dataclass(frozen=True, slots=True)
class FlapOutcome:
    started: tuple[Flap, ...] = ()  # tell these now
    quiet: frozenset[str] = frozenset()  # rules flapping for this object: suppress them


class FlapDetector:
    def __init__(self) -> None:
        self._records: dict[ObjectId, dict[str, _Record]] = {}
        self._flapping: set[tuple[ObjectId, str]] = set()

    def follow(
        self,
        transition: Transition,
        matched: Sequence[CompiledRule],
        now: float,
        held: frozenset[str] = frozenset(),
    ) -> FlapOutcome:
        """Count ``transition`` for the object's records; ``matched`` flapping rules open one.
        ``held``: rules whose incident about the object is open (a change inside one is none)."""
        where = (transition.kind, transition.key)
        records = self._records.get(where, {})
        for rule in matched:
            if rule.flapping is not None and rule.name not in records:
                records[rule.name] = _Record(rule.flapping, rule.to, transition)
        if not records:
            return FlapOutcome()
        self._records[where] = records
        started = [
            _flap(name, record)
            for name, record in records.items()
            if record.follow(transition, now, name in held)
        ]
        self._flapping.update((where, flap.rule) for flap in started)
        quiet = frozenset(name for name, r in records.items() if r.flapping_since is not None)
        self._forget_quiet(where, now)
        metrics.FLAPPING_STARTED.inc(len(started))
        self._count()
        return FlapOutcome(tuple(started), quiet)

    def flapping(self, rule: str, where: ObjectId) -> bool:
        return (where, rule) in self._flapping

    def settled(self, now: float) -> list[Flap]:
        """Flapping that is over (no change for ``within``): tell each once, forgotten."""
        over = []
        for where, name in list(self._flapping):
            records = self._records[where]
            record = records[name]
            if record.stable(now):
                over.append(_flap(name, record))
                self._flapping.discard((where, name))
                del records[name]
                if not records:
                    del self._records[where]
        if over:
            self._count()
        return over

    def next_due(self) -> float | None:
        records = [self._records[where][name] for where, name in self._flapping]
        return min((r.changes[-1] + r.policy.within for r in records if r.changes), default=None)

    def _forget_quiet(self, where: ObjectId, now: float) -> None:
        records = self._records[where]
        for name, record in list(records.items()):
            if record.flapping_since is None and not record.inside and record.stable(now):
                del records[name]
        if not records:
            del self._records[where]

    def _count(self) -> None:
        metrics.FLAPPING.set(len(self._flapping))


def _flap(name: str, record: _Record) -> Flap:
    since = record.flapping_since if record.flapping_since is not None else 0.0
    policy = record.policy
    return Flap(name, record.transition, record.wanted, policy.changes, policy.within, since)
