"""Group members waiting for their digest, kept until the digest is in the outbox.

Rows are written by the one writer thread, so a member held before the worker
records its object as acted on is committed no later than that record; a
release is forgotten after its digest was submitted to the outbox, so the
digest's row is committed no later than the forgetting. What stays here after
a crash is exactly what was held and never made it to the outbox.
Transitions are stored as opaque bytes: encoding them is the caller's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter


class HeldRow(NamedTuple):
    token: int
    rule: str
    encoded: bytes
    held_at: float


class HeldMembers:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_held(self) -> list[HeldRow]:
        """Every row, oldest first: meant for the start, before anything new is held."""
        rows = self._reader.rows("SELECT token, rule, transition, held_at FROM held ORDER BY token")
        return [HeldRow(*row) for row in rows]

    def hold(self, row: HeldRow) -> None:
        self._writer.submit(partial(_insert, tuple(row)))

    def forget(self, tokens: Sequence[int]) -> None:
        self._writer.submit(partial(_delete, list(tokens)))


def _insert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    # REPLACE: a token seen again (a restored member held anew) keeps one row.
    conn.execute(
        "INSERT OR REPLACE INTO held (token, rule, transition, held_at) VALUES (?, ?, ?, ?)", row
    )


def _delete(tokens: list[int], conn: sqlite3.Connection) -> None:
    conn.executemany("DELETE FROM held WHERE token = ?", [(token,) for token in tokens])
