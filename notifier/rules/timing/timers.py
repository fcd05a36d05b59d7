"""``for:``: a rule that tells only once an object has stayed in one of its states that long.

Prometheus's semantics, read for object states. A transition that matches a
rule with ``for:`` starts a *timer* for that rule and object: it is pending.
It comes due at ``since + for``, and fires if the object is still in one of
the rule's ``to:`` states; leaving all of them first cancels it quietly
(``suppressed{reason="pending_cancelled"}``). Moving from one of the rule's
states to another keeps the timer and its ``since``. A timer that fired stays
(``fired``) until the object leaves, so the object is told once per stay.
A stay is measured across the blips of one trouble: a timer that has not
fired, cancelled by the object leaving, is remembered for the rule's
recovery window (``rules/timing/stays.py``); back in the rule's states within it,
the object's new timer keeps the first ``since`` (a crash loop's 2 s in
Running between back-offs does not restart a ``for: 15m``), and fires at
once if that time has passed.
``since`` is when the object entered the state: by its own timestamp where
its kind keeps one (``KindSpec.entered_at``), else when the worker saw it.
The same timers serve a rule's ``escalate`` steps (``step`` 1, 2, ...) and
its reminders (``REMIND_STEP``, timed again after each), started when the
rule tells (``since``: then) and held while the object stays.

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
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from notifier.objects import EventType, Kind, ObjectKey
from notifier.rules.metrics import PENDING_TIMERS
from notifier.rules.ruleset import CompiledRule
from notifier.rules.timing.stays import StayKey, Stays, StayStore
from notifier.transitions.model import Transition

log = logging.getLogger("notifier.rules")

ObjectId = tuple[Kind, ObjectKey]
FOR_STEP = 0  # a rule's ``for:``; 1, 2, ...: its ``escalate`` steps
REMIND_STEP = -1  # its reminders (``repeat_interval``), one after another


@dataclass(frozen=True, slots=True)
class Timer:
    rule: str
    transition: Transition  # the entering transition's old side, the latest new side
    wanted: frozenset[str]  # the rule's ``to:``: the timer holds while any of them does
    since: float  # when the object entered one of them (``for:``), or was told (the others)
    fired: bool = False
    step: int = FOR_STEP
    told: int = 0  # reminders told so far
    grace: float = 0.0  # ``for:``: the rule's recovery window (how long a blip may last)

    @property
    def object_id(self) -> ObjectId:
        return (self.transition.kind, self.transition.key)

    @property
    def name(self) -> tuple[str, int]:
        return (self.rule, self.step)

    def due_under(self, rule: CompiledRule) -> float | None:
        """When ``rule`` has this timer come due; None: it has no such timer (any more)."""
        if self.step == FOR_STEP:
            return None if rule.hold_for is None else self.since + rule.hold_for
        if self.step == REMIND_STEP:
            every = rule.remind_every
            return None if every is None else self.since + (self.told + 1) * every
        steps = rule.escalate
        return self.since + steps[self.step - 1].after if len(steps) >= self.step else None

    def holds_in(self, transition: Transition, held: bool = False) -> bool:
        """The object is still in its states; ``held``: its rule's incident is open, which
        holds an escalation step or a reminder however the object cycles inside it."""
        if transition.event is EventType.DELETED:
            return False
        return (held and self.step != FOR_STEP) or not self.wanted.isdisjoint(transition.new_states)

    def holds_for_rule(self, rule: CompiledRule) -> bool:
        """Whether ``rule`` (after a reload) still has it and, for ``for:``, names a state the
        object is in (an escalation step or a reminder is held by the rule's incident, which
        the object may be cycling inside: its latest state need not be one of the rule's)."""
        due = self.due_under(rule)
        named = self.step != FOR_STEP or not rule.to.isdisjoint(self.transition.new_states)
        return due is not None and named

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
    def __init__(self, store: TimerStore | None = None, stays: StayStore | None = None) -> None:
        self._store = store or NoTimerStore()
        self._by_object: dict[ObjectId, dict[tuple[str, int], Timer]] = {}
        self._heap: list[tuple[float, float, str, int, Kind, ObjectKey]] = []
        self._rules: Mapping[str, CompiledRule] | None = None
        self._pending = 0  # ``for:`` timers not fired yet
        self._stays = Stays(stays)  # ``for:`` stays cut by a blip, resumed if back in time
        for timer in self._store.all_timers():
            self._by_object.setdefault(timer.object_id, {})[timer.name] = timer
            self._pending += timer.step == FOR_STEP and not timer.fired
        self._count(0)

    def start(
        self, rule: CompiledRule, transition: Transition, since: float, step: int
    ) -> Timer | None:
        """Time ``rule``'s ``step`` for ``transition``'s object, in its states from ``since``
        (for ``for:``, from the stay it is back in after a blip): the timer started.

        None if that timer already runs (or has fired) for the object."""
        entering = replace(transition, changes=(), signals=frozenset())
        grace = rule.noise.recovery_window
        timer = Timer(rule.name, entering, rule.to, since, step=step, grace=grace)
        if timer.name in self._by_object.get(timer.object_id, {}):
            return None
        if step == FOR_STEP:
            timer = replace(timer, since=self._stays.since(_stay(timer), since))
        due = timer.due_under(rule)
        if due is None:
            return None
        self._by_object.setdefault(timer.object_id, {})[timer.name] = timer
        self._push(timer, due)
        self._store.save(timer)
        self._count(step == FOR_STEP)
        return timer

    def observe(self, transition: Transition, held: frozenset[str] = frozenset()) -> list[Timer]:
        """Follow ``transition`` in its object's timers; those it ends, fired or not. ``held``:
        the rules whose incident about the object is open (``Timer.holds_in``)."""
        timers = self._by_object.get((transition.kind, transition.key))
        if not timers:
            return []
        ended, gone = [], transition.event is EventType.DELETED
        for name, timer in list(timers.items()):
            if timer.holds_in(transition, timer.rule in held):
                if not timer.fired:
                    timers[name] = timer.followed(transition)
                    self._store.save(timers[name])
                continue
            del timers[name]
            self._store.drop(timer)
            ended.append(timer)
            if timer.step == FOR_STEP and not timer.fired and not gone:
                self._stays.left(_stay(timer), timer.since, transition.observed_at, timer.grace)
        if not timers:
            del self._by_object[(transition.kind, transition.key)]
        self._count(-sum(t.step == FOR_STEP and not t.fired for t in ended))
        return ended

    def end(self, rule: str, object_id: ObjectId) -> list[Timer]:
        """``rule``'s incident about the object is over: its escalation steps and reminders
        end (returned); its ``for:`` follows the object's states as always."""
        timers = self._by_object.get(object_id, {})
        ended = [t for t in timers.values() if t.rule == rule and t.step != FOR_STEP]
        for timer in ended:
            del timers[timer.name]
            self._store.drop(timer)
        if not timers:
            self._by_object.pop(object_id, None)
        return ended

    def due(
        self, rules: Mapping[str, CompiledRule], now: float
    ) -> list[tuple[Timer, CompiledRule]]:
        """The timers due by ``now`` under ``rules``: marked fired (a reminder: counted and
        timed again), in memory; ``fired`` them once what they told is submitted."""
        if rules is not self._rules:
            self._rebuild(rules)
        self._stays.forget(now)
        found = []
        while self._heap and self._heap[0][0] <= now:
            _, since, name, step, kind, key = heapq.heappop(self._heap)
            timer = self._by_object.get((kind, key), {}).get((name, step))
            if timer is None or timer.fired or timer.since != since:
                continue  # cancelled, or timed again since this entry was pushed
            rule = rules.get(name)
            if rule is None:  # a rule newer than ``rules``: the next check has it
                self._push(timer, now + 1.0)
                continue
            found.append((self._fire(timer, rule, now), rule))
        self._count(-sum(timer.step == FOR_STEP for timer, _ in found))
        return found

    def fired(self, timers: list[Timer]) -> None:
        """What these timers told is submitted: keep them so in the store."""
        for timer in timers:
            current = self._by_object.get(timer.object_id, {}).get(timer.name)
            if current is not None:
                self._store.save(current)

    def holds(self, timer: Timer) -> bool:
        """``timer`` (or its next state: fired, reminded) is still kept: its object stayed."""
        return timer.name in self._by_object.get(timer.object_id, {})

    def pending(self) -> list[Timer]:
        """The ``for:`` timers not fired yet (frozen values: read them without the lock)."""
        held = self._by_object.values()
        return [t for ts in held for t in ts.values() if t.step == FOR_STEP and not t.fired]

    def next_due(self, rules: Mapping[str, CompiledRule]) -> float | None:
        if rules is not self._rules:
            self._rebuild(rules)
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return sum(len(timers) for timers in self._by_object.values())

    def _fire(self, timer: Timer, rule: CompiledRule, now: float) -> Timer:
        if timer.step == REMIND_STEP:
            every = rule.remind_every or 1.0
            missed = int((now - timer.since) // every)  # after a downtime: one, not each
            again = replace(timer, told=max(timer.told + 1, missed))
            due = again.due_under(rule)
            if due is not None:
                self._push(again, due)
            self._by_object[timer.object_id][timer.name] = again
            return again
        fired = replace(timer, fired=True)
        self._by_object[timer.object_id][timer.name] = fired
        return fired

    def _rebuild(self, rules: Mapping[str, CompiledRule]) -> None:
        """A new ruleset: drop the timers it no longer has a use for, time the rest anew."""
        self._rules, self._heap = rules, []
        for object_id, timers in list(self._by_object.items()):
            for name, timer in list(timers.items()):
                rule = rules.get(timer.rule)
                due = None if rule is None else timer.due_under(rule)
                if rule is None or due is None or not timer.holds_for_rule(rule):
                    log.info(
                        "timer of rule %r for %s dropped: the rule changed", name, object_id[1]
                    )
                    del timers[name]
                    self._store.drop(timer)
                    self._count(-(timer.step == FOR_STEP and not timer.fired))
                    continue
                timers[name] = replace(timer, wanted=rule.to, grace=rule.noise.recovery_window)
                if not timer.fired:
                    self._push(timer, due)
            if not timers:
                del self._by_object[object_id]

    def _push(self, timer: Timer, due_at: float) -> None:
        kind, key = timer.object_id
        heapq.heappush(self._heap, (due_at, timer.since, timer.rule, timer.step, kind, key))

    def _count(self, change: int) -> None:
        self._pending += change
        PENDING_TIMERS.set(self._pending)


def _stay(timer: Timer) -> StayKey:
    return (timer.rule, *timer.object_id)
