"""One reflector on a supervised thread of its own, with a client of its own.

An informer runs one per watched namespace; the rules and silences
ConfigMaps and the namespaces' labels run one each. Stopping a watcher
closes only its own streams (a watch blocked on a quiet stream would hold
the stop up otherwise).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from notifier.objects import KubeObject
from notifier.source.client import RawClient
from notifier.source.listwatch import ListWatch, ReflectorStore
from notifier.source.reflector import Reflector, ReflectorSettings
from notifier.supervision import supervised

T = TypeVar("T", bound=KubeObject)

DEFAULT_SETTINGS = ReflectorSettings()


class Watcher(Generic[T]):
    def __init__(
        self,
        name: str,
        list_watch: ListWatch[T],
        store: ReflectorStore[T],
        client: RawClient,
        *,
        settings: ReflectorSettings = DEFAULT_SETTINGS,
        clock: Callable[[], float] | None = None,
        family: str = "watch",
    ) -> None:
        self.name = name
        self._client = client.sibling()
        self.reflector = Reflector(
            list_watch=list_watch,
            store=store,
            client=self._client,
            settings=settings,
            **({"clock": clock} if clock else {}),
        )
        self._stop = threading.Event()
        body = supervised(name, functools.partial(self.reflector.run, self._stop), family=family)
        self._thread = threading.Thread(target=body, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.reflector.wake()  # out of a backoff wait
        self._client.close_streams()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    @property
    def synced(self) -> threading.Event:
        """Set once the first list was handed to the store."""
        return self.reflector.synced

    @property
    def failing(self) -> bool:
        """The watch cannot stay open (for readiness)."""
        return self.reflector.failing


class OwnWatch(Generic[T]):
    """A store that runs its own watcher (a ConfigMap's, the namespaces'): what its owner
    reads of it, and the identity ``admit`` (nothing is trimmed or reused)."""

    _watcher: Watcher[T]

    @property
    def synced(self) -> threading.Event:
        return self._watcher.synced

    @property
    def failing(self) -> bool:
        return self._watcher.failing

    @property
    def alive(self) -> bool:
        return self._watcher.alive

    def start(self) -> None:
        self._watcher.start()

    def stop(self) -> None:
        self._watcher.stop()

    def admit(self, obj: T) -> T:
        return obj
