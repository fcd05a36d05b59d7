"""A small list-then-watch loop on its own thread, for the light watches beside the informers.

The rules ConfigMap and the namespaces' labels need neither a cache of
Structs nor a workqueue: read the current state, then follow the watch;
on any failure back off and read afresh. Subclasses say how to read and
how to follow.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod

from notifier.source.backoff import Backoff
from notifier.source.client import RawClient
from notifier.supervision import supervised

log = logging.getLogger("notifier.source")


class WatchLoop(ABC):
    def __init__(self, client: RawClient, name: str) -> None:
        self._client = client
        self.name = name
        self._stop = threading.Event()
        self._thread = threading.Thread(target=supervised(name, self._loop), name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._client.close_streams()
        self._thread.join(2)

    @abstractmethod
    def read(self) -> str:
        """Read the current state; return the resourceVersion to watch from."""

    @abstractmethod
    def follow(self, version: str) -> None:
        """Follow the watch from ``version`` until it ends (return) or fails (raise)."""

    def _loop(self) -> None:
        backoff = Backoff(clock=time.monotonic)
        while not self._stop.is_set():
            try:
                self.follow(self.read())
            except Exception as err:
                if self._stop.is_set():
                    return
                log.warning("%s: %s", self.name, err)
                self._stop.wait(backoff.next_delay())
