"""``Reader``: the read connection, shared by threads one query at a time.

Reads see what the writer has committed (WAL), not what is still queued;
stores that must read their own writes keep a ``PendingWrites`` overlay.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any


class Reader:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._conn.close()
