"""The informers running now, one per watched kind; an accepted reload starts and stops some.

The workers read each kind's cache through ``stores``, a live mapping: a
kind started by a reload is there from its start, a kind stopped is gone
(a key of it still queued finds no cache and is dropped). /healthz and
/readyz iterate the set as it is at each request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping

from notifier.objects import Kind
from notifier.source.informer import Informer
from notifier.source.store import Store


class InformerSet:
    def __init__(self, informers: list[Informer] | None = None) -> None:
        self._lock = threading.Lock()
        self._informers: dict[Kind, Informer] = {i.kind: i for i in informers or ()}
        self._stores: dict[Kind, Store] = {i.kind: i.store for i in informers or ()}

    @property
    def stores(self) -> Mapping[Kind, Store]:
        """Each watched kind's cache, as the set is now (read by the workers)."""
        return self._stores

    def __iter__(self) -> Iterator[Informer]:
        with self._lock:
            return iter(list(self._informers.values()))

    def __len__(self) -> int:
        return len(self._informers)

    def __contains__(self, kind: object) -> bool:
        return kind in self._informers

    def get(self, kind: Kind) -> Informer | None:
        return self._informers.get(kind)

    def kinds(self) -> list[Kind]:
        with self._lock:
            return list(self._informers)

    def start(self) -> None:
        for informer in self:
            informer.start()

    def stop(self) -> None:
        for informer in self:
            informer.stop()

    def add(self, informer: Informer) -> None:
        """Take ``informer`` in and start it (a kind the reload brings)."""
        with self._lock:
            if informer.kind in self._informers:
                raise ValueError(f"{informer.kind} is watched already")
            self._informers[informer.kind] = informer
            self._stores[informer.kind] = informer.store
        informer.start()

    def remove(self, kind: Kind, before_forgetting: Callable[[Informer], object]) -> None:
        """Stop the kind's informer; ``before_forgetting`` runs once it has stopped, before
        its cache leaves ``stores``."""
        with self._lock:
            informer = self._informers.pop(kind)
        informer.stop()
        before_forgetting(informer)
        with self._lock:
            self._stores.pop(kind, None)
