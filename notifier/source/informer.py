"""An informer: one kind, one cache, one reflector thread per watched namespace (or one).

``synced`` is true only once every reflector's initial list was handed on.
An optional periodic resync replays the cache downstream (no API call),
marked ``Origin.RESYNC`` so nobody notifies on it.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Sequence

from notifier.objects import Kind
from notifier.source import metrics
from notifier.source.client import RawClient
from notifier.source.deltas import Delta, DeltaHandler, DeltaType
from notifier.source.reflector import (
    Reflector,
    ReflectorSettings,
    SavedLookup,
    nothing_saved,
    nothing_to_do,
)
from notifier.source.resources import Resource, resource_for
from notifier.source.store import Store
from notifier.supervision import supervised
from notifier.transitions.model import Origin

DEFAULT_SETTINGS = ReflectorSettings()


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
    ) -> None:
        self.kind = kind
        self.store = Store(kind)
        # A client of its own, so stopping this informer closes only its own streams.
        self._client = client.sibling()
        self._handler = handler
        self._clock = clock
        self._resync_seconds = resync_seconds
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.reflectors = [
            Reflector(
                resource=resource_for(kind),
                namespace=namespace,
                client=self._client,
                store=self.store,
                handler=handler,
                settings=settings,
                clock=clock,
                saved=saved,
                on_relisted=on_relisted,
            )
            for namespace in scopes(resource_for(kind), namespaces)
        ]
        metrics.CACHED_OBJECTS.labels(kind.value).set_function(lambda: len(self.store))
        metrics.ACTIVITY_AGE.labels(kind.value).set_function(self.seconds_since_activity)
        metrics.SYNCED.labels(kind.value).set(0)

    def start(self) -> None:
        for reflector in self.reflectors:
            name = f"informer-{self.kind.value}-{reflector.namespace or 'all'}"
            self._spawn(name, functools.partial(reflector.run, self._stop), family="informer")
        if self._resync_seconds > 0:
            self._spawn(f"resync-{self.kind.value}", self._resync_loop, family="resync")

    def _spawn(self, name: str, target: Callable[[], None], *, family: str) -> None:
        thread = threading.Thread(
            target=supervised(name, target, family=family), name=name, daemon=True
        )
        thread.start()
        self._threads.append(thread)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._client.close_streams()  # a watch blocked on a quiet stream would hold us up
        for thread in self._threads:
            thread.join(timeout)

    @property
    def synced(self) -> bool:
        return all(r.synced.is_set() for r in self.reflectors)

    def wait_synced(self, timeout: float) -> bool:
        deadline = self._clock() + timeout
        return all(r.synced.wait(max(0.0, deadline - self._clock())) for r in self.reflectors)

    @property
    def alive(self) -> bool:
        """Every thread that should run is running (for /healthz)."""
        return bool(self._threads) and all(t.is_alive() for t in self._threads)

    def watch_failing(self) -> bool:
        """Some watch of this kind cannot stay open (it keeps failing, or 410s, or closes)."""
        return any(r.failing for r in self.reflectors)

    def seconds_since_activity(self) -> float:
        """Age of the stalest watch: the readiness check for watch freshness."""
        return max(self._clock() - r.last_activity for r in self.reflectors)

    def _resync_loop(self) -> None:
        while not self._stop.wait(self._resync_seconds):
            if self.synced:
                self._handler.handle(self.resync_deltas())

    def resync_deltas(self) -> list[Delta]:
        return [
            Delta(self.kind, key, DeltaType.UPDATED, obj, Origin.RESYNC)
            for key, obj in self.store.snapshot().items()
        ]


def scopes(resource: Resource, namespaces: Sequence[str]) -> list[str | None]:
    """One watch per namespace, or one cluster-wide watch (None) when none are given.

    A cluster-scoped kind (Node) has no namespaces: it is always watched cluster-wide.
    """
    if not resource.api.namespaced:
        return [None]
    return list(namespaces) or [None]
