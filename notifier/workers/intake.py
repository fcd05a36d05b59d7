"""From informer deltas to queued keys (the informers' DeltaHandler)."""

from __future__ import annotations

import threading

from notifier.objects import Kind, ObjectKey
from notifier.origin import Origin
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.source.deltas import Delta
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.pending import Pending


class Intake:
    def __init__(self, queue: RateLimitingQueue[WorkKey], known: Known) -> None:
        self._queue = queue
        self._known = known
        self._pending: dict[WorkKey, Pending] = {}
        self._listed_in_flight = 0  # listed keys taken by a worker and not yet acted on
        self._lock = threading.Lock()

    def handle(self, deltas: list[Delta]) -> None:
        keys: list[WorkKey] = []
        with self._lock:
            for delta in deltas:
                key = WorkKey(delta.kind, delta.key)
                pending = self._pending.get(key)
                if pending is None:
                    pending = self._pending[key] = Pending()
                    keys.append(key)
                pending.add(delta)
        self._queue.add_all(keys)

    def enqueue_vanished(self, kind: Kind, cached: set[ObjectKey]) -> int:
        """Queue what we knew before a restart and is gone now (deleted while down)."""
        vanished = [key for key in self._known.keys(kind) if key.key not in cached]
        with self._lock:
            for key in vanished:
                self._pending.setdefault(key, Pending()).note(Origin.CATCH_UP)
        self._queue.add_all(vanished)
        return len(vanished)

    def initial_list_waiting(self) -> bool:
        """Whether a key the initial list showed still waits for a worker, or is being
        worked (its state not yet known: ``finished``)."""
        with self._lock:
            return self._listed_in_flight > 0 or any(
                pending.listed is not None for pending in self._pending.values()
            )

    def relist_waiting(self) -> bool:
        """Whether a key a relist changed still waits for a worker."""
        with self._lock:
            return any(Origin.RELIST in pending.origins for pending in self._pending.values())

    def take(self, key: WorkKey) -> Pending:
        """What waits for ``key``; a listed one counts as in flight until ``finished``."""
        with self._lock:
            pending = self._pending.pop(key, None) or Pending()
            self._listed_in_flight += pending.listed is not None
            if not self._pending:
                # A dict keeps its table once emptied: the initial list's (MBs at 100k objects)
                # would stay for good. A fresh one lets it go.
                self._pending = {}
            return pending

    def finished(self, taken: list[Pending]) -> None:
        """The passes of these taken pendings are over: what they acted on is known, or
        they were given back for a retry (or dropped)."""
        listed = sum(pending.listed is not None for pending in taken)
        if listed:
            with self._lock:
                self._listed_in_flight -= listed

    def give_back(self, key: WorkKey, pending: Pending) -> None:
        """A failed pass: keep what it had, followed by whatever arrived meanwhile."""
        with self._lock:
            later = self._pending.get(key)
            if later is not None:
                pending.merge(later)
            self._pending[key] = pending
