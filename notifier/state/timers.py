"""Rules' ``for:`` timers, kept so a restart neither resets, loses nor doubles them.

One row per rule and object: when the state was entered, whether it fired,
the rule's states it waits on (JSON text) and the transition to tell (opaque
bytes: encoding it is the caller's). Written by the one writer thread as lazy
writes: each commits no later than the worker's record of the object it
came from, and a fired mark no later than what the firing put in the outbox.
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import NamedTuple

from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter


class TimerRow(NamedTuple):
    rule: str
    kind: str
    key: str
    since: float
    fired: bool
    wanted: str  # a JSON list of state names
    encoded: bytes


class TimerRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_rows(self) -> list[TimerRow]:
        rows = self._reader.rows(
            "SELECT rule, kind, key, since, fired, wanted, transition FROM timers ORDER BY since"
        )
        return [TimerRow(r, k, key, since, bool(f), w, t) for r, k, key, since, f, w, t in rows]

    def upsert(self, row: TimerRow) -> None:
        self._writer.submit(partial(_upsert, tuple(row)), urgent=False)

    def delete(self, rule: str, kind: str, key: str) -> None:
        self._writer.submit(partial(_delete, (rule, kind, key)), urgent=False)


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO timers (rule, kind, key, since, fired, wanted, transition)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        row,
    )


def _delete(where: tuple[str, str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM timers WHERE rule = ? AND kind = ? AND key = ?", where)
