"""Only the leader hands notifications to delivery; a standby keeps a replay window."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from notifier.leadership import metrics
from notifier.notifications import Notification

Submit = Callable[[Notification], None]


class LeaderGate:
    def __init__(
        self,
        submit: Submit,
        *,
        window: float,
        leading: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._submit = submit
        self._window = window
        self._clock = clock
        self._leading = leading
        self._recent: deque[tuple[float, Notification]] = deque()
        self._lock = threading.Lock()

    def submit(self, notification: Notification) -> None:
        with self._lock:
            if not self._leading:
                self._recent.append((self._clock(), notification))
                self._trim()
                return
        self._submit(notification)

    def _trim(self) -> None:
        horizon = self._clock() - self._window
        while self._recent and self._recent[0][0] < horizon:
            self._recent.popleft()

    def lead(self) -> None:
        """Become leader: send the window (what the old leader may not have sent), then pass on."""
        with self._lock:
            self._trim()
            replay = [n for _, n in self._recent]
            self._recent.clear()
            self._leading = True
        for notification in replay:
            self._submit(notification)
        metrics.REPLAYED.inc(len(replay))

    def stand_by(self) -> None:
        with self._lock:
            self._leading = False
