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

The same holds per watch scope (``scope_name``: a kind in one namespace, or
in all): a scope watched for the first time (a kind or namespace added by a
reload, or to the config between two starts) has its first list kept quiet
(``quiet``) until it is acted on (``mark_baseline``); a scope no longer
watched is forgotten (``forget_scope``), records and mark.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Protocol

from notifier.objects import Kind, KubeObject, ObjectKey
from notifier.workers.keys import WorkKey

ALL_NAMESPACES = "*"


def scope_name(kind: Kind, namespace: str | None) -> str:
    """``Pod/*`` (every namespace), ``Job/shop``; a cluster-scoped kind's is ``Node/*``."""
    return f"{kind.value}/{namespace or ALL_NAMESPACES}"


class SeenStore(Protocol):
    def load_seen(self) -> Iterable[tuple[WorkKey, KubeObject]]: ...

    def has_baseline(self) -> bool:
        """Whether an earlier start acted on its whole initial list."""
        ...

    def mark_baseline(self, scopes: Iterable[str]) -> None:
        """The first lists of ``scopes`` were acted on (persisted behind the records)."""
        ...

    def baselines(self) -> frozenset[str]:
        """The scopes marked so far (none in a file written before scopes were marked)."""
        ...

    def forget_baseline(self, scope: str) -> None:
        """The scope is no longer watched."""
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
        # None: a file from before scopes were marked, whose every scope counts as acted on.
        self._baselined: set[str] | None = set()
        if store is not None and not self.first_start:
            self._baselined = set(store.baselines()) or None
        if store is not None:
            for key, obj in store.load_seen():
                self._of(key.kind)[key.key] = obj

    def quiet(self, key: WorkKey) -> bool:
        """Whether the first list of the key's scope is the baseline, not news."""
        baselined = self._baselined
        if baselined is None:
            return False
        namespace, slash, _ = key.key.partition("/")
        kind = key.kind.value
        return f"{kind}/{ALL_NAMESPACES}" not in baselined and (
            not slash or f"{kind}/{namespace}" not in baselined
        )

    def mark_baseline(self, scopes: Iterable[str]) -> None:
        """The first lists of ``scopes`` were acted on: from now on, and at a later start,
        their objects are compared with what is saved."""
        marked = set(scopes)
        with self._lock:
            # A file from before scopes were marked gets its marks now: what is watched.
            self._baselined = marked if self._baselined is None else self._baselined | marked
        if self._store is not None:
            self._store.mark_baseline(marked)

    def forget_scope(self, kind: Kind, namespace: str | None) -> int:
        """Stop knowing a scope no longer watched: its objects and its mark. Its objects
        are not told as deleted; watched again, its first list is quiet."""
        scope = scope_name(kind, namespace)
        prefix = f"{namespace}/" if namespace else ""
        with self._lock:
            if self._baselined is not None:
                self._baselined.discard(scope)
            objects = self._objects.get(kind, {})
            gone = [key for key in objects if key.startswith(prefix)]
            for key in gone:
                del objects[key]
        if self._store is not None:
            self._store.save_seen([(WorkKey(kind, key), None) for key in gone])
            self._store.forget_baseline(scope)
        return len(gone)

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
        self.set_all([(key, obj)])

    def set_all(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        """``set`` of each key (a worker's batch of keys), saved as one write."""
        with self._lock:
            changed = [change for change in changes if self._set_locked(*change)]
        if self._store is not None and changed:
            self._store.save_seen(changed)

    def _set_locked(self, key: WorkKey, obj: KubeObject | None) -> bool:
        if obj is None:
            self._objects.get(key.kind, {}).pop(key.key, None)
            return True
        objects = self._of(key.kind)
        if objects.get(key.key) is obj:
            # The very instance already recorded (a restart's unchanged object, which
            # the list reused from what was saved; a resync): saving it again would
            # encode and queue the whole cache's JSON at once for nothing.
            return False
        objects[key.key] = obj
        return True

    def _of(self, kind: Kind) -> dict[ObjectKey, KubeObject]:
        return self._objects.setdefault(kind, {})
