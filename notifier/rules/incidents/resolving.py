"""Incidents: what a rule told about an object, kept open until the object has recovered.

A rule that tells about an object (a notification sent now or held in a
group, not suppressed) opens an *incident* for that rule and object, when
what it reached holds a state the rule names in ``to:`` (every reached
state for a ``send_resolved`` rule with no ``to:``; a signal alone opens
none). While it is open, the rule's further matches for the object are
*folded* into it (``folds``): nothing is sent, unless the change is worse
than anything the incident told (``escalates``: a critical state after a
warning). The incident keeps every state it saw and its worst one
(``OOMKilled`` stays after a later ``CrashLoopBackOff``).

It stays open while the object is *in trouble*: in a state it told, a
state the rule names, or a state its kind keeps unsettled (a Deployment
still rolling out: ``KindSpec.unsettled``). Once out of them (``follow``)
the object is *recovering*; back in one, trouble again, and the incident
goes on. Recovering for the rule's recovery window (``settled``, asked by
the clock), or deleted, the incident ends: a ``send_resolved`` rule tells
one resolution, and the next trouble opens a new incident. A recovery
window of 0 ends it at the first recovered transition.

Pure: the memory is kept by a ``Firings`` store (the ``firing`` table in the
service), so a restart neither forgets an incident nor tells it again.
Thread-safe: workers call in for different objects at once; one object's
transitions come one at a time; the clock settles under the same lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from notifier.kinds.registry import spec_of
from notifier.objects import EventType, Kind, ObjectKey
from notifier.rules.ruleset import CompiledRule
from notifier.transitions.model import Transition

ObjectId = tuple[Kind, ObjectKey]


@dataclass(frozen=True, slots=True)
class Firing:
    """One rule's open incident about one object."""

    rule: str
    kind: Kind
    key: ObjectKey
    states: frozenset[str]  # the states it told or folded in
    fired_at: float  # when it was first told: the incident's start
    worst: str = ""  # the worst of ``states`` (the kind's severity order)
    recovering_since: float | None = None  # out of trouble since; None: in trouble
    recovery: float = 0.0  # the rule's recovery window, seconds
    transition: Transition | None = None  # the object's latest, to tell its end from
    escalated: tuple[str, ...] = ()  # sinks its escalation steps reached

    @property
    def object_id(self) -> ObjectId:
        return (self.kind, self.key)

    @property
    def due_at(self) -> float | None:
        """When it ends if the object stays recovered; None while in trouble."""
        since = self.recovering_since
        return None if since is None else since + self.recovery


class Firings(Protocol):
    def all_firing(self) -> list[Firing]: ...

    def fire(self, firing: Firing) -> None: ...

    def resolve(self, firing: Firing) -> None: ...


class NoFirings:
    """Memory for this process only."""

    def all_firing(self) -> list[Firing]:
        return []

    def fire(self, firing: Firing) -> None:
        return None

    def resolve(self, firing: Firing) -> None:
        return None


Watched = Callable[[str], frozenset[str]]  # a rule's name -> the states it names in ``to:``


