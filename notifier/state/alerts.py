"""Alerts an Alertmanager sink still re-sends, durable: implements its ``AlertStore``.

One row per sink and fingerprint, the alert as posted. Written by the one
writer thread, read once when the sink is built (at start or on reload).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from functools import partial

from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter


class OpenAlerts:
    def __init__(
        self, writer: BatchWriter, reader: Reader, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._writer = writer
        self._reader = reader
        self._clock = clock

    def open_alerts(self, scope: str) -> dict[str, bytes]:
        rows = self._reader.rows(
            "SELECT fingerprint, alert FROM open_alerts WHERE scope = ?", (scope,)
        )
        return {str(fingerprint): bytes(alert) for fingerprint, alert in rows}

    def keep_alert(self, scope: str, fingerprint: str, alert: bytes) -> None:
        row = (scope, fingerprint, alert, self._clock())
        self._writer.submit(partial(_upsert, row), urgent=False)

    def drop_alert(self, scope: str, fingerprint: str) -> None:
        self._writer.submit(partial(_delete, (scope, fingerprint)), urgent=False)


def _upsert(row: tuple[str, str, bytes, float], conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO open_alerts (scope, fingerprint, alert, stored_at)"
        " VALUES (?, ?, ?, ?)",
        row,
    )


def _delete(key: tuple[str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM open_alerts WHERE scope = ? AND fingerprint = ?", key)
