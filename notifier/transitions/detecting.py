"""Detecting: turn two versions of one object into a Transition, or decide nothing happened.

Contract, for the workers:

- ``detect(None, new)`` is ADDED, ``detect(old, None)`` is DELETED, ``detect(old, new)``
  is UPDATED; ``detect(None, None)`` is None.
- An update is None when nothing a user could see changed: an identical
  object (a resync), only ``resourceVersion``, or only fields that
  ``changes.changes_between`` deliberately ignores.
- ``old`` and ``new`` must be the same object: same kind and same UID. A new
  UID under the same key is a delete followed by an add; ``detect_all`` makes
  that split and is what a worker should call. ``detect`` raises TypeError
  for two different kinds (a caller bug, never an odd object).
- Pure and thread-safe: reads its arguments only, never raises on odd
  objects, returns only vocabulary names in states and signals.

States come from ``states.states_of`` on each side. The one exception is an
OOM kill seen only through a restart (a kind's ``edge_states``, see
``notifier.kinds.pod``): it adds OOMKilled to the new states of the
transition in which the restart shows. Signals are edges: Created and
Deleted here, the rest by each kind's ``signals_between`` (docs/transitions.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace

from notifier.kinds.registry import spec_of
from notifier.objects import EventType, KubeObject, key_of, kind_of
from notifier.origin import Origin
from notifier.transitions.changes import changes_between
from notifier.transitions.model import Change, Transition
from notifier.transitions.states import NO_STATES, states_of

CREATED = frozenset({"Created"})
DELETED = frozenset({"Deleted"})


@dataclass(frozen=True, slots=True)
class _Context:
    """Where and when, copied into every Transition built for one call."""

    origin: Origin
    observed_at: float
    correlation_id: str
    final_state_unknown: bool


def detect(
    old: KubeObject | None,
    new: KubeObject | None,
    *,
    origin: Origin,
    observed_at: float,
    correlation_id: str,
    final_state_unknown: bool = False,
) -> Transition | None:
    """The transition from ``old`` to ``new``, or None when there is nothing to tell."""
    context = _Context(origin, observed_at, correlation_id, final_state_unknown)
    if new is None:
        return None if old is None else _deleted(old, context)
    if old is None:
        return _added(new, context)
    if type(old) is not type(new):
        raise TypeError(f"{key_of(new)}: a {kind_of(old)} cannot become a {kind_of(new)}")
    if not _differs_beyond_version(old, new):
        return None
    return _updated(old, new, context)


def detect_all(
    old: KubeObject | None,
    new: KubeObject | None,
    *,
    origin: Origin,
    observed_at: float,
    correlation_id: str,
    final_state_unknown: bool = False,
) -> list[Transition]:
    """Like ``detect``, but an object replaced under the same key is [DELETED, ADDED].

    The delete half carries ``final_state_unknown``: the old object's own
    delete was never seen, so ``old`` is only the last state we knew.
    """
    if old is not None and new is not None and _replaced(old, new):
        return [
            _deleted(old, _Context(origin, observed_at, correlation_id, True)),
            _added(new, _Context(origin, observed_at, correlation_id, final_state_unknown)),
        ]
    found = detect(
        old,
        new,
        origin=origin,
        observed_at=observed_at,
        correlation_id=correlation_id,
        final_state_unknown=final_state_unknown,
    )
    return [] if found is None else [found]


def signals_between(old: KubeObject, new: KubeObject) -> frozenset[str]:
    """The edges of an update: RestartCountIncreased, Scaled, ImageChanged, ..."""
    return frozenset(spec_of(new).signals_between(old, new))


def _replaced(old: KubeObject, new: KubeObject) -> bool:
    return type(old) is not type(new) or old.metadata.uid != new.metadata.uid


def _differs_beyond_version(old: KubeObject, new: KubeObject) -> bool:
    """Cheap first test, all in C: anything but ``resourceVersion`` differs."""
    if old == new:
        return False
    if old.metadata.resource_version == new.metadata.resource_version:
        return True
    same_version = replace(old.metadata, resource_version=new.metadata.resource_version)
    return replace(old, metadata=same_version) != new


def _added(new: KubeObject, context: _Context) -> Transition:
    return _transition(EventType.ADDED, None, new, context, new_states=states_of(new))


def _deleted(old: KubeObject, context: _Context) -> Transition:
    return _transition(EventType.DELETED, old, None, context, old_states=states_of(old))


def _updated(old: KubeObject, new: KubeObject, context: _Context) -> Transition | None:
    changes = changes_between(old, new)
    signals = signals_between(old, new)
    old_states, levels = states_of(old), states_of(new)
    edge = _edge_states(old, new, signals) - levels
    new_states = levels | edge
    if not changes and not signals and old_states == new_states:
        return None
    return _transition(
        EventType.UPDATED,
        old,
        new,
        context,
        changes=changes,
        old_states=old_states,
        new_states=new_states,
        signals=signals,
        edge_states=edge,
    )


def _transition(
    event: EventType,
    old: KubeObject | None,
    new: KubeObject | None,
    context: _Context,
    *,
    changes: tuple[Change, ...] = (),
    old_states: frozenset[str] = NO_STATES,
    new_states: frozenset[str] = NO_STATES,
    signals: frozenset[str] | None = None,
    edge_states: frozenset[str] = NO_STATES,
) -> Transition:
    current = new if new is not None else old
    assert current is not None, "callers pass at least one object"
    if signals is None:
        signals = CREATED if event is EventType.ADDED else DELETED
    return Transition(
        kind=kind_of(current),
        key=key_of(current),
        event=event,
        origin=context.origin,
        old=old,
        new=new,
        changes=changes,
        old_states=old_states,
        new_states=new_states,
        signals=signals,
        edge_states=edge_states,
        observed_at=context.observed_at,
        correlation_id=context.correlation_id,
        final_state_unknown=context.final_state_unknown,
    )


def _edge_states(old: KubeObject, new: KubeObject, signals: frozenset[str]) -> frozenset[str]:
    """States only an edge reveals: an OOM kill already followed by a restart."""
    if not signals:
        return NO_STATES
    edge: frozenset[str] = spec_of(new).edge_states(old, new, signals)
    return edge
