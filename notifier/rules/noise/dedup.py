"""Remembering what was sent recently, so the same thing is not sent twice within a window.

Keys expire on their own deadline; ``prune`` forgets expired keys in
deadline order (a heap), so memory follows the traffic of the last window.
Not thread-safe by itself: ``NoiseControl`` holds the lock.
"""

from __future__ import annotations

import heapq


class DedupMemory:
    def __init__(self) -> None:
        self._until: dict[str, float] = {}
        self._deadlines: list[tuple[float, str]] = []

    def __len__(self) -> int:
        return len(self._until)

    def seen(self, key: str, now: float) -> bool:
        return self._until.get(key, 0.0) > now

    def remember(self, key: str, now: float, window: float) -> None:
        if window <= 0:
            return
        deadline = now + window
        if deadline > self._until.get(key, 0.0):
            self._until[key] = deadline
            heapq.heappush(self._deadlines, (deadline, key))

    def prune(self, now: float) -> None:
        while self._deadlines and self._deadlines[0][0] <= now:
            deadline, key = heapq.heappop(self._deadlines)
            if self._until.get(key) == deadline:  # else it was remembered again, later
                del self._until[key]
