"""What accumulated for one key while it waited in the queue.

The queue keeps keys, not events, so ten updates cost one pass. A few facts
must survive that collapsing, and they are kept here: the origins seen
(live, relist, initial list, resync), the final state of a deleted object
(the cache no longer has it) and the object as the initial list showed it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from notifier.objects import EventType, KubeObject
from notifier.origin import Origin
from notifier.source.deltas import Delta

# Strongest first: a live change outranks a relist's, and both outrank a replay.
_PRECEDENCE = (Origin.LIVE, Origin.RELIST, Origin.CATCH_UP, Origin.INITIAL_LIST, Origin.RESYNC)


@functools.cache
def _joined(origins: frozenset[Origin], more: frozenset[Origin]) -> frozenset[Origin]:
    # One instance per combination of the five origins, shared by every Pending:
    # an initial list queues one Pending per object (a set of its own was 200 bytes each).
    return origins | more


@dataclass(slots=True)
class Pending:
    origins: frozenset[Origin] = frozenset()
    tombstone: KubeObject | None = None  # a deleted object's last state
    final_state_unknown: bool = False
    listed: KubeObject | None = None  # the object as the initial list showed it

    def note(self, origin: Origin) -> None:
        """``origin`` was seen for this key."""
        if origin not in self.origins:
            self.origins = _joined(self.origins, frozenset((origin,)))

    def add(self, delta: Delta) -> None:
        self.note(delta.origin)
        if delta.type is EventType.DELETED:
            self.tombstone = delta.obj
            self.final_state_unknown = delta.final_state_unknown
        elif delta.origin is Origin.INITIAL_LIST and self.listed is None:
            self.listed = delta.obj

    def merge(self, later: Pending) -> None:
        """Fold ``later`` (what arrived while this one was being processed) into this one."""
        self.origins = _joined(self.origins, later.origins)
        if later.tombstone is not None:
            self.tombstone = later.tombstone
            self.final_state_unknown = later.final_state_unknown
        self.listed = self.listed or later.listed

    def origin(self, *, had_state: bool) -> Origin:
        """The origin the transitions are marked with.

        An initial-list sighting of an object we knew before a restart is a
        catch-up: it changed while we were away.
        """
        best = next((o for o in _PRECEDENCE if o in self.origins), Origin.LIVE)
        if best is Origin.INITIAL_LIST and had_state:
            return Origin.CATCH_UP
        return best
