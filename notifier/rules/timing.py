"""``for:``: a rule that tells only once an object has stayed in one of its states that long.

Prometheus's semantics, read for object states. A transition that matches a
rule with ``for:`` starts a *timer* for that rule and object: it is pending.
It comes due at ``since + for``, and fires if the object is still in one of
the rule's ``to:`` states; leaving all of them first cancels it quietly
(``suppressed{reason="pending_cancelled"}``). Moving from one of the rule's
states to another keeps the timer and its ``since``. A timer that fired stays
(``fired``) until the object leaves, so the object is told once per stay.
``since`` is when the worker first saw the state (the entering transition's
``observed_at``).

The timer carries one transition: the entering one's old side and the
latest new side, so the message tells where the object came from and where
it is now. Timers are kept by a ``TimerStore`` (the state database in the
service): a restart neither resets, loses nor doubles them, and one that came
due while the process was down fires once after it.

A reload takes effect at the next due check: a timer whose rule is gone, no
longer waits, or no longer names any state the object is in, is dropped; a
changed ``for:`` moves the due time (counted from the same ``since``).

Not thread-safe: the engine serializes every call with its own lock.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from notifier.objects import Kind, ObjectKey
from notifier.rules import metrics
from notifier.rules.decisions import Decision
from notifier.rules.durations import format_duration
from notifier.rules.metrics import PENDING_TIMERS, SuppressReason
from notifier.rules.ruleset import CompiledRule
from notifier.transitions.model import EventType, Transition

log = logging.getLogger("notifier.rules")

ObjectId = tuple[Kind, ObjectKey]


@dataclass(frozen=True, slots=True)
class Timer:
    rule: str
    transition: Transition  # the entering transition's old side, the latest new side
    wanted: frozenset[str]  # the rule's ``to:``: the timer holds while any of them does
    since: float  # when the object entered one of them
    fired: bool = False

    @property
    def object_id(self) -> ObjectId:
        return (self.transition.kind, self.transition.key)

    def holds_in(self, transition: Transition) -> bool:
        gone = transition.event is EventType.DELETED
        return not gone and not self.wanted.isdisjoint(transition.new_states)

    def holds_for_rule(self, rule: CompiledRule) -> bool:
        """Whether ``rule`` (after a reload) still names a state the object is in."""
        return rule.hold_for is not None and not rule.to.isdisjoint(self.transition.new_states)

    def followed(self, transition: Transition) -> Timer:
        """The timer after ``transition``, which keeps the object in its states."""
        latest = replace(transition, old=self.transition.old, old_states=self.transition.old_states)
        return replace(self, transition=replace(latest, changes=(), signals=frozenset()))


class TimerStore(Protocol):
    def all_timers(self) -> list[Timer]: ...

    def save(self, timer: Timer) -> None: ...

    def drop(self, timer: Timer) -> None: ...


class NoTimerStore:
    """Timers for this process only."""

    def all_timers(self) -> list[Timer]:
        return []

    def save(self, timer: Timer) -> None:
        return None

    def drop(self, timer: Timer) -> None:
        return None


class Timers:
    def __init__(self, store: TimerStore | None = None) -> None:
        self._store = store or NoTimerStore()
        self._by_object: dict[ObjectId, dict[str, Timer]] = {}
        self._heap: list[tuple[float, float, str, Kind, ObjectKey]] = []
        self._rules: Mapping[str, CompiledRule] | None = None
        self._pending = 0
        for timer in self._store.all_timers():
            self._by_object.setdefault(timer.object_id, {})[timer.rule] = timer
            self._pending += not timer.fired
        self._count(0)

    def start(self, rule: CompiledRule, transition: Transition) -> bool:
        """Start timing ``rule`` for the object ``transition`` brought into its states.

        False if a timer of that rule already runs (or has fired) for the object."""
        timers = self._by_object.setdefault((transition.kind, transition.key), {})
        if rule.name in timers or rule.hold_for is None:
            return False
        since = transition.observed_at
        entering = replace(transition, changes=(), signals=frozenset())
        timer = Timer(rule.name, entering, rule.to, since)
        timers[rule.name] = timer
        self._push(timer, since + rule.hold_for)
        self._store.save(timer)
        self._count(1)
        return True

    def follow(
        self, transition: Transition, matched: Sequence[CompiledRule], decision: Decision
    ) -> None:
        """Cancel what ``transition`` ends, then start the ``matched`` timed rules it begins."""
        for timer in self.observe(transition):
            metrics.count_suppressed(SuppressReason.PENDING_CANCELLED)
            decision.suppressed.append((timer.rule, SuppressReason.PENDING_CANCELLED.value))
        for rule in matched:
            if self.start(rule, transition):
                wait = format_duration(rule.hold_for or 0.0)
                decision.suppressed.append((rule.name, f"pending: tells in {wait} if it stays"))

    def observe(self, transition: Transition) -> list[Timer]:
        """Follow ``transition`` in its object's timers; the pending ones it cancels."""
        timers = self._by_object.get((transition.kind, transition.key))
        if not timers:
            return []
        cancelled = []
        for name, timer in list(timers.items()):
            if timer.holds_in(transition):
                if not timer.fired:
                    timers[name] = timer.followed(transition)
                    self._store.save(timers[name])
                continue
            del timers[name]
            self._store.drop(timer)
            if not timer.fired:
                cancelled.append(timer)
        if not timers:
            del self._by_object[(transition.kind, transition.key)]
        self._count(-len(cancelled))
        return cancelled

    def due(
        self, rules: Mapping[str, CompiledRule], now: float
    ) -> list[tuple[Timer, CompiledRule]]:
        """The pending timers due by ``now`` under ``rules``, marked fired (in memory).

        ``fired`` each once what they told is submitted, so the store keeps them fired."""
        if rules is not self._rules:
            self._rebuild(rules)
        found = []
        while self._heap and self._heap[0][0] <= now:
            _, since, name, kind, key = heapq.heappop(self._heap)
            timer = self._by_object.get((kind, key), {}).get(name)
            if timer is None or timer.fired or timer.since != since:
                continue  # cancelled, or timed again since this entry was pushed
            rule = rules.get(name)
            if rule is None:  # a rule newer than ``rules``: the next check has it
                self._push(timer, now + 1.0)
                continue
            fired = replace(timer, fired=True)
            self._by_object[(kind, key)][name] = fired
            found.append((fired, rule))
        self._count(-len(found))
        return found

    def fired(self, timers: list[Timer]) -> None:
        """What these timers told is submitted: keep them fired in the store."""
        for timer in timers:
            current = self._by_object.get(timer.object_id, {}).get(timer.rule)
            if current is not None and current.fired:
                self._store.save(current)

    def next_due(self, rules: Mapping[str, CompiledRule]) -> float | None:
        if rules is not self._rules:
            self._rebuild(rules)
        return self._heap[0][0] if self._heap else None

    def pending(self) -> list[Timer]:
        return [t for timers in self._by_object.values() for t in timers.values() if not t.fired]

    def __len__(self) -> int:
        return sum(len(timers) for timers in self._by_object.values())

    def _rebuild(self, rules: Mapping[str, CompiledRule]) -> None:
        """A new ruleset: drop the timers it no longer has a use for, time the rest anew."""
        self._rules, self._heap = rules, []
        for object_id, timers in list(self._by_object.items()):
            for name, timer in list(timers.items()):
                rule = rules.get(name)
                if rule is None or not timer.holds_for_rule(rule):
                    log.info(
                        "timer of rule %r for %s dropped: the rule changed", name, object_id[1]
                    )
                    del timers[name]
                    self._store.drop(timer)
                    self._count(-(not timer.fired))
                    continue
                timers[name] = replace(timer, wanted=rule.to)
                if not timer.fired and rule.hold_for is not None:
                    self._push(timer, timer.since + rule.hold_for)
            if not timers:
                del self._by_object[object_id]

    def _push(self, timer: Timer, due_at: float) -> None:
        kind, key = timer.object_id
        heapq.heappush(self._heap, (due_at, timer.since, timer.rule, kind, key))

    def _count(self, change: int) -> None:
        self._pending += change
        PENDING_TIMERS.set(self._pending)
