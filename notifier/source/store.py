"""The cache: one thread-safe map of key -> trimmed object per kind."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from notifier.objects import Kind, KubeObject, ObjectKey, key_of
from notifier.origin import Origin
from notifier.source.deltas import Delta, diff_relist


class Store:
    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self._items: dict[ObjectKey, KubeObject] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: ObjectKey) -> KubeObject | None:
        return self._items.get(key)

    def snapshot(self) -> dict[ObjectKey, KubeObject]:
        with self._lock:
            return dict(self._items)

    def upsert(self, obj: KubeObject) -> KubeObject | None:
        """Store ``obj``; return what was there before."""
        return self.put(key_of(obj), obj)

    def put(self, key: ObjectKey, obj: KubeObject) -> KubeObject | None:
        """Store ``obj`` under its ``key`` (``key_of(obj)``); return what was there before."""
        with self._lock:
            old = self._items.get(key)
            self._items[key] = obj
        return old

    def delete(self, key: ObjectKey) -> KubeObject | None:
        with self._lock:
            return self._items.pop(key, None)

    def replace(
        self, objects: Iterable[KubeObject], namespace: str | None, origin: Origin = Origin.RELIST
    ) -> list[Delta]:
        """Swap in a fresh list (all of it, or one namespace's part); return the diff."""
        listed = {key_of(obj): obj for obj in objects}
        with self._lock:
            cached = {
                key: obj
                for key, obj in self._items.items()
                if namespace is None or obj.metadata.namespace == namespace
            }
            for key in cached.keys() - listed.keys():
                del self._items[key]
            # Assigning to a key already held keeps the held key string: a relist then
            # leaves the cache's (and Known's) keys as they were instead of holding a
            # second, freshly built set for good, and the table is not emptied and regrown.
            for key, obj in listed.items():
                self._items[key] = obj
        return diff_relist(self.kind, cached, listed, origin)
