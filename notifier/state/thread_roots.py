"""Slack thread roots, durable: implements ``notifier.sinks.thread_roots.ThreadStore``.

A thread root older than the retention is pruned; the next notification
with that key then starts a new thread.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from functools import partial

from notifier.state.pending import PendingWrites
from notifier.state.reader import Reader
from notifier.state.text import storable
from notifier.state.writer import BatchWriter


class SlackThreads:
    def __init__(
        self, writer: BatchWriter, reader: Reader, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._writer = writer
        self._reader = reader
        self._clock = clock
        self._pending: PendingWrites[tuple[str, str], str] = PendingWrites()

    def thread_ts(self, scope: str, thread_key: str) -> str | None:
        found, ts = self._pending.lookup((scope, thread_key))
        if found:
            return ts
        rows = self._reader.rows(
            "SELECT ts FROM slack_threads WHERE scope = ? AND thread_key = ?", (scope, thread_key)
        )
        return str(rows[0][0]) if rows else None

    def remember_thread(self, scope: str, thread_key: str, ts: str) -> None:
        key = (scope, thread_key)
        token = self._pending.put(key, ts)
        row = (storable(scope), storable(thread_key), storable(ts), self._clock())
        self._writer.submit(partial(_upsert, row), partial(self._pending.settle, key, token))


def _upsert(row: tuple[str, str, str, float], conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO slack_threads (scope, thread_key, ts, created_at)"
        " VALUES (?, ?, ?, ?)",
        row,
    )


def prune_threads(conn: sqlite3.Connection, *, older_than: float) -> None:
    conn.execute("DELETE FROM slack_threads WHERE created_at < ?", (older_than,))
