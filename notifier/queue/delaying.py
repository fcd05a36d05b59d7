"""DelayingQueue: a WorkQueue whose keys can be added after a delay.

Implements clause 9 of the package contract (see ``notifier.queue``).
Waiting keys sit in a heap ordered by due time (then by call order). One
timer thread per queue, started on the first delayed add, sleeps until the
earliest due time and moves every due key into the queue; ``add_after``
wakes it when a new key becomes the earliest. Due times are read from the
injected clock; with ``timer_thread=False`` nothing runs by itself and the
owner (a test, usually) calls ``release_due`` after moving its clock.

A key already waiting keeps the earlier of its two due times, so a burst of
retries for one key never piles up heap entries that all fire. The entry a
key leaves behind when it moves earlier stays in the heap and is skipped
when popped, which is cheaper than removing it.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Hashable
from typing import TypeVar

from notifier.queue.clock import Clock
from notifier.queue.workqueue import WorkQueue
from notifier.supervision import supervised

T = TypeVar("T", bound=Hashable)


class DelayingQueue(WorkQueue[T]):
    def __init__(
        self, name: str, *, clock: Clock = time.monotonic, timer_thread: bool = True
    ) -> None:
        super().__init__(name, clock=clock)
        self._waiting: list[tuple[float, int, T]] = []
        self._due_at: dict[T, float] = {}
        self._call_order = itertools.count()
        self._timer_wakeup = threading.Condition(self._lock)
        self._wants_timer = timer_thread
        self._timer: threading.Thread | None = None

    def add_after(self, key: T, delay_seconds: float) -> None:
        """Add ``key`` once ``delay_seconds`` have passed on the queue's clock."""
        if delay_seconds <= 0:
            self.add(key)
            return
        with self._lock:
            if self._shutting_down:
                return
            self._schedule_locked(key, self._clock() + delay_seconds)

    def release_due(self) -> int:
        """Move every key whose due time has come into the queue; how many moved."""
        with self._lock:
            return self._release_due_locked(self._clock())

    def _schedule_locked(self, key: T, due_at: float) -> None:
        scheduled = self._due_at.get(key)
        if scheduled is not None and scheduled <= due_at:
            return
        self._due_at[key] = due_at
        order = next(self._call_order)
        heapq.heappush(self._waiting, (due_at, order, key))
        self._start_timer_locked()
        if self._waiting[0][1] == order:  # the timer sleeps until an older, later due time
            self._timer_wakeup.notify()

    def _release_due_locked(self, now: float) -> int:
        released = 0
        while self._waiting and self._waiting[0][0] <= now:
            due_at, _, key = heapq.heappop(self._waiting)
            if self._due_at.get(key) != due_at:
                continue  # left behind when the key moved to an earlier due time
            del self._due_at[key]
            self._add_locked(key)
            released += 1
        return released

    def _start_timer_locked(self) -> None:
        if self._timer is not None or not self._wants_timer:
            return
        self._timer = threading.Thread(
            target=supervised(f"workqueue-{self._name}-timer", self._run_timer, family="timer"),
            name=f"workqueue-{self._name}-timer",
            daemon=True,
        )
        self._timer.start()

    def _run_timer(self) -> None:
        with self._lock:
            while not self._shutting_down:
                self._release_due_locked(self._clock())
                self._timer_wakeup.wait(self._seconds_to_next_due_locked())

    def _seconds_to_next_due_locked(self) -> float | None:
        if not self._waiting:
            return None
        return max(0.0, self._waiting[0][0] - self._clock())

    def _begin_shutdown_locked(self) -> None:
        super()._begin_shutdown_locked()
        self._waiting.clear()
        self._due_at.clear()
        self._timer_wakeup.notify_all()
