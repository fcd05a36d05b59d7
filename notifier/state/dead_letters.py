"""Dead letters: notifications given up on, kept for inspection and pruned by age.

Written by ``Outbox.dead_letter`` (which also removes the outbox row in the
same transaction); read here. ``DeadLetterFile`` is the view of another
process (``kube-notifier dead-letters``) on the file the service is using:
it reads dead letters, deletes the ones it resent and records what each
replay did (``state/replays.py``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from notifier.state.reader import Reader
from notifier.state.replays import DETAIL_CHARS, RECORD_REPLAY
from notifier.state.schema import SCHEMA_VERSION

_COLUMNS = "notification_id, sink, ordering_key, reason, detail, attempts, body, dead_at, id"
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
    id: int = 0  # the row's, to remove it once resent


class DeadLetters:
    def __init__(self, reader: Reader) -> None:
        self._reader = reader

    def recent(self, limit: int = 100) -> list[DeadLetter]:
        """Newest first."""
        rows = self._reader.rows(
            f"SELECT {_COLUMNS} FROM dead_letters ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [DeadLetter(*row) for row in rows]

    def count(self) -> int:
        ((count,),) = self._reader.rows("SELECT count(*) FROM dead_letters")
        return int(count)


def prune_dead_letters(conn: sqlite3.Connection, *, older_than: float) -> None:
    conn.execute("DELETE FROM dead_letters WHERE dead_at < ?", (older_than,))


class DeadLetterFileError(Exception):
    """The state file cannot be read for its dead letters; the message says why."""


class DeadLetterFile:
    """The dead letters of a state file that the service may have open at the same time.

    Never creates, migrates or moves the file (the service does that): a
    missing file or another schema version is a ``DeadLetterFileError``.
    """

    def __init__(
        self, path: Path, *, timeout: float = 10.0, clock: Callable[[], float] = time.time
    ) -> None:
        self._clock = clock
        if not path.is_file():
            raise DeadLetterFileError(f"{path}: no such state file")
        try:
            self._conn = sqlite3.connect(
                f"file:{path}?mode=rw", uri=True, timeout=timeout, isolation_level=None
            )
            (version,) = self._conn.execute("PRAGMA user_version").fetchone()
        except sqlite3.Error as err:
            raise DeadLetterFileError(f"{path}: cannot be read: {err}") from None
        if version != SCHEMA_VERSION:
            self._conn.close()
            raise DeadLetterFileError(
                f"{path}: schema version {version}, this kube-notifier reads {SCHEMA_VERSION}"
                " (the service migrates it when it starts)"
            )

    def select(
        self, *, sink: str | None = None, reason: str | None = None, limit: int = 100
    ) -> list[DeadLetter]:
        """Oldest first, optionally only those of ``sink`` / given up for ``reason``."""
        rows = self._conn.execute(
            f"SELECT {_COLUMNS} FROM dead_letters"
            " WHERE (?1 IS NULL OR sink = ?1) AND (?2 IS NULL OR reason = ?2)"
            " ORDER BY id LIMIT ?3",
            (sink, reason, limit),
        ).fetchall()
        return [DeadLetter(*row) for row in rows]

    def resent(self, letter: DeadLetter) -> None:
        """Delivered by a replay: removed, and recorded as delivered now, in one transaction."""
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM dead_letters WHERE id = ?", (letter.id,))
            self._record(letter, delivered=True, detail="")

    def failed_again(self, letter: DeadLetter, why: str) -> None:
        """A replay's send failed: the letter stays, and the failure is recorded."""
        self._record(letter, delivered=False, detail=why)

    def _record(self, letter: DeadLetter, *, delivered: bool, detail: str) -> None:
        row = (letter.notification_id, letter.sink, int(delivered), detail[:DETAIL_CHARS],
               self._clock())  # fmt: skip
        self._conn.execute(RECORD_REPLAY, row)

    def close(self) -> None:
        self._conn.close()
