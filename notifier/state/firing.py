"""The rules' open incidents (``rules/resolving.py``), kept so a restart neither forgets one
nor tells it again.

One row per rule and object: the states it told (JSON text), its start, its worst
state, since when its object is out of trouble (NULL: in trouble), its recovery
window, the sinks its escalation reached (JSON text) and the transition to tell
its end from (opaque bytes: encoding it is the caller's). Written by the one
writer thread (an ended incident's row goes after the transition that ended it).
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import NamedTuple

from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter

_COLUMNS = (
    "rule, kind, key, states, fired_at, worst, recovering_since, recovery, escalated, transition"
)


class FiringRow(NamedTuple):
    rule: str
    kind: str
    key: str
    states: str  # a JSON list of state names
    fired_at: float
    worst: str = ""
    recovering_since: float | None = None
    recovery: float = 0.0
    escalated: str = "[]"  # a JSON list of sink names
    encoded: bytes | None = None  # the transition; None in a row an older release wrote


class FiringRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_rows(self) -> list[FiringRow]:
        rows = self._reader.rows(f"SELECT {_COLUMNS} FROM firing")
        return [FiringRow(*row) for row in rows]

    def upsert(self, row: FiringRow) -> None:
        self._writer.submit(partial(_upsert, tuple(row)))

    def delete(self, rule: str, kind: str, key: str) -> None:
        self._writer.submit(partial(_delete, (rule, kind, key)))


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO firing ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row
    )


def _delete(where: tuple[str, str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM firing WHERE rule = ? AND kind = ? AND key = ?", where)
