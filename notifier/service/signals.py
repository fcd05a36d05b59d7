"""SIGTERM and SIGINT: the first asks the service to stop gracefully, a second ends it at once."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
from types import FrameType

log = logging.getLogger("notifier.service")

# The main thread's wait ends for a signal (see ``wait``); this is only a safety net.
WAKE_SECONDS = 30.0


class StopSignals:
    def __init__(self) -> None:
        self.stop = threading.Event()
        self._woken: socket.socket | None = None
        self._waker: socket.socket | None = None

    def wait(self) -> None:
        """Block the main thread until a signal asks the service to stop.

        A process-directed signal goes to whichever thread the kernel picks (after ``py-spy
        dump`` attached and detached, often not the main thread). Python's C handler, which
        runs on that thread, flags the signal and writes a byte to the wakeup socket that
        ``install`` registered; the main thread, asleep reading that socket, wakes and runs
        the Python handler. A wait on an event alone never came back (the process ignored
        SIGTERM), and waits in short steps woke the process twice a second for nothing."""
        while not self.stop.is_set():
            if self._woken is None:
                self.stop.wait(0.5)  # no wakeup socket: ``install`` not called, or none to be had
                continue
            with contextlib.suppress(TimeoutError, BlockingIOError, InterruptedError):
                self._woken.recv(64)

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        try:
            woken, waker = socket.socketpair()
        except OSError as err:
            log.warning("no wakeup socket for signals (%s): waiting in steps", err)
            return
        waker.setblocking(False)
        woken.settimeout(WAKE_SECONDS)
        signal.set_wakeup_fd(waker.fileno(), warn_on_full_buffer=False)  # the main thread's
        self._woken, self._waker = woken, waker

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        if self.stop.is_set():
            log.warning("second %s: exiting now", signal.Signals(signum).name)
            os._exit(1)
        log.info("%s: shutting down", signal.Signals(signum).name)
        self.stop.set()
