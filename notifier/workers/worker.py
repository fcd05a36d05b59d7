"""Worker threads: pop keys, compare cache with known state, hand transitions on.

One pass per key: read the current object from the cache and the last
state this process acted on, derive the transitions, give them to the
``TransitionSink`` (rules and delivery), then tell the queue how it went.
A worker takes the keys waiting (up to ``BATCH``, leaving idle workers their
share) and works them in turn; what they acted on is known and saved as one
write before the queue hears they are done.
Passes take turns (one worker's batch at a time): they are Python code under
one GIL and do no I/O (a batch's notifications are committed after it), so
four at once were never faster than one; and each pass takes a handful of
locks (the intake's, the rules' time, counters, the decision log), so a
worker the GIL preempted while holding one made the others queue behind it,
key after key: in about half the starts the initial list's workers spent
0.45-0.65 CPU s in such convoys (10,000-15,000 context switches) instead of
0.25 (docs/benchmarks.md, "Start-up, fourth round"). Taking the queue's keys
and committing a batch's notifications stay outside the turn.
A failing sink makes the key come back later (rate-limited); the known
state is only advanced after success, so the retry recomputes the same
transitions plus whatever changed meanwhile.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Protocol

from notifier.objects import Kind, KubeObject
from notifier.origin import Origin
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.source.store import Store
from notifier.supervision import supervised
from notifier.transitions.detecting import detect, detect_all
from notifier.transitions.model import Transition
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.pending import Pending

log = logging.getLogger("notifier.workers")

# Keys a worker takes at once (fewer when other workers wait): one lock for their hand-out,
# one for their ``done``, one state write for what they acted on. An initial list's keys
# went one at a time, and four workers queued behind each other's locks for each.
BATCH = 64


class CallerCommits(Protocol):
    """The state writer's offer (``BatchWriter.caller_commits``): a worker commits the
    notifications of its pass itself when it has nothing else to do, instead of waking
    the writer's thread for them."""

    def caller_commits(self, more_work: Callable[[], bool]) -> AbstractContextManager[None]: ...


class TransitionSink(Protocol):
    def handle(self, transitions: list[Transition]) -> None:
        """Take transitions of one key, in order. Raise to have the key retried."""
        ...


def new_correlation_id() -> str:
    """Twelve hex digits, for logs and the decision log. Not ``os.urandom``: its system
    call lets go of the GIL, and under the initial list's contention every worker then
    waited for it back (a third of a start's worker CPU, two calls per listed key)."""
    return f"{random.getrandbits(48):012x}"


def transitions_for(
    prev: KubeObject | None,
    current: KubeObject | None,
    pending: Pending,
    *,
    observed_at: float,
    first_start: bool = True,
) -> list[Transition]:
    """Everything that happened to one key between ``prev`` and ``current``.

    An object listed at start with no saved state is quiet (``INITIAL_LIST``)
    only on a ``first_start``; after that it appeared while we were away.
    """
    origin = pending.origin(had_state=prev is not None)

    def between(old: KubeObject | None, new: KubeObject | None, how: Origin) -> list[Transition]:
        if old is new:  # the listed object still cached (most of a start): nothing happened
            return []
        return detect_all(
            old, new, origin=how, observed_at=observed_at, correlation_id=new_correlation_id()
        )

    out: list[Transition] = []
    if pending.listed is not None:
        # The state the initial list showed splits what changed while we were away
        # (or the first sighting) from what changed live after it.
        quiet = prev is None and first_start
        out += between(prev, pending.listed, Origin.INITIAL_LIST if quiet else Origin.CATCH_UP)
        prev = pending.listed
    if pending.tombstone is not None:
        out += between(prev, pending.tombstone, origin)
        gone = detect(
            pending.tombstone,
            None,
            origin=origin,
            observed_at=observed_at,
            correlation_id=new_correlation_id(),
            final_state_unknown=pending.final_state_unknown,
        )
        out += [gone] if gone else []
        prev = None
    elif current is None and prev is not None:
        # Known before a restart, absent from the list: deleted while we were away.
        gone = detect(
            prev,
            None,
            origin=origin,
            observed_at=observed_at,
            correlation_id=new_correlation_id(),
            final_state_unknown=True,
        )
        return out + ([gone] if gone else [])
    return out + between(prev, current, origin)


