"""``send_resolved``: remember what a rule told about an object, and tell when it is over.

A rule with ``send_resolved: true`` that sent a notification about an object
(rendered, not suppressed by dedup, a mute or a drop) remembers the states
that notification reached and the rule asked for (its ``to:``; every
reached state when it names none). A later transition of that object in which none
of them holds any more, or the object's deletion, resolves it: one
resolution goes to the rule's sinks and the memory is forgotten, so a
resolution is never sent twice nor for something that was not sent.
Notifications reached by signals alone (``RestartCountIncreased``) have
nothing to leave and are not remembered.

Pure: the memory is kept by a ``Firings`` store (SQLite in the service, so
a resolution after a restart is still sent). Thread-safe: workers call in
for different objects at once; one object's transitions come one at a time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from notifier.objects import Kind, ObjectKey
from notifier.transitions.model import EventType, Transition


@dataclass(frozen=True, slots=True)
class Firing:
    rule: str
    kind: Kind
    key: ObjectKey
    states: frozenset[str]
    fired_at: float


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


class Resolver:
    def __init__(self, store: Firings | None = None) -> None:
        self._store = store or NoFirings()
        self._lock = threading.Lock()
        self._open: dict[tuple[Kind, ObjectKey], dict[str, Firing]] = {}
        for firing in self._store.all_firing():
            self._open.setdefault((firing.kind, firing.key), {})[firing.rule] = firing

    def fired(
        self, rule: str, transition: Transition, now: float, wanted: frozenset[str] = frozenset()
    ) -> None:
        """``rule`` (matching ``wanted`` in ``to:``, or anything) told about ``transition``."""
        states = frozenset(transition.reached & transition.new_states)
        if wanted:
            states &= wanted
        if not states or transition.event is EventType.DELETED:
            return
        with self._lock:
            open_ = self._open.setdefault((transition.kind, transition.key), {})
            earlier = open_.get(rule)
            firing = Firing(
                rule,
                transition.kind,
                transition.key,
                states | (earlier.states if earlier else frozenset()),
                earlier.fired_at if earlier else now,
            )
            open_[rule] = firing
        self._store.fire(firing)

    def resolved(self, transition: Transition) -> list[Firing]:
        """The firings ``transition`` ends, forgotten as they are returned."""
        where = (transition.kind, transition.key)
        with self._lock:
            open_ = self._open.get(where)
            if not open_:
                return []
            gone = transition.event is EventType.DELETED
            over = [f for f in open_.values() if gone or f.states.isdisjoint(transition.new_states)]
            for firing in over:
                del open_[firing.rule]
            if not open_:
                del self._open[where]
        for firing in over:
            self._store.resolve(firing)
        return over

    def __len__(self) -> int:
        with self._lock:
            return sum(len(rules) for rules in self._open.values())
