"""``Pacer``: spaces sends per pacing group (a Slack channel, a receiver).

``claim`` lets a send start now and books the next slot ``interval``
later, or says how long until the group is free; it books nothing then,
so a worker that slept asks again and sees holds set meanwhile. ``hold``
keeps the whole group quiet until a time (a ``Retry-After``). Thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Pacer:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._free_at: dict[str, float] = {}
        self._lock = threading.Lock()

    def claim(self, group: str, interval: float) -> float:
        """0 when a send may start now (the slot is taken), else seconds to wait."""
        with self._lock:
            now = self._clock()
            free_at = self._free_at.get(group, now)
            if free_at > now:
                return free_at - now
            self._free_at[group] = now + interval
            return 0.0

    def hold(self, group: str, until: float) -> None:
        with self._lock:
            self._free_at[group] = max(self._free_at.get(group, until), until)
