"""What rules with ``send_resolved`` told and is not over yet, kept so a restart still resolves it.

One row per rule and object; its states as JSON text. Written by the one
writer thread (a resolution's row goes after the transition that ended it).
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import NamedTuple

from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter


class FiringRow(NamedTuple):
    rule: str
    kind: str
    key: str
    states: str  # a JSON list of state names
    fired_at: float


class FiringRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_rows(self) -> list[FiringRow]:
        rows = self._reader.rows("SELECT rule, kind, key, states, fired_at FROM firing")
        return [FiringRow(*row) for row in rows]

    def upsert(self, row: FiringRow) -> None:
        self._writer.submit(partial(_upsert, tuple(row)))

    def delete(self, rule: str, kind: str, key: str) -> None:
        self._writer.submit(partial(_delete, (rule, kind, key)))


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO firing (rule, kind, key, states, fired_at) VALUES (?, ?, ?, ?, ?)",
        row,
    )


def _delete(where: tuple[str, str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM firing WHERE rule = ? AND kind = ? AND key = ?", where)
