"""The last state of each object that this process acted on.

Workers compare the cache with this, not with the previous watch event, so
a key processed once for ten updates still yields the right transition.
Objects are shared with the cache (they are immutable), so this costs a
dict entry per object, not a copy. ``SeenStore`` persists it so that after
a restart only real changes produce (catch-up) notifications.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Protocol

from notifier.objects import Kind, KubeObject
from notifier.workers.keys import WorkKey


class SeenStore(Protocol):
    def load_seen(self) -> Iterable[tuple[WorkKey, KubeObject]]: ...

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        """Persist (asynchronously is fine): an object to remember, or None to forget the key."""
        ...


class Known:
    def __init__(self, store: SeenStore | None = None) -> None:
        self._objects: dict[WorkKey, KubeObject] = {}
        self._store = store
        self._lock = threading.Lock()
        if store is not None:
            self._objects.update(store.load_seen())

    def get(self, key: WorkKey) -> KubeObject | None:
        return self._objects.get(key)

    def keys(self, kind: Kind) -> list[WorkKey]:
        with self._lock:
            return [key for key in self._objects if key.kind is kind]

    def set(self, key: WorkKey, obj: KubeObject | None) -> None:
        with self._lock:
            if obj is None:
                self._objects.pop(key, None)
            else:
                self._objects[key] = obj
        if self._store is not None:
            self._store.save_seen([(key, obj)])