class Resolver:
    def __init__(self, store: Firings | None = None) -> None:
        self._store = store or NoFirings()
        self._lock = threading.Lock()
        self._open: dict[ObjectId, dict[str, Firing]] = {}
        for firing in self._store.all_firing():
            self._open.setdefault(firing.object_id, {})[firing.rule] = firing

    def told(self, rule: CompiledRule, transition: Transition, now: float) -> None:
        """``rule`` tells about ``transition`` (sent now or held in a group): its incident about
        the object opens, or grows, when the rule names states in ``to:`` or resolves."""
        if rule.to or rule.send_resolved:
            self.fired(rule.name, transition, now, rule.to, rule.noise.recovery_window)

    def fired(
        self,
        rule: str,
        transition: Transition,
        now: float,
        wanted: frozenset[str] = frozenset(),
        recovery: float = 0.0,
    ) -> None:
        """``rule`` (matching ``wanted`` in ``to:``, or anything) told about ``transition``:
        open its incident, or add to the one open (an escalation)."""
        states = told_states(transition, wanted)
        if not states or transition.event is EventType.DELETED:
            return
        with self._lock:
            open_ = self._open.setdefault(_object_of(transition), {})
            earlier = open_.get(rule)
            firing = (
                Firing(rule, transition.kind, transition.key, frozenset(), now, recovery=recovery)
                if earlier is None
                else earlier
            )
            firing = _with(replace(firing, recovery=recovery, transition=transition), states)
            open_[rule] = firing
        self._store.fire(firing)

    def open_rules(self, transition: Transition) -> frozenset[str]:
        """The rules with an incident open about ``transition``'s object."""
        with self._lock:
            return frozenset(self._open.get(_object_of(transition), {}))

    def firings_of(self, rule: str) -> list[Firing]:
        """``rule``'s open incidents, about every object (frozen values)."""
        with self._lock:
            return [firing for open_ in self._open.values() if (firing := open_.get(rule))]

    def folds(self, rule: str, transition: Transition, wanted: frozenset[str]) -> Firing | None:
        """``transition``, matched by ``rule`` (``to:`` ``wanted``), is part of the rule's open
        incident and no worse than it (``escalates``): kept in it, and returned."""
        states = told_states(transition, wanted)
        with self._lock:
            open_ = self._open.get(_object_of(transition), {})
            firing = open_.get(rule)
            if firing is None or escalates(firing, transition, wanted):
                return None
            if states <= firing.states:
                return firing
            firing = open_[rule] = _with(firing, states)
        self._store.fire(firing)
        return firing

    def follow(
        self,
        transition: Transition,
        watched: Watched,
        escalated: dict[str, tuple[str, ...]] | None = None,
    ) -> list[Firing]:
        """Follow the object's incidents through ``transition``: those it ends (deleted, or
        recovered with no recovery window), forgotten as they are returned."""
        where = _object_of(transition)
        with self._lock:
            open_ = self._open.get(where)
            if not open_:
                return []
            changed, over = [], []
            for rule, kept in list(open_.items()):
                firing = _escalated(kept, (escalated or {}).get(rule, ()))
                followed = _followed(firing, transition, watched(rule))
                if followed is None or (followed.due_at is not None and followed.recovery <= 0):
                    over.append(_ending(firing, transition, followed))
                    del open_[rule]
                    continue
                if _kept_differently(kept, followed):
                    changed.append(followed)
                open_[rule] = followed
            if not open_:
                del self._open[where]
        for firing in changed:
            self._store.fire(firing)
        for firing in over:
            self._store.resolve(firing)
        return over

    def settled(self, now: float) -> list[Firing]:
        """Incidents whose object stayed recovered for their window: over, forgotten."""
        with self._lock:
            over = [
                firing
                for open_ in self._open.values()
                for firing in open_.values()
                if (due := firing.due_at) is not None and due <= now
            ]
            for firing in over:
                open_ = self._open[firing.object_id]
                del open_[firing.rule]
                if not open_:
                    del self._open[firing.object_id]
        for firing in over:
            self._store.resolve(firing)
        return over

    def next_due(self) -> float | None:
        with self._lock:
            dues = [f.due_at for fs in self._open.values() for f in fs.values()]
        return min((due for due in dues if due is not None), default=None)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(rules) for rules in self._open.values())


def told_states(transition: Transition, wanted: frozenset[str]) -> frozenset[str]:
    """The states a notification about ``transition`` tells, of those a rule wants."""
    states = frozenset(transition.reached & transition.new_states)
    return states & wanted if wanted else states


def escalates(firing: Firing, transition: Transition, wanted: frozenset[str]) -> bool:
    """``transition`` reaches a state of a worse severity than its incident told."""
    spec = spec_of(transition.obj)
    told = spec.rank(firing.worst)[0]
    return any(spec.rank(state)[0] > told for state in told_states(transition, wanted))


def _with(firing: Firing, states: frozenset[str]) -> Firing:
    every = firing.states | states
    spec = spec_of(firing.transition.obj) if firing.transition is not None else None
    worst = firing.worst
    for state in sorted(states):
        if not worst or (spec is not None and spec.rank(state) > spec.rank(worst)):
            worst = state
    return replace(firing, states=every, worst=worst)


def _escalated(firing: Firing, sinks: tuple[str, ...]) -> Firing:
    return replace(firing, escalated=tuple(dict.fromkeys((*firing.escalated, *sinks))))


def _ending(firing: Firing, transition: Transition, followed: Firing | None) -> Firing:
    """``firing`` as its end is told: from ``transition``, unless it was over before it (the
    window ran out and no clock said so yet: told as it was)."""
    late = followed is None and transition.event is not EventType.DELETED
    return firing if late else replace(firing, transition=transition)


def _followed(firing: Firing, transition: Transition, watched: frozenset[str]) -> Firing | None:
    """``firing`` after ``transition``; None: it is over (the object is gone, or stayed
    recovered for the window)."""
    if transition.event is EventType.DELETED:
        return None
    due = firing.due_at
    if due is not None and due <= transition.observed_at:
        return None  # over before this change: the clock has not said so yet
    if _in_trouble(firing, transition, watched):
        return replace(firing, recovering_since=None, transition=transition)
    since = firing.recovering_since
    if since is None:
        since = transition.observed_at
    return replace(firing, recovering_since=since, transition=transition)


def _in_trouble(firing: Firing, transition: Transition, watched: frozenset[str]) -> bool:
    """In a state of the incident, of the rule, or one its kind keeps unsettled, as the object's
    levels read: a state only the edge told (an OOM kill seen through the restart after it) is
    news, told or folded, but the container runs again."""
    unsettled = spec_of(transition.obj).unsettled
    trouble = firing.states | watched | frozenset(unsettled)
    return not trouble.isdisjoint(transition.levels)


def _kept_differently(before: Firing, after: Firing) -> bool:
    """What the store keeps changed: the object began or ended recovering, or escalated."""
    return (before.recovering_since, before.escalated) != (
        after.recovering_since,
        after.escalated,
    )


def _object_of(transition: Transition) -> ObjectId:
    return (transition.kind, transition.key)
