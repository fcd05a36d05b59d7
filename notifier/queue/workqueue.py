"""WorkQueue: the deduplicating FIFO of keys between informers and workers.

Implements clauses 1-8 of the package contract (see ``notifier.queue``).
Every operation takes one lock, and updates its metrics under it too;
getters sleep on a condition that ``add`` signals only when someone is
actually waiting, and drain waiters sleep on a second condition over the
same lock so a worker's wake-up is never spent on them.

Bookkeeping without extra objects per key: ``_dirty`` maps each key that
needs processing to when it was added (the queue-duration start) and
``_processing`` maps each key held by a worker to when it was handed out
(the work-duration start).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

from notifier.queue.clock import Clock
from notifier.queue.metrics import QueueStats, queue_counts

T = TypeVar("T", bound=Hashable)


class WorkQueue(Generic[T]):
    def __init__(self, name: str, *, clock: Clock = time.monotonic) -> None:
        self._name = name
        self._clock = clock
        self._lock = threading.Lock()
        self._item_ready = threading.Condition(self._lock)
        self._drained = threading.Condition(self._lock)
        self._queue: deque[T] = deque()
        self._dirty: dict[T, float] = {}
        self._processing: dict[T, float] = {}
        self._idle_getters = 0
        self._drain_waiters = 0
        self._shutting_down = False
        self._counts = queue_counts(self, self._lock)  # last: it makes the queue visible

    @property
    def name(self) -> str:
        return self._name

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def __len__(self) -> int:
        """Keys waiting to be handed out (not those being processed)."""
        return len(self._queue)

    def add(self, key: T) -> None:
        with self._lock:
            self._add_locked(key)

    def add_all(self, keys: list[T]) -> None:
        """``add`` each key, under one lock, waking at most one idle getter per key queued
        (a list's thousands of keys cost one lock and a few wake-ups, not one each)."""
        if not keys:  # an informer's event whose key was pending already
            return
        with self._lock:
            before = len(self._queue)
            for key in keys:
                self._add_locked(key, wake=False)
            woken = min(len(self._queue) - before, self._idle_getters)
            if woken:
                self._item_ready.notify(woken)

    def get(self, timeout: float | None = None) -> T | None:
        """The next key, blocking up to ``timeout`` seconds (forever if None).

        None on timeout, or once the queue is shut down and empty.
        """
        with self._lock:
            if not self._queue and not self._wait_for_key_locked(timeout):
                return None
            key = self._queue.popleft()
            handed_out_at = self._clock()
            self._processing[key] = handed_out_at
            self._counts.queue_duration.observe(handed_out_at - self._dirty.pop(key))
            if not self._dirty:
                # An emptied dict keeps its table (MBs after an initial list of 100k keys).
                self._dirty = {}
        return key

    def get_batch(self, limit: int, timeout: float | None = None) -> list[T]:
        """Keys as ``get`` hands them out, several under one lock: blocking as ``get`` for
        the first, then up to ``limit`` in all, leaving each idle getter a share of the
        rest. [] where ``get`` returns None. Each key is ``done`` on its own or by
        ``done_all``."""
        with self._lock:
            if not self._queue and not self._wait_for_key_locked(timeout):
                return []
            share = -(-len(self._queue) // (self._idle_getters + 1))
            handed_out_at = self._clock()
            keys = [self._queue.popleft() for _ in range(max(1, min(limit, share)))]
            for key in keys:
                self._processing[key] = handed_out_at
                self._counts.queue_duration.observe(handed_out_at - self._dirty.pop(key))
            if not self._dirty:
                self._dirty = {}
        return keys

    def done_all(self, keys: list[T]) -> None:
        """``done`` of each key, in order, under one lock."""
        with self._lock:
            for key in keys:
                self._done_locked(key)

    def done(self, key: T) -> None:
        """Close the processing of ``key``; re-queue it if it was added meanwhile."""
        with self._lock:
            self._done_locked(key)

    def _done_locked(self, key: T) -> None:
        started_at = self._processing.pop(key, None)
        if started_at is None:
            raise ValueError(f"done({key!r}) on queue {self._name!r}: not being processed")
        self._counts.work_duration.observe(self._clock() - started_at)
        if key in self._dirty:
            self._enqueue_locked(key)
        elif self._drain_waiters and self._is_drained_locked():
            self._drained.notify_all()

    def shutdown(self) -> None:
        """Stop intake now; getters drain what is queued, then receive None."""
        with self._lock:
            self._begin_shutdown_locked()

    def shutdown_with_drain(self, deadline: float) -> bool:
        """Shut down, then wait up to ``deadline`` seconds for the queue to drain.

        Drained means nothing queued and nothing being processed. Returns
        whether that happened in time; workers must keep calling ``get``.
        """
        give_up_at = time.monotonic() + deadline
        with self._lock:
            self._begin_shutdown_locked()
            self._drain_waiters += 1
            try:
                return self._wait_drained_locked(give_up_at)
            finally:
                self._drain_waiters -= 1

    def stats(self) -> QueueStats:
        with self._lock:
            now = self._clock()
            ages = [now - started_at for started_at in self._processing.values()]
            return QueueStats(
                depth=len(self._queue),
                unfinished_work_seconds=sum(ages),
                longest_running_seconds=max(ages, default=0.0),
            )

    def _add_locked(self, key: T, *, wake: bool = True) -> None:
        if self._shutting_down or key in self._dirty:
            return
        self._dirty[key] = self._clock()
        self._counts.adds += 1
        if key not in self._processing:
            self._enqueue_locked(key, wake=wake)

    def _enqueue_locked(self, key: T, *, wake: bool = True) -> None:
        self._queue.append(key)
        # notify() builds a deque even with no waiter; skip it when nobody sleeps.
        if wake and self._idle_getters:
            self._item_ready.notify()

    def _wait_for_key_locked(self, timeout: float | None) -> bool:
        give_up_at = None if timeout is None else time.monotonic() + timeout
        while not self._queue:
            if self._shutting_down:
                return False
            remaining = None if give_up_at is None else give_up_at - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            self._idle_getters += 1
            try:
                self._item_ready.wait(remaining)
            finally:
                self._idle_getters -= 1
        return True

    def _wait_drained_locked(self, give_up_at: float) -> bool:
        while not self._is_drained_locked():
            remaining = give_up_at - time.monotonic()
            if remaining <= 0:
                return False
            self._drained.wait(remaining)
        return True

    def _is_drained_locked(self) -> bool:
        return not self._queue and not self._processing

    def _begin_shutdown_locked(self) -> None:
        self._shutting_down = True
        self._item_ready.notify_all()
