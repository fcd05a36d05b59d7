"""What the last replay did with each dead letter it sent: delivered it, or failed again.

Written by the replay (``delivery/replay.py``, through ``DeadLetterFile``),
which may run in another process (``kube-notifier dead-letters replay``) or
from the page, on the state file the service has open; read by the running
service, whose page then says what "told" came to after the dead letter
(``service/page.py``). A letter the replay sent leaves ``dead_letters`` in the
same transaction that records it here, so no reader sees it gone without why.

One row per notification and sink (a later replay replaces it). Pruned by the
writer with the dead letters' retention and to the newest ``KEPT`` rows (as
many as delivery's ledger remembers notifications: an older row is never
asked for), so the table stays bounded however often letters are replayed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from notifier.state.reader import Reader

KEPT = 20_000
DETAIL_CHARS = 300  # of a failure's words, as the page shows them

RECORD_REPLAY = (
    "INSERT OR REPLACE INTO replays (notification_id, sink, delivered, detail, replayed_at)"
    " VALUES (?, ?, ?, ?, ?)"
)


@dataclass(frozen=True, slots=True)
class Replayed:
    delivered: bool  # False: the send failed again, the letter stays
    detail: str  # why it failed ("" once delivered)
    at: float  # wall clock, when it was sent


class Replays:
    def __init__(self, reader: Reader) -> None:
        self._reader = reader

    def latest(self, notification_id: str, sink: str) -> Replayed | None:
        """What the last replay of this notification to ``sink`` did; None: never replayed."""
        rows = self._reader.rows(
            "SELECT delivered, detail, replayed_at FROM replays"
            " WHERE notification_id = ? AND sink = ?",
            (notification_id, sink),
        )
        return Replayed(bool(rows[0][0]), str(rows[0][1]), float(rows[0][2])) if rows else None


def prune_replays(conn: sqlite3.Connection, *, older_than: float, kept: int = KEPT) -> None:
    conn.execute("DELETE FROM replays WHERE replayed_at < ?", (older_than,))
    conn.execute(
        "DELETE FROM replays WHERE rowid IN"
        " (SELECT rowid FROM replays ORDER BY replayed_at DESC LIMIT -1 OFFSET ?)",
        (kept,),
    )
