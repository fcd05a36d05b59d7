"""The outbox: every notification is written here before it is sent.

``add`` assigns the next sequence number and queues the row; once it is
committed, the ``then`` callback receives the sequence number, and only
then may the notification be sent. ``delivered`` deletes the row,
``dead_letter`` moves it to the dead letters. A process killed at any point
leaves undelivered rows behind, and ``pending`` reads them back in
sequence order: delivery is at least once.

Sequence numbers grow within a process and start above every row left
from the last one, so sequence order is submission order.
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import msgspec

from notifier.notifications import Notification, decoded
from notifier.state.dead_letters import INSERT_DEAD_LETTER
from notifier.state.reader import Reader
from notifier.state.text import encoded, storable
from notifier.state.writer import BatchWriter

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a notification is given up on."""

    reason: str
    detail: str
    attempts: int


@dataclass(frozen=True, slots=True)
class PendingPage:
    """Undelivered rows read back, oldest first."""

    items: list[tuple[int, Notification]]
    last_seq: int  # the last row read (undecodable rows included), or ``after``
    exhausted: bool  # no more rows after ``last_seq`` when this was read


class Outbox:
    def __init__(
        self, writer: BatchWriter, reader: Reader, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._writer = writer
        self._reader = reader
        self._clock = clock
        ((last,),) = reader.rows("SELECT coalesce(max(seq), 0) FROM outbox")
        self._seqs = itertools.count(int(last) + 1)
        self._lock = threading.Lock()

    def add(self, notification: Notification, then: Callable[[int], None] | None = None) -> int:
        body = encoded(notification)
        # One lock around numbering and queueing keeps sequence order = commit order.
        with self._lock:
            seq = next(self._seqs)
            row = (seq, notification.sink, body, self._clock())
            self._writer.submit(partial(_insert, row), None if then is None else partial(then, seq))
        return seq

    def delivered(self, seq: int) -> None:
        # Lazy: a crash before it commits sends the notification again (at least once).
        self._writer.submit(partial(_delete, seq), urgent=False)

    def dead_letter(self, seq: int, notification: Notification, failure: Failure) -> None:
        row = (
            notification.id,
            notification.sink,
            storable(notification.ordering_key),
            storable(failure.reason),
            storable(failure.detail),
            failure.attempts,
            encoded(notification),
            self._clock(),
        )
        self._writer.submit(partial(_move_to_dead_letters, seq, row))

    def pending(self, sink: str, *, after: int, limit: int) -> PendingPage:
        """Undelivered notifications of ``sink`` with ``seq > after``, oldest first."""
        rows = self._reader.rows(
            "SELECT seq, body FROM outbox WHERE sink = ? AND seq > ? ORDER BY seq LIMIT ?",
            (sink, after, limit),
        )
        items = [(seq, note) for seq, body in rows if (note := self._decoded(seq, body))]
        last_seq = int(rows[-1][0]) if rows else after
        return PendingPage(items, last_seq, exhausted=len(rows) < limit)

    def count_pending(self, sink: str) -> int:
        ((count,),) = self._reader.rows("SELECT count(*) FROM outbox WHERE sink = ?", (sink,))
        return int(count)

    def pending_by_sink(self) -> dict[str, int]:
        rows = self._reader.rows("SELECT sink, count(*) FROM outbox GROUP BY sink")
        return {sink: int(count) for sink, count in rows}

    def _decoded(self, seq: int, body: bytes) -> Notification | None:
        try:
            return decoded(body)
        except msgspec.DecodeError as err:
            log.error("outbox row %d cannot be decoded (%s): moved to the dead letters", seq, err)
            self._writer.submit(partial(_quarantine, seq, str(err), self._clock()))
            return None


def _insert(row: tuple[int, str, bytes, float], conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO outbox (seq, sink, body, stored_at) VALUES (?, ?, ?, ?)", row)


def _delete(seq: int, conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM outbox WHERE seq = ?", (seq,))


def _move_to_dead_letters(seq: int, row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(INSERT_DEAD_LETTER, row)
    _delete(seq, conn)


def _quarantine(seq: int, detail: str, now: float, conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT INTO dead_letters (notification_id, sink, ordering_key, reason, detail, attempts,"
        " body, dead_at) SELECT '', sink, '', 'undecodable', ?, 0, body, ? FROM outbox"
        " WHERE seq = ?",
        (detail, now, seq),
    )
    _delete(seq, conn)


def expire_outbox(conn: sqlite3.Connection, *, older_than: float, now: float) -> None:
    """Move rows nobody delivered for too long (their sink is gone) to the dead letters."""
    conn.execute(
        "INSERT INTO dead_letters (notification_id, sink, ordering_key, reason, detail, attempts,"
        f" body, dead_at) SELECT {_json_field('id')}, sink, {_json_field('ordering_key')},"
        " 'abandoned', 'undelivered past the outbox retention', 0, body, ?"
        " FROM outbox WHERE stored_at < ?",
        (now, older_than),
    )
    conn.execute("DELETE FROM outbox WHERE stored_at < ?", (older_than,))


def _json_field(name: str) -> str:
    body = "CAST(body AS TEXT)"
    value = f"coalesce(json_extract({body}, '$.{name}'), '')"
    return f"CASE WHEN json_valid({body}) THEN {value} ELSE '' END"
