"""``BatchWriter``: the one thread that writes the state database.

Writes are queued by any thread without waiting for the disk (``submit``
returns at once) and committed in submission order, as many per
transaction as are waiting: a group commit, so a burst costs one commit,
not one per row. After a batch commits, each write's ``after_commit``
callback runs, in order, on the writer thread; the delivery stage uses it
to hand a notification to a sink only once it is durable.

Because there is one queue, a write is never durable before an earlier
one: whoever records "acted on object X" after submitting X's
notifications knows that if the record survived a crash, so did they.

A write that nothing waits on (``urgent=False``: a delivered notification's
row deleted, the state of an object acted on) does not wake the thread: it
joins the next batch, at most ``_LAZY_SECONDS`` later. Most changes make
no notification, and a wake per change was most of the writer's CPU at a
low rate; commit order is still submission order. While such writes keep
coming, the thread looks for them every ``_LAZY_SECONDS`` by itself, so
their submitters do not wake it even to set its timer.

A thread that submits urgent writes and can commit them itself says so with
``caller_commits`` (the workers, around each key): inside it, its urgent
writes do not wake the writer; on leaving, the thread commits what is
queued (its writes and any others, in order) unless a commit is already
under way, which then takes them, or unless it has more work waiting, when
it wakes the writer instead, so that a burst still commits in batches. At a
low rate that saves the writer's two wake-ups per notification (the wake
and its wait for company); only one thread uses the connection at a time.

A batch that fails is retried one write at a time; a write that still
fails (a database error, or anything else a write raises: the thread must
outlive every write) is logged, counted and dropped, and its callback still
runs (the process goes on without durability rather than stalling). ``flush`` waits
until everything submitted before it is committed.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from notifier.state.metrics import PENDING_WRITES, WRITE_ERRORS
from notifier.supervision import supervised

log = logging.getLogger(__name__)

WriteOp = Callable[[sqlite3.Connection], object]
AfterCommit = Callable[[], None]

_MAX_BATCH = 1000
# A lone write waits this long for company before it commits. A worker submits a
# notification and then the state it acted on, microseconds apart: without the
# wait each got its own commit, and commits were most of the writer's CPU.
_LINGER_SECONDS = 0.001
_LINGER_BELOW = 8
_LAZY_SECONDS = 0.2  # the longest a write that nothing waits on stays uncommitted


@dataclass(frozen=True, slots=True)
class Chore:
    """A write run every ``interval`` seconds (pruning), between batches."""

    interval: float
    op: WriteOp


class BatchWriter:
    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        chores: tuple[Chore, ...] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._conn = conn
        self._chores = chores
        self._clock = clock
        self._chores_due = [clock() + chore.interval for chore in chores]
        self._queue: deque[tuple[WriteOp, AfterCommit | None]] = deque()
        self._submitted = 0
        self._finished = 0
        self._urgent = 0  # queued writes that someone waits on: the thread is woken for them
        self._lazy_due: float | None = None  # when the oldest queued lazy write is due
        # While lazy writes keep coming, the thread looks again this soon after a batch
        # that had some, so the next one's submitter need not wake it to set a timer.
        self._next_look: float | None = None
        self._wait_ends = math.inf  # when the thread's current wait ends
        self._closing = False
        self._committing = False  # a thread (the writer's or a caller) has the connection
        self._deferring = threading.local()  # inside caller_commits: urgent writes wake nobody
        lock = threading.Lock()
        self._cond = threading.Condition(lock)  # work for the writer's thread
        self._done = threading.Condition(lock)  # writes committed
        self._waits_turn = False  # the writer's thread waits for a caller's commit to end
        self._thread = threading.Thread(
            target=supervised("state-writer", self._run), name="state-writer", daemon=True
        )

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        self._thread.start()

    def submit(
        self, op: WriteOp, after_commit: AfterCommit | None = None, *, urgent: bool = True
    ) -> None:
        """Queue a write; ``urgent=False`` when only durability, not a callback or a
        reader, waits for it: it is committed with the next batch."""
        with self._cond:
            self._queue.append((op, after_commit))
            self._submitted += 1
            if urgent:
                self._urgent += 1
                if not getattr(self._deferring, "on", False):
                    self._cond.notify()
            elif self._lazy_due is None:
                self._lazy_due = self._clock() + _LAZY_SECONDS
                if self._lazy_due < self._wait_ends:
                    self._cond.notify()  # it waits longer than that: it recounts
        PENDING_WRITES.inc()

    @contextmanager
    def caller_commits(self, more_work: Callable[[], bool]) -> Iterator[None]:
        """The calling thread commits the urgent writes it submits inside, on leaving,
        unless ``more_work()`` says it has more to do (then the writer is woken)."""
        self._deferring.on = True
        try:
            yield
        finally:
            self._deferring.on = False
            if more_work():
                self._wake_for_urgent()
            else:
                self._commit_in_caller()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until all writes submitted so far are committed; False on timeout."""
        with self._cond:
            target = self._submitted
            self._urgent += 1  # lazy writes too: the caller waits for them
            self._cond.notify_all()
            return self._done.wait_for(lambda: self._finished >= target, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Commit what is queued (up to ``timeout``), stop the thread, close the connection."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self._conn.close()

    def _run(self) -> None:
        while True:
            batch = self._next_batch()  # with the connection's turn
            try:
                self._run_due_chores()
                if batch:
                    self._write(batch)
                    self._mark_finished(len(batch))
            finally:
                self._end_turn()
            if batch is None:
                return

    def _next_batch(self) -> list[tuple[WriteOp, AfterCommit | None]] | None:
        """The waiting writes; [] when a chore may be due; None once closed and drained.
        Returns with the turn taken (``_end_turn`` gives it back)."""
        with self._cond:
            self._wait_for_work()
            self._committing = True
            linger = self._urgent > 0 and len(self._queue) < _LINGER_BELOW and not self._closing
        if linger:
            time.sleep(_LINGER_SECONDS)
        with self._cond:
            if self._queue:
                return self._take_batch()
            self._urgent = 0
            self._next_look = None  # quiet: wait until a write comes
            return None if self._closing else []

    def _take_batch(self) -> list[tuple[WriteOp, AfterCommit | None]]:
        count = min(len(self._queue), _MAX_BATCH)
        batch = [self._queue.popleft() for _ in range(count)]
        self._urgent = len(self._queue)  # what a full batch left: go on at once
        if self._lazy_due is not None:
            self._next_look = self._clock() + _LAZY_SECONDS
        self._lazy_due = None
        return batch

    def _wait_for_work(self) -> None:
        """Until an urgent write, lazy writes or a chore are due, or the writer closes;
        and until no caller is committing."""
        while self._committing or (not self._urgent and not self._closing):
            self._waits_turn = self._committing
            timeout = None if self._committing else self._seconds_to_wait()
            if timeout is not None and timeout <= 0:
                break
            self._wait_ends = math.inf if timeout is None else self._clock() + timeout
            self._cond.wait(timeout)
        self._waits_turn = False
        self._wait_ends = math.inf

    def _commit_in_caller(self) -> None:
        with self._cond:
            if not self._urgent or self._committing or self._closing:
                return  # nothing waits, or whoever commits now goes on to it
            self._committing = True
            batch = self._take_batch() if self._queue else []
        try:
            if batch:
                self._write(batch)
                self._mark_finished(len(batch))
        finally:
            self._end_turn()

    def _end_turn(self) -> None:
        with self._cond:
            self._committing = False
            if self._urgent or self._waits_turn:
                self._cond.notify_all()  # the writer's thread: what came meanwhile, or its turn

    def _wake_for_urgent(self) -> None:
        with self._cond:
            if self._urgent:
                self._cond.notify_all()

    def _mark_finished(self, count: int) -> None:
        with self._cond:
            self._finished += count
            self._done.notify_all()
        PENDING_WRITES.dec(count)

    def _write(self, batch: list[tuple[WriteOp, AfterCommit | None]]) -> None:
        try:
            self._commit([op for op, _ in batch])
        except Exception as err:
            log.warning(
                "state batch of %d writes failed (%s); retrying one by one", len(batch), err
            )
            for op, _ in batch:
                self._write_alone(op)
        for _, after_commit in batch:
            if after_commit is not None:
                _run_callback(after_commit)

    def _commit(self, ops: list[WriteOp]) -> None:
        self._conn.execute("BEGIN")
        try:
            for op in ops:
                op(self._conn)
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise

    def _write_alone(self, op: WriteOp) -> None:
        try:
            self._commit([op])
        except Exception as err:
            WRITE_ERRORS.inc()
            log.error("state write dropped: %r", err)

    def _run_due_chores(self) -> None:
        now = self._clock()
        for index, chore in enumerate(self._chores):
            if now >= self._chores_due[index]:
                self._chores_due[index] = now + chore.interval
                self._write_alone(chore.op)

    def _seconds_to_wait(self) -> float | None:
        """Until the next chore or the lazy writes' due time; None: no end."""
        lazy = [due for due in (self._lazy_due, self._next_look) if due is not None]
        dues = [*self._chores_due, *lazy]
        return min(dues) - self._clock() if dues else None


def _run_callback(callback: AfterCommit) -> None:
    try:
        callback()
    except Exception:
        log.exception("a callback after a state commit failed")
