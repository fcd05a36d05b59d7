"""SIGTERM and SIGINT: the first asks the service to stop gracefully, a second ends it at once."""

from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType

log = logging.getLogger("notifier.service")

WAKE_SECONDS = 0.5  # at most this long from a signal to its handler (see ``wait``)


class StopSignals:
    def __init__(self) -> None:
        self.stop = threading.Event()

    def wait(self) -> None:
        """Block the main thread until a signal asks the service to stop.

        In bounded waits: a signal the kernel delivers to another thread (it may, when the
        main thread is not runnable to take it, as after ``py-spy dump`` attached and
        detached) only flags the handler, which the main thread runs once it is back in
        Python code; an unbounded wait never came back, and the process ignored SIGTERM."""
        while not self.stop.wait(WAKE_SECONDS):
            pass

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        if self.stop.is_set():
            log.warning("second %s: exiting now", signal.Signals(signum).name)
            os._exit(1)
        log.info("%s: shutting down", signal.Signals(signum).name)
        self.stop.set()
