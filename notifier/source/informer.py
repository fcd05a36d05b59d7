"""An informer: one kind, one cache, one watcher (reflector thread) per watched namespace (or one).

``synced`` is true only once every reflector's initial list was handed on.
An optional periodic resync replays the cache downstream (no API call),
marked ``Origin.RESYNC`` so nobody notifies on it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from notifier.kinds.registry import Kinds
from notifier.objects import EventType, Kind, KubeObject
from notifier.origin import Origin
from notifier.source import metrics
from notifier.source.client import RawClient
from notifier.source.deltas import Delta, DeltaHandler
from notifier.source.informer_store import InformerStore, SavedLookup, nothing_saved, nothing_to_do
from notifier.source.reflector import Reflector, ReflectorSettings
from notifier.source.resources import Resource, resource_for
from notifier.source.store import Store
from notifier.source.watcher import DEFAULT_SETTINGS, Watcher
from notifier.supervision import supervised


class Informer:
    def __init__(
        self,
        kind: Kind,
        *,
        client: RawClient,
        handler: DeltaHandler,
        namespaces: Sequence[str] = (),
        settings: ReflectorSettings = DEFAULT_SETTINGS,
        resync_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        saved: SavedLookup = nothing_saved,
        on_relisted: Callable[[], None] = nothing_to_do,
        kinds: Kinds,
    ) -> None:
        self.kind = kind
        self.store = Store(kind)
        self._handler = handler
        self._clock = clock
        self._resync_seconds = resync_seconds
        self._stop = threading.Event()
        self._resync_thread: threading.Thread | None = None
        resource = resource_for(kind, kinds=kinds)
        self.namespaces: list[str | None] = scopes(resource, namespaces)  # None: all of them
        self.watchers = [
            Watcher(
                f"informer-{kind.value}-{namespace or 'all'}",
                resource.list_watch(namespace),
                InformerStore(
                    kind,
                    self.store,
                    handler,
                    namespace=namespace,
                    saved=saved,
                    on_relisted=on_relisted,
                ),
                client,
                settings=settings,
                clock=clock,
                family="informer",
            )
            for namespace in self.namespaces
        ]
        metrics.CACHED_OBJECTS.labels(kind.value).set_function(lambda: len(self.store))
        metrics.ACTIVITY_AGE.labels(kind.value).set_function(self.seconds_since_activity)
        metrics.SYNCED.labels(kind.value).set(0)

    @property
    def reflectors(self) -> list[Reflector[KubeObject]]:
        return [watcher.reflector for watcher in self.watchers]

    def start(self) -> None:
        for watcher in self.watchers:
            watcher.start()
        if self._resync_seconds > 0:
            name = f"resync-{self.kind.value}"
            body = supervised(name, self._resync_loop, family="resync")
            self._resync_thread = threading.Thread(target=body, name=name, daemon=True)
            self._resync_thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        for watcher in self.watchers:
            watcher.stop(timeout)
        if self._resync_thread is not None:
            self._resync_thread.join(timeout)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    @property
    def synced(self) -> bool:
        return all(watcher.synced.is_set() for watcher in self.watchers)

    def wait_synced(self, timeout: float) -> bool:
        deadline = self._clock() + timeout
        return all(w.synced.wait(max(0.0, deadline - self._clock())) for w in self.watchers)

    @property
    def alive(self) -> bool:
        """Every thread that should run is running (for /healthz)."""
        resync = self._resync_thread
        return all(w.alive for w in self.watchers) and (resync is None or resync.is_alive())

    def watch_failing(self) -> bool:
        """Some watch of this kind cannot stay open (it keeps failing, or 410s, or closes)."""
        return any(watcher.failing for watcher in self.watchers)

    def seconds_since_activity(self) -> float:
        """Age of the stalest watch: the readiness check for watch freshness."""
        return max(self._clock() - r.last_activity for r in self.reflectors)

    def _resync_loop(self) -> None:
        while not self._stop.wait(self._resync_seconds):
            if self.synced:
                self._handler.handle(self.resync_deltas())

    def resync_deltas(self) -> list[Delta]:
        return [
            Delta(self.kind, key, EventType.UPDATED, obj, Origin.RESYNC)
            for key, obj in self.store.snapshot().items()
        ]


def scopes(resource: Resource, namespaces: Sequence[str]) -> list[str | None]:
    """One watch per namespace, or one cluster-wide watch (None) when none are given.

    A cluster-scoped kind (Node) has no namespaces: it is always watched cluster-wide.
    """
    if not resource.api.namespaced:
        return [None]
    return list(namespaces) or [None]
