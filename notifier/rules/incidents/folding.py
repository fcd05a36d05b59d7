"""Folding into the owner: one incident for the objects of one owner (``fold_into: owner``).

A rule with ``fold_into: owner`` keeps an incident per object as every rule
does (``rules/incidents/resolving.py``), but tells them as one per *owner*: the
controller the object's owner reference names, as its kind reads it
(``transitions/owners.py``: a ReplicaSet's Pod belongs to its Deployment, a
Job's Pod to its Job). An object with no owner is its own: so a Job and the
Pods it made are one incident, and a Pod of another owner, or of none, is
another.

The first object in trouble tells (``rules/admissions.py`` as always); each
other object of the owner that the rule then matches opens its own incident
silently, *folded* into the owner's (``suppressed{reason="incident"}``),
unless it is worse than every one open (``resolving.escalates``). The
owner's incident ends when the last of its objects' does: the ends before
it are kept here (their states, the sinks their escalations reached) and
told with the last one, once, with the objects it ended for (``FoldedEnd``:
a message says how many, ``rules/facts/folded.py``). Firing and resolution
share the owner's fingerprint. The ends kept are in a ``FoldedEnds`` store
(the ``folded_ends`` table in the service), so a restart neither tells the
owner's end early nor forgets the ends before it; one whose owner has no
incident open any more (its rule removed) is dropped at start.

Thread-safe under the engine's use: ``joins`` and ``ending`` take their own
lock; the resolver takes its own.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Protocol

from notifier.kinds.registry import spec_of
from notifier.rules.facts.notifying import digest_id, fingerprint
from notifier.rules.incidents.resolving import Firing, Resolver, escalates
from notifier.rules.ruleset import CompiledRule
from notifier.transitions.model import Transition
from notifier.transitions.owners import owner_of

OwnerId = tuple[str, str, str]  # namespace, kind, name
ObjectName = tuple[str, str]  # kind, name
EndKey = tuple[str, OwnerId]  # the rule's name, the owner


@dataclass(frozen=True, slots=True)
class FoldedEnd:
    """The ends of an owner's incident so far, merged: told with the last one."""

    firing: Firing  # every state, the worst, the first telling, every sink reached
    objects: tuple[ObjectName, ...]  # the objects whose incidents ended in it


class FoldedEnds(Protocol):
    def all_ended(self) -> list[tuple[EndKey, FoldedEnd]]: ...

    def keep(self, key: EndKey, end: FoldedEnd) -> None: ...

    def drop(self, key: EndKey) -> None: ...


class NoFoldedEnds:
    """Memory for this process only."""

    def all_ended(self) -> list[tuple[EndKey, FoldedEnd]]:
        return []

    def keep(self, key: EndKey, end: FoldedEnd) -> None:
        return None

    def drop(self, key: EndKey) -> None:
        return None


def owner_id(transition: Transition) -> OwnerId:
    """The owner whose incident the object's folds into: its controller, or itself."""
    meta = transition.obj.metadata
    found = owner_of(transition.obj)
    kind, name = found if found is not None else (str(transition.kind), meta.name)
    return (meta.namespace or "", kind, name)


def incident_fingerprint(rule: CompiledRule, transition: Transition) -> str:
    """What pairs a firing with its resolution: one rule and one object, or its owner."""
    if not rule.fold_into_owner:
        return fingerprint(rule.name, transition)
    return digest_id(rule.name, "owner", *owner_id(transition))


class Folding:
    def __init__(self, resolver: Resolver, store: FoldedEnds | None = None) -> None:
        self._resolver = resolver
        self._store = store or NoFoldedEnds()
        self._lock = threading.Lock()
        self._ended: dict[EndKey, FoldedEnd] = {}  # ends told with the last one
        for key, end in self._store.all_ended():
            if self._owner_open(key):
                self._ended[key] = end
            else:
                self._store.drop(key)

    def folds(self, rule: CompiledRule, transition: Transition, now: float) -> str | None:
        """Why ``transition`` is told no more: part of the rule's open incident about the
        object, or about its owner; None: it tells."""
        own = self._resolver.folds(rule.name, transition, rule.to)
        if own is not None:
            return f"incident: {own.worst}"
        owners = self.joins(rule, transition, now)
        return None if owners is None else f"incident: {owners.worst} (with {owners.key})"

    def joins(self, rule: CompiledRule, transition: Transition, now: float) -> Firing | None:
        """The owner's open incident ``transition`` is folded into (its worst object's), its
        own incident opened silently; None: the rule does not fold, none is open, or it is
        worse than all of them (it tells, and opens its own as any telling does)."""
        if not rule.fold_into_owner:
            return None
        open_ = self._others(rule.name, transition)
        if not open_ or all(escalates(f, transition, rule.to) for f in open_):
            return None
        self._resolver.told(rule, transition, now)
        return max(open_, key=_rank)

    def ending(self, rule: CompiledRule, firing: Firing) -> FoldedEnd | None:
        """``firing`` is over: the owner's incident as its end is told, or None while other
        objects of the owner are still in it (this one's end kept for then)."""
        if not rule.fold_into_owner or firing.transition is None:
            return FoldedEnd(firing, ())
        where = (rule.name, owner_id(firing.transition))
        still = self._others(rule.name, firing.transition)
        own = FoldedEnd(firing, (_name_of(firing),))
        with self._lock:
            before = self._ended.pop(where, None)
            merged = own if before is None else _merged(own, before)
            if still:
                self._ended[where] = merged
        if still:
            self._store.keep(where, merged)
            return None
        if before is not None:
            self._store.drop(where)
        return merged

    def objects(self, rule: CompiledRule, transition: Transition) -> tuple[ObjectName, ...]:
        """The objects in the owner's incident as ``transition`` is told: its own, the others
        open, and those whose end is kept for the last one."""
        with self._lock:
            ended = self._ended.get((rule.name, owner_id(transition)))
        others = (_name_of(firing) for firing in self._others(rule.name, transition))
        own = (str(transition.kind), transition.name)
        return tuple(sorted({own, *others, *(ended.objects if ended else ())}))

    def _others(self, rule: str, transition: Transition) -> list[Firing]:
        """The rule's open incidents about the owner's other objects."""
        owner, own = owner_id(transition), (transition.kind, transition.key)
        return [
            firing
            for firing in self._resolver.firings_of(rule)
            if firing.object_id != own
            and firing.transition is not None
            and owner_id(firing.transition) == owner
        ]

    def _owner_open(self, key: EndKey) -> bool:
        """The rule has an incident open about one of the owner's objects."""
        rule, owner = key
        return any(
            firing.transition is not None and owner_id(firing.transition) == owner
            for firing in self._resolver.firings_of(rule)
        )


def _merged(end: FoldedEnd, before: FoldedEnd) -> FoldedEnd:
    """One end for both: every state, the worst, the first telling, every sink reached, every
    object."""
    last, earlier = end.firing, before.firing
    firing = replace(
        last,
        states=last.states | earlier.states,
        worst=max(last, earlier, key=_rank).worst,
        fired_at=min(last.fired_at, earlier.fired_at),
        escalated=tuple(dict.fromkeys((*earlier.escalated, *last.escalated))),
    )
    return FoldedEnd(firing, tuple(sorted({*before.objects, *end.objects})))


def _name_of(firing: Firing) -> ObjectName:
    return (str(firing.kind), firing.key.rpartition("/")[2])


def _rank(firing: Firing) -> tuple[int, int]:
    """How bad the incident's worst state is (``KindSpec.rank``)."""
    if firing.transition is None:
        return (0, 0)
    return spec_of(firing.transition.obj).rank(firing.worst)
