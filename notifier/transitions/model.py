"""What a worker hands to the rules: one observed change of one object.

Glossary (docs/architecture.md): a *transition* is the difference between
the last state of an object this process acted on and its current state in
the cache. It carries the event type, where it came from (``Origin``), the
fields that changed and the derived *states* before and after, so that
rules can match ``from: Running`` / ``to: CrashLoopBackOff`` without
reading objects themselves. *States* are levels that hold for a while
(``Running``, ``NotReady``, ``Stuck``); *signals* are edges that only exist
in the transition (``RestartCountIncreased``, ``Scaled``, ``ImageChanged``).
Each kind lists its names (``notifier.kinds``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from notifier.kinds.diffing import Change
from notifier.objects import EventType, Kind, KubeObject, ObjectKey
from notifier.origin import Origin

__all__ = ["Change", "Origin", "Transition"]


@dataclass(frozen=True, slots=True)
class Transition:
    kind: Kind
    key: ObjectKey
    event: EventType
    origin: Origin
    old: KubeObject | None  # None for ADDED
    new: KubeObject | None  # None for DELETED
    changes: tuple[Change, ...] = ()
    old_states: frozenset[str] = frozenset()
    new_states: frozenset[str] = frozenset()
    signals: frozenset[str] = frozenset()  # edge-only happenings: Scaled, ImageChanged, ...
    # States of ``new_states`` that only this transition's edge tells, not the object's levels
    # (an OOM kill seen through the restart after it): news, yet the object is not in them.
    edge_states: frozenset[str] = frozenset()
    observed_at: float = 0.0  # time.time() when the worker produced it
    correlation_id: str = ""
    final_state_unknown: bool = False  # a delete found by relist: ``old`` is the last state we knew
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def obj(self) -> KubeObject:
        """The most recent state known: ``new``, or ``old`` for a delete."""
        current = self.new if self.new is not None else self.old
        assert current is not None, "a transition always carries an object"
        return current

    @property
    def namespace(self) -> str:
        return self.obj.metadata.namespace

    @property
    def name(self) -> str:
        return self.obj.metadata.name

    @property
    def entered(self) -> frozenset[str]:
        """States that hold now and did not before."""
        return self.new_states - self.old_states

    @property
    def levels(self) -> frozenset[str]:
        """The states the object is in now: ``new_states`` but those only an edge tells."""
        return self.new_states - self.edge_states

    @property
    def reached(self) -> frozenset[str]:
        """What a rule's ``to:`` is matched against: states entered plus signals."""
        return self.entered | self.signals

    @property
    def left(self) -> frozenset[str]:
        """States that held before and no longer do."""
        return self.old_states - self.new_states