class Workers:
    def __init__(
        self,
        *,
        queue: RateLimitingQueue[WorkKey],
        intake: Intake,
        stores: Mapping[Kind, Store],
        known: Known,
        sink: TransitionSink,
        count: int = 4,
        clock: Callable[[], float] = time.time,
        commits: CallerCommits | None = None,
    ) -> None:
        self._queue = queue
        self._intake = intake
        self._stores = stores
        self._known = known
        self._sink = sink
        self._count = count
        self._clock = clock
        self._commits = commits
        self._threads: list[threading.Thread] = []
        self._busy_since: dict[str, float] = {}
        self._turn = threading.Lock()  # held over a batch's passes (see the module docstring)
        self.processed = 0

    def start(self) -> None:
        for index in range(self._count):
            thread = threading.Thread(
                target=supervised(f"worker-{index}", self._loop, family="worker"),
                name=f"worker-{index}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)

    def stop(self, deadline: float) -> bool:
        """Stop intake and let in-flight keys finish within ``deadline`` seconds."""
        drained = self._queue.shutdown_with_drain(deadline)
        for thread in self._threads:
            thread.join(0.5)
        return drained

    @property
    def alive(self) -> bool:
        return bool(self._threads) and all(t.is_alive() for t in self._threads)

    def longest_busy_seconds(self) -> float:
        """How long the slowest worker has been on its current key (for /healthz)."""
        now = time.monotonic()
        return max((now - since for since in list(self._busy_since.values())), default=0.0)

    def _loop(self) -> None:
        name = threading.current_thread().name
        while keys := self._queue.get_batch(BATCH):
            try:
                with self._pass_commits():
                    self._process_all(keys, name)
            finally:
                self._busy_since.pop(name, None)
                self._queue.done_all(keys)

    def _pass_commits(self) -> AbstractContextManager[None]:
        if self._commits is None:
            return nullcontext()
        return self._commits.caller_commits(lambda: len(self._queue) > 0)

    def process(self, key: WorkKey) -> None:
        """One key's pass (the queue's ``get`` and ``done`` are the caller's)."""
        self._process_all([key], threading.current_thread().name)

    def _process_all(self, keys: list[WorkKey], name: str) -> None:
        """The batch's passes, in this worker's turn."""
        with self._turn:
            self._pass_all(keys, name)

    def _pass_all(self, keys: list[WorkKey], name: str) -> None:
        """Each key's pass in turn; what they acted on is known (and saved as one write)
        before any of them is ``done``, so a key queued again meanwhile is compared with it."""
        acted: list[tuple[WorkKey, KubeObject | None]] = []
        taken: list[Pending] = []
        try:
            for key in keys:
                self._busy_since[name] = time.monotonic()
                taken.append(self._intake.take(key))
                self._pass(key, taken[-1], acted)
        finally:
            self._known.set_all(acted)
            for key, _ in acted:
                self._queue.forget(key)
            self._intake.finished(taken)
            for key in keys[len(taken) :]:  # a pass raised: the rest come back
                self._queue.add(key)
            self.processed += len(acted)

    def _pass(
        self, key: WorkKey, pending: Pending, acted: list[tuple[WorkKey, KubeObject | None]]
    ) -> None:
        """Compare, hand the transitions on, and add the object acted on to ``acted`` (not
        when the kind is no longer watched, or the sink failed: the key is retried)."""
        store = self._stores.get(key.kind)
        if store is None:  # a reload stopped watching the kind: nothing to compare with
            self._queue.forget(key)
            return
        current = store.get(key.key)
        prev = self._known.get(key)
        quiet = prev is None and pending.listed is not None and self._known.quiet(key)
        transitions = transitions_for(
            prev, current, pending, observed_at=self._clock(), first_start=quiet
        )
        try:
            if transitions:
                self._sink.handle(transitions)
        except Exception:
            log.exception("handling %s failed; will retry", key)
            self._retry(key, pending)
            return
        acted.append((key, current))

    def _retry(self, key: WorkKey, pending: Pending) -> None:
        # Still "processing" until done(): deltas arriving now mark the key dirty, so a
        # dropped key loses only this pass, never what came in during it.
        if self._queue.add_rate_limited(key):
            self._intake.give_back(key, pending)
