"""A small list-then-watch loop on its own thread, for the light watches beside the informers.

The rules ConfigMap and the namespaces' labels need neither a cache of
Structs nor a workqueue: read the current state, then follow the watch;
on any failure back off and read afresh. Subclasses say how to read and
how to follow. Like the informers' reflector: a watch that was idle past its
inactivity timeout reopens quietly, with no warning and no growing backoff;
one that closes at once (under ``QUICK_SECONDS``) counts as a failure, so a
server that answers every watch with an empty 200 is not asked again and again.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod

import urllib3

from notifier.source.backoff import Backoff
from notifier.source.client import RawClient
from notifier.source.reflector import QUICK_SECONDS
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
            opened = time.monotonic()
            try:
                self.follow(self.read())
                if time.monotonic() - opened >= QUICK_SECONDS:
                    continue  # the watch ran its course: open the next one
                problem = "the watch closed at once"
            except urllib3.exceptions.ReadTimeoutError:
                continue  # quiet past the inactivity timeout: reopen, as the informers do
            except Exception as err:
                problem = str(err)
            if self._stop.is_set():
                return
            delay = backoff.next_delay()
            log.warning("%s: %s; retrying in %.1fs", self.name, problem, delay)
            self._stop.wait(delay)
