"""SIGTERM and SIGINT: the first asks the service to stop gracefully, a second ends it at once."""

from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType

log = logging.getLogger("notifier.service")


class StopSignals:
    def __init__(self) -> None:
        self.stop = threading.Event()

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        if self.stop.is_set():
            log.warning("second %s: exiting now", signal.Signals(signum).name)
            os._exit(1)
        log.info("%s: shutting down", signal.Signals(signum).name)
        self.stop.set()
