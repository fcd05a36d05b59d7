"""After a list is acted on: the start's follow-ups, then memory given back after each relist.

The initial list: once every informer is synced, what we knew before a
restart and is gone now is queued as catch-up deletes and the cache is frozen
out of the cyclic GC's reach, and the GC, paused since start
(``heap.py``), resumes; once the workers have acted on every listed key
(taken it and known what they acted on: its state row is submitted),
the baseline is marked, the rules' ``for:`` timers may fire (what left its
state while we were away has cancelled its timer) and, with the state writes committed, the start's
freed memory is given back (``heap.py``).

Each relist after a 410 decodes the whole list again, page by page; the pages
are freed, but the allocator keeps what they took: the hour-long soak showed
a permanent step of 2 to 9 MiB after each relist. So the same give-back
follows every relist, once it is acted on (its deltas taken by the workers,
their state writes committed) and the relists have settled: a 410 ends every
watch at once and each kind relists in turn, so the relists that come within
``quiet_seconds`` of each other share one give-back. Never more than one per
relist, and never on the per-event path: the reflector only sets an event.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from notifier.heap import give_back_freed_memory, resume_collection
from notifier.kinds.sharing import freeze_heap
from notifier.objects import Kind
from notifier.source.store import Store
from notifier.supervision import supervised
from notifier.workers.intake import Intake
from notifier.workers.known import Known, scope_name

log = logging.getLogger("notifier.service")

POLL_SECONDS = 0.2  # how often a drain is checked (a few checks per list, not per event)
QUIET_SECONDS = 5.0  # relists this close together share one give-back
WRITES_SECONDS = 120.0  # the most a list's state writes are waited for
COLLECTION_PAUSED_SECONDS = 60.0  # the most the cyclic GC waits for the first lists


@dataclass(frozen=True)
class Settings:
    poll_seconds: float = POLL_SECONDS
    quiet_seconds: float = QUIET_SECONDS
    writes_seconds: float = WRITES_SECONDS
    collection_paused_seconds: float = COLLECTION_PAUSED_SECONDS


class Listing(Protocol):
    """What is read of an informer here."""

    @property
    def kind(self) -> Kind: ...

    @property
    def store(self) -> Store: ...

    @property
    def synced(self) -> bool: ...

    @property
    def stopped(self) -> bool: ...

    @property
    def namespaces(self) -> list[str | None]: ...


class Settling:
    """The after-sync thread's body (``run``) and the reflectors' relist hook (``relisted``)."""

    def __init__(
        self,
        *,
        intake: Intake,
        known: Known,
        commit: Callable[[float], bool],
        stop: threading.Event,
        settings: Settings | None = None,
        give_back: Callable[[], bool] = give_back_freed_memory,
        caught_up: Callable[[], None] = lambda: None,
        resume_collection: Callable[[], None] = resume_collection,
    ) -> None:
        self._intake, self._known, self._commit = intake, known, commit
        self._caught_up = caught_up
        self._stop, self._give_back = stop, give_back
        self._resume_collection = resume_collection
        self._settings = settings or Settings()
        self._relisted = threading.Event()
        self.given_back = 0  # how many times memory was given back (the start's included)

    def relisted(self) -> None:
        """A reflector handed on a relist's deltas (called from its thread, once per relist)."""
        self._relisted.set()

    def wake(self) -> None:
        """Let ``run`` see ``stop`` at once (at shutdown) instead of at its next poll."""
        self._relisted.set()

    def run(self, informers: Sequence[Listing]) -> None:
        if not self._after_initial_list(informers):
            return
        while self._next_relist() and self._settled():
            if not self._until(lambda: not self._intake.relist_waiting()):
                return
            self._commit(self._settings.writes_seconds)
            self._give_back_now("a relist")

    def _after_initial_list(self, informers: Sequence[Listing]) -> bool:
        if not self._until_listed(informers):
            return False
        for informer in informers:
            gone = self._intake.enqueue_vanished(informer.kind, set(informer.store.snapshot()))
            if gone:
                log.info("%d %s objects were deleted while we were away", gone, informer.kind.value)
        freeze_heap()  # the cache is long-lived: keep the cyclic GC from rescanning it
        self._resume_collection()
        if not self._until(lambda: not self._intake.initial_list_waiting()):
            return False
        # From now on, a start with this file is not a first one for these scopes.
        self._known.mark_baseline(_scopes(informers))
        self._caught_up()  # what changed meanwhile is acted on: ``for:`` timers may fire
        # Said once the baseline and the saved states are committed: a SIGKILL after the line
        # leaves a file whose next start catches up (before, the line came first, and a kill
        # right after it could leave no baseline: the next start then kept everything quiet).
        committed = self._commit(self._settings.writes_seconds)
        log.info(
            "initial list acted on: what changes while the service is stopped is caught up%s",
            "" if committed else " (its state writes are not committed yet)",
        )
        log.info(
            "informers synced: %s", ", ".join(f"{i.kind.value}={len(i.store)}" for i in informers)
        )
        # The start's peak is over once its writes are committed: give back what it freed.
        self._give_back_now("the initial list")
        return True

    def _until_listed(self, informers: Sequence[Listing]) -> bool:
        """Until every informer is synced; False once stopping. The cyclic GC resumes first
        if that takes longer than ``collection_paused_seconds``, or if stopping."""

        def listed() -> bool:
            return all(i.synced for i in informers)

        overdue = time.monotonic() + self._settings.collection_paused_seconds
        if self._until(lambda: listed() or time.monotonic() > overdue) and listed():
            return True
        self._resume_collection()
        return self._until(listed)

    def settle_started(self, informers: Sequence[Listing]) -> None:
        """Informers a reload started: once their first lists are acted on, baseline them."""
        body = supervised("after-sync-reload", self._baseline_started)
        thread = threading.Thread(target=body, args=(informers,), name="after-sync-reload")
        thread.daemon = True
        thread.start()

    def _baseline_started(self, informers: Sequence[Listing]) -> None:
        listed = self._until(
            lambda: all(i.synced for i in informers) or any(i.stopped for i in informers)
        )
        if not listed or any(i.stopped for i in informers):
            return  # stopping, or a later reload stopped one of them again
        if self._until(lambda: not self._intake.initial_list_waiting()):
            self._known.mark_baseline(_scopes(informers))
            log.info("first list acted on: %s", ", ".join(i.kind.value for i in informers))

    def _next_relist(self) -> bool:
        """Wait (without polling) for a relist; False once stopping."""
        self._relisted.wait()
        return not self._stop.is_set()

    def _settled(self) -> bool:
        """Wait until no relist came for ``quiet_seconds``; False once stopping."""
        while self._relisted.is_set():
            self._relisted.clear()
            if self._stop.wait(self._settings.quiet_seconds):
                return False
        return True

    def _until(self, done: Callable[[], bool]) -> bool:
        """Wait for ``done``; False once stopping."""
        while not done():
            if self._stop.wait(self._settings.poll_seconds):
                return False
        return True

    def _give_back_now(self, after: str) -> None:
        self.given_back += 1
        if self._give_back():
            log.debug("freed memory given back after %s", after)


def _scopes(informers: Sequence[Listing]) -> list[str]:
    return [scope_name(i.kind, namespace) for i in informers for namespace in i.namespaces]
