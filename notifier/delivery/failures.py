"""``RecentFailures``: the last failed send attempts of every sink, for the page's Delivery view.

Bounded (``KEPT`` attempts, the detail cut to ``DETAIL_CHARS``); written by the
sinks' workers after a failed attempt, read by the HTTP thread. Thread-safe.
``in_words`` says a failure as the page and the replay say it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

KEPT = 200
DETAIL_CHARS = 300


@dataclass(frozen=True, slots=True)
class FailedAttempt:
    at: float  # wall clock
    sink: str
    reason: str
    detail: str
    ordering_key: str
    attempt: int


class RecentFailures:
    def __init__(self, kept: int = KEPT, clock: Callable[[], float] = time.time) -> None:
        self._attempts: deque[FailedAttempt] = deque(maxlen=kept)
        self._lock = threading.Lock()
        self._clock = clock

    def add(self, sink: str, reason: str, detail: str, ordering_key: str, attempt: int) -> None:
        failed = FailedAttempt(self._clock(), sink, reason, detail[:DETAIL_CHARS], ordering_key,
                               attempt)  # fmt: skip
        with self._lock:
            self._attempts.append(failed)

    def recent(self, limit: int) -> list[FailedAttempt]:
        """Newest first."""
        with self._lock:
            attempts = list(self._attempts)
        return attempts[::-1][:limit]


def in_words(reason: str, detail: str) -> str:
    """The reason, then the error it came from when that says more (``max_attempts: http_500``;
    ``http_400`` alone when the error says only that)."""
    if detail.startswith(reason):
        return detail
    return f"{reason}: {detail}" if detail else reason
