"""The last state of each object that this process acted on.

Workers compare the cache with this, not with the previous watch event, so
a key processed once for ten updates still yields the right transition.
Objects are shared with the cache (they are immutable), so this costs a
dict entry per object, not a copy. ``SeenStore`` persists it so that after
a restart only real changes produce (catch-up) notifications.

``first_start`` is true when there is no saved state to compare with (no
store, a new or set-aside file, or a start that never finished acting on its
initial list): then what the initial list shows is the baseline, kept quiet.
On any later start an object listed with no record appeared while we were
away (or was never acted on), and is told as a catch-up add.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Protocol

from notifier.objects import Kind, KubeObject, ObjectKey
from notifier.workers.keys import WorkKey


class SeenStore(Protocol):
    def load_seen(self) -> Iterable[tuple[WorkKey, KubeObject]]: ...

    def has_baseline(self) -> bool:
        """Whether an earlier start acted on its whole initial list."""
        ...

    def mark_baseline(self) -> None:
        """This start acted on its whole initial list (persisted behind the records)."""
        ...

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        """Persist (asynchronously is fine): an object to remember, or None to forget the key."""
        ...


class Known:
    def __init__(self, store: SeenStore | None = None) -> None:
        # Per kind, by the object's key: no WorkKey tuple kept per object (6 MiB at 100k).
        self._objects: dict[Kind, dict[ObjectKey, KubeObject]] = {}
        self._store = store
        self._lock = threading.Lock()
        self.first_start = store is None or not store.has_baseline()
        if store is not None:
            for key, obj in store.load_seen():
                self._of(key.kind)[key.key] = obj

    def mark_baseline(self) -> None:
        """The initial list was acted on: a later start compares with what is saved."""
        if self._store is not None and self.first_start:
            self._store.mark_baseline()

    def __len__(self) -> int:
        return sum(len(objects) for objects in list(self._objects.values()))

    def get(self, key: WorkKey) -> KubeObject | None:
        objects = self._objects.get(key.kind)
        return None if objects is None else objects.get(key.key)

    def saved(self, kind: Kind) -> Callable[[ObjectKey], KubeObject | None]:
        """Look-ups of one kind's objects by key, for the informer's first list: what a
        restart loaded from the state file is reused when the listed object equals it."""
        return lambda key: self._objects.get(kind, {}).get(key)

    def keys(self, kind: Kind) -> list[WorkKey]:
        with self._lock:
            return [WorkKey(kind, key) for key in self._objects.get(kind, ())]

    def set(self, key: WorkKey, obj: KubeObject | None) -> None:
        with self._lock:
            if obj is None:
                self._objects.get(key.kind, {}).pop(key.key, None)
            else:
                objects = self._of(key.kind)
                if objects.get(key.key) is obj:
                    # The very instance already recorded (a restart's unchanged object, which
                    # the list reused from what was saved; a resync): saving it again would
                    # encode and queue the whole cache's JSON at once for nothing.
                    return
                objects[key.key] = obj
        if self._store is not None:
            self._store.save_seen([(key, obj)])

    def _of(self, kind: Kind) -> dict[ObjectKey, KubeObject]:
        return self._objects.setdefault(kind, {})
