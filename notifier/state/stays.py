"""The ``for:`` stays a blip cut (``rules/timing/stays.py``), kept so a restart during a crash
loop's blip goes on counting from when the object entered the rule's states.

One row per rule and object: when its stay began and until when a return goes
on with it. Written by the one writer thread as lazy writes, as the timers
are; a row whose time is past is deleted when the rules forget it and by the
writer's prune (``prune_stays``), so the table holds no more than the stays
the rules remember (``rules/timing/stays.py``: at most ``MOST``).

``StayRows`` is the table and the rules' ``StayStore`` over it.
"""

from __future__ import annotations

import sqlite3
from functools import partial

from notifier.objects import Kind, ObjectKey
from notifier.rules.timing.stays import StayKey
from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter


class StayRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_stays(self) -> list[tuple[StayKey, float, float]]:
        rows = self._reader.rows("SELECT rule, kind, key, since, until_at FROM stays")
        return [
            ((str(rule), Kind(kind), ObjectKey(key)), float(since), float(until))
            for rule, kind, key, since, until in rows
        ]

    def keep(self, key: StayKey, since: float, until: float) -> None:
        rule, kind, object_key = key
        row = (rule, kind.value, object_key, since, until)
        self._writer.submit(partial(_upsert, row), urgent=False)

    def drop(self, key: StayKey) -> None:
        rule, kind, object_key = key
        self._writer.submit(partial(_delete, (rule, kind.value, object_key)), urgent=False)


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO stays (rule, kind, key, since, until_at) VALUES (?, ?, ?, ?, ?)",
        row,
    )


def _delete(where: tuple[str, str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM stays WHERE rule = ? AND kind = ? AND key = ?", where)


def prune_stays(conn: sqlite3.Connection, *, ended_before: float) -> None:
    conn.execute("DELETE FROM stays WHERE until_at < ?", (ended_before,))
