"""``PendingWrites``: values submitted to the writer and not committed yet.

Reads consult it first so a thread reads its own writes. Each write gets a
token; after commit, ``settle`` drops the entry only if no newer write of
the same key came in meanwhile. A batch of writes shares one token
(``put_all``, ``settle_all``). ``None`` is a pending delete.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class PendingWrites(Generic[K, V]):
    def __init__(self) -> None:
        self._entries: dict[K, tuple[object, V | None]] = {}
        self._lock = threading.Lock()

    def put(self, key: K, value: V | None) -> object:
        token = object()
        with self._lock:
            self._entries[key] = (token, value)
        return token

    def put_all(self, items: list[tuple[K, V | None]]) -> object:
        """``put`` of each item, under one lock and one token (for ``settle_all``)."""
        token = object()
        with self._lock:
            for key, value in items:
                self._entries[key] = (token, value)
        return token

    def settle_all(self, keys: list[K], token: object) -> None:
        """``settle`` of each key written with ``token``."""
        with self._lock:
            for key in keys:
                entry = self._entries.get(key)
                if entry is not None and entry[0] is token:
                    del self._entries[key]
            if not self._entries:
                self._entries = {}

    def settle(self, key: K, token: object) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] is token:
                del self._entries[key]
                if not self._entries:
                    # An emptied dict keeps its table (MBs after a start's writes): let it go.
                    self._entries = {}

    def lookup(self, key: K) -> tuple[bool, V | None]:
        """``(True, value)`` when ``key`` has a pending write (value None: a delete)."""
        with self._lock:
            entry = self._entries.get(key)
        return (False, None) if entry is None else (True, entry[1])

    def snapshot(self) -> dict[K, V | None]:
        with self._lock:
            return {key: value for key, (_, value) in self._entries.items()}
