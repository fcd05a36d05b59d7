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

A batch that fails is retried one write at a time; a write that still
fails (a database error, or anything else a write raises: the thread must
outlive every write) is logged, counted and dropped, and its callback still
runs (the process goes on without durability rather than stalling). ``flush`` waits
until everything submitted before it is committed.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
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
        self._closing = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(
            target=supervised("state-writer", self._run), name="state-writer", daemon=True
        )

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        self._thread.start()

    def submit(self, op: WriteOp, after_commit: AfterCommit | None = None) -> None:
        with self._cond:
            self._queue.append((op, after_commit))
            self._submitted += 1
            self._cond.notify()
        PENDING_WRITES.inc()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until all writes submitted so far are committed; False on timeout."""
        with self._cond:
            target = self._submitted
            return self._cond.wait_for(lambda: self._finished >= target, timeout)

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
            self._run_due_chores()
            batch = self._next_batch()
            if batch is None:
                return
            if batch:
                self._write(batch)
                self._mark_finished(len(batch))

    def _next_batch(self) -> list[tuple[WriteOp, AfterCommit | None]] | None:
        """The waiting writes; [] when a chore may be due; None once closed and drained."""
        with self._cond:
            if not self._queue and not self._closing:
                self._cond.wait(self._seconds_to_next_chore())
            linger = 0 < len(self._queue) < _LINGER_BELOW and not self._closing
        if linger:
            time.sleep(_LINGER_SECONDS)
        with self._cond:
            if self._queue:
                count = min(len(self._queue), _MAX_BATCH)
                return [self._queue.popleft() for _ in range(count)]
            return None if self._closing else []

    def _mark_finished(self, count: int) -> None:
        with self._cond:
            self._finished += count
            self._cond.notify_all()
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

    def _seconds_to_next_chore(self) -> float | None:
        if not self._chores:
            return None
        return max(0.0, min(self._chores_due) - self._clock())


def _run_callback(callback: AfterCommit) -> None:
    try:
        callback()
    except Exception:
        log.exception("a callback after a state commit failed")
