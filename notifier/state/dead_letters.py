"""Dead letters: notifications given up on, kept for inspection and pruned by age.

Written by ``Outbox.dead_letter`` (which also removes the outbox row in the
same transaction); read here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from notifier.state.reader import Reader

INSERT_DEAD_LETTER = (
    "INSERT INTO dead_letters (notification_id, sink, ordering_key, reason, detail, attempts,"
    " body, dead_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True, slots=True)
class DeadLetter:
    notification_id: str
    sink: str
    ordering_key: str
    reason: str
    detail: str
    attempts: int
    body: bytes  # the notification, msgspec JSON
    dead_at: float


class DeadLetters:
    def __init__(self, reader: Reader) -> None:
        self._reader = reader

    def recent(self, limit: int = 100) -> list[DeadLetter]:
        """Newest first."""
        rows = self._reader.rows(
            "SELECT notification_id, sink, ordering_key, reason, detail, attempts, body, dead_at"
            " FROM dead_letters ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [DeadLetter(*row) for row in rows]

    def count(self) -> int:
        ((count,),) = self._reader.rows("SELECT count(*) FROM dead_letters")
        return int(count)


def prune_dead_letters(conn: sqlite3.Connection, *, older_than: float) -> None:
    conn.execute("DELETE FROM dead_letters WHERE dead_at < ?", (older_than,))
