"""An informer's side of its reflector: the cache of trimmed objects, and the deltas it hands on.

Each listed or watched object is trimmed to its kind's Struct; the cache
(``Store``) takes it and the change goes downstream as a ``Delta``: a first
list's objects as quiet adds (``Origin.INITIAL_LIST``), a relist as its diff
against the cache, a watch event as an add, update or delete (a key whose
uid changed was deleted and created again).
"""

from __future__ import annotations

from collections.abc import Callable

from notifier.objects import EventType, Kind, KubeObject, ObjectKey, key_of
from notifier.origin import Origin
from notifier.source.deltas import Delta, DeltaHandler
from notifier.source.store import Store
from notifier.source.trimming import trim

# The object a saved state holds for a key (a restart's ``Known``), if any.
SavedLookup = Callable[[ObjectKey], "KubeObject | None"]


def nothing_saved(_key: ObjectKey) -> KubeObject | None:
    """No saved state: a first start, or no state file."""
    return None


def nothing_to_do() -> None:
    """No one to tell that a relist was handed on."""


class InformerStore:
    """One reflector's part of a kind's cache (one namespace of it, or all)."""

    def __init__(
        self,
        kind: Kind,
        store: Store,
        handler: DeltaHandler,
        *,
        namespace: str | None = None,
        saved: SavedLookup = nothing_saved,
        on_relisted: Callable[[], None] = nothing_to_do,
    ) -> None:
        self.kind = kind
        self.namespace = namespace
        self._store = store
        self._handler = handler
        self._saved = saved
        self._on_relisted = on_relisted

    def admit(self, obj: KubeObject) -> KubeObject:
        """The object already held when the listed one is the same: a relist after 410
        then holds the cache plus what changed and one page, not the cache twice (the
        peak the allocator keeps after it), and skips trimming what it already has.

        A restart's first list finds the cache empty but the saved state (``saved``)
        loaded: an unchanged object keeps its saved instance, so the two copies are
        not both held until the workers have compared them. Saved objects are compared
        whole, not by version: one written by an older release may lack a field."""
        key = key_of(obj)
        cached = self._store.get(key)
        if cached is not None and _same_version(cached, obj):
            return cached
        trimmed = trim(obj)
        saved = self._saved(key) if cached is None else None
        return saved if saved is not None and saved == trimmed else trimmed

    def replace(self, items: list[KubeObject], *, first: bool) -> None:
        # The first list finds its part of the cache empty: every object is an add.
        origin = Origin.INITIAL_LIST if first else Origin.RELIST
        self._handler.handle(self._store.replace(items, self.namespace, origin))
        if not first:
            self._on_relisted()  # its pages are freed: memory to give back once acted on

    def upsert(self, obj: KubeObject) -> None:
        obj = trim(obj)
        key = key_of(obj)
        old = self._store.put(key, obj)
        if old is None:
            delta = Delta(self.kind, key, EventType.ADDED, obj, Origin.LIVE)
        elif old.metadata.uid == obj.metadata.uid:
            delta = Delta(self.kind, key, EventType.UPDATED, obj, Origin.LIVE)
        else:  # deleted and created again under the same name
            gone = Delta(self.kind, key, EventType.DELETED, old, Origin.LIVE, True)
            self._handler.handle([gone, Delta(self.kind, key, EventType.ADDED, obj, Origin.LIVE)])
            return
        self._handler.handle([delta])

    def delete(self, obj: KubeObject) -> None:
        obj = trim(obj)
        key = key_of(obj)
        self._store.delete(key)
        self._handler.handle([Delta(self.kind, key, EventType.DELETED, obj, Origin.LIVE)])


def _same_version(was: KubeObject, now: KubeObject) -> bool:
    return (
        was.metadata.resource_version == now.metadata.resource_version
        and was.metadata.uid == now.metadata.uid
    )
