"""Stays: how long an object has been in a ``for:`` rule's states, across the blips of one trouble.

A real kubelet's crash loop passes through Running and Ready for about 2 s
between back-offs: the object leaves the rule's states and is back in them
seconds later. A ``for:`` timer that the blip cancels is *remembered* here
(its ``since``) for the rule's recovery window; a timer started again for
the same rule and object within it keeps that ``since``, so ``for:``
measures the time in trouble, not the time since the last blip. Back after
the window, or after the object was deleted, the stay starts anew.

The stays remembered are kept by a ``StayStore`` (the ``stays`` table in the
service), so a restart during a blip goes on with the stay; entries are
forgotten once their window has passed, and at most ``MOST`` are kept (the
oldest go first).

Not thread-safe: ``Timers`` is called under the time keeper's lock.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from notifier.objects import Kind, ObjectKey

StayKey = tuple[str, Kind, ObjectKey]  # the rule's name, the object's kind and key
MOST = 100_000  # stays remembered at once


class StayStore(Protocol):
    def all_stays(self) -> list[tuple[StayKey, float, float]]: ...

    def keep(self, key: StayKey, since: float, until: float) -> None: ...

    def drop(self, key: StayKey) -> None: ...


class NoStayStore:
    """Memory for this process only."""

    def all_stays(self) -> list[tuple[StayKey, float, float]]:
        return []

    def keep(self, key: StayKey, since: float, until: float) -> None:
        return None

    def drop(self, key: StayKey) -> None:
        return None


class Stays:
    def __init__(self, store: StayStore | None = None) -> None:
        self._store = store or NoStayStore()
        self._left: OrderedDict[StayKey, tuple[float, float]] = OrderedDict()  # since, until
        for key, since, until in sorted(self._store.all_stays(), key=lambda row: row[2]):
            self._left[key] = (since, until)

    def left(self, key: StayKey, since: float, at: float, grace: float) -> None:
        """The object left the rule's states ``at``, in them from ``since``: a return within
        ``grace`` seconds goes on from ``since``."""
        if grace <= 0:
            return
        self._left.pop(key, None)
        self._left[key] = (since, at + grace)
        self._store.keep(key, since, at + grace)
        while len(self._left) > MOST:
            oldest, _ = self._left.popitem(last=False)
            self._store.drop(oldest)

    def since(self, key: StayKey, entered: float) -> float:
        """When the stay that the object ``entered`` (again) began: the remembered ``since`` if
        it is back within its grace, else ``entered``."""
        kept = self._left.pop(key, None)
        if kept is None:
            return entered
        self._store.drop(key)
        return entered if entered >= kept[1] else min(kept[0], entered)

    def forget(self, now: float) -> None:
        """Drop the stays whose grace ended by ``now`` (oldest first)."""
        while self._left:
            key, (_, until) = next(iter(self._left.items()))
            if until > now:
                return
            del self._left[key]
            self._store.drop(key)

    def __len__(self) -> int:
        return len(self._left)
