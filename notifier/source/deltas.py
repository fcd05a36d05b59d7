"""Deltas: what an informer hands downstream, and the relist diff that produces them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from notifier.objects import EventType, Kind, KubeObject, ObjectKey
from notifier.origin import Origin


@dataclass(frozen=True, slots=True)
class Delta:
    kind: Kind
    key: ObjectKey
    type: EventType
    obj: KubeObject  # the new state; for DELETED the last state known
    origin: Origin
    # A delete found by a relist: we never saw the object's final state, only
    # the last one we had (client-go's DeletedFinalStateUnknown).
    final_state_unknown: bool = False


class DeltaHandler(Protocol):
    def handle(self, deltas: list[Delta]) -> None:
        """Take deltas in order. Called from informer threads; must not block for long."""
        ...


def diff_relist(
    kind: Kind,
    cached: Mapping[ObjectKey, KubeObject],
    listed: Mapping[ObjectKey, KubeObject],
    origin: Origin = Origin.RELIST,
) -> list[Delta]:
    """What changed between the cache and a fresh list.

    New keys are adds; a changed resourceVersion is an update; an unchanged
    one is nothing; a vanished key is a delete carrying the last known state.
    A key whose UID changed was deleted and re-created: a delete and an add.
    The deltas carry the keys of ``listed`` (the cache keeps those of new keys).
    """
    deltas: list[Delta] = []
    for key, old in cached.items():
        new = listed.get(key)
        if new is None or new.metadata.uid != old.metadata.uid:
            deltas.append(Delta(kind, key, EventType.DELETED, old, origin, True))
    for key, new in listed.items():
        before = cached.get(key)
        if before is None or before.metadata.uid != new.metadata.uid:
            deltas.append(Delta(kind, key, EventType.ADDED, new, origin))
        elif before.metadata.resource_version != new.metadata.resource_version:
            deltas.append(Delta(kind, key, EventType.UPDATED, new, origin))
    return deltas
