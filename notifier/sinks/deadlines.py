"""One deadline per send: the connection a send uses is shut down when its deadline passes.

The email sink's (``smtplib``): its timeouts bound each socket operation, not
a send, and a server that trickles one byte a second kept a send going for
minutes. (The HTTP sinks' libcurl bounds a whole send itself.) ``Deadline`` is
entered around a send; the connection joins it when the request starts
(``uses``), and one watchdog thread for the whole process shuts that
connection's socket down if the deadline passes first, which ends whatever
read or write is waiting.

The watchdog sleeps until the earliest deadline it knows of. A send is only
woken for when its deadline comes before that wake-up: with every send on
the same timeout, a steady flow of sends wakes the thread about once per
timeout, not once per send (a wake cost more CPU than the rest of the
deadline's bookkeeping).
"""

from __future__ import annotations

import contextlib
import math
import socket
import threading
import time
from typing import Protocol

from notifier.supervision import supervised

_current = threading.local()  # the send in progress on this thread, for the connection to join


class _Connection(Protocol):
    @property
    def sock(self) -> socket.socket | None: ...


class Deadline:
    """``with Deadline(seconds):`` around one send; ``expired`` once it has passed."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._seconds = seconds
        self._conn: _Connection | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> Deadline:
        _current.send = self
        WATCHDOG.arm(self, time.monotonic() + self._seconds)
        return self

    def __exit__(self, *_: object) -> None:
        WATCHDOG.disarm(self)
        _current.send = None

    def uses(self, conn: _Connection) -> None:
        with self._lock:
            self._conn = conn
            if self.expired:
                _shut(conn)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._conn is not None:
                _shut(self._conn)


def current() -> Deadline | None:
    """The send in progress on this thread, if any."""
    return getattr(_current, "send", None)


class Watchdog:
    """One thread for every send's deadline (a timer thread per send cost 0.3 ms of CPU)."""

    def __init__(self, name: str = "send-deadlines") -> None:
        self._name = name
        self._cond = threading.Condition()
        self._due: dict[Deadline, float] = {}
        self._wakes_at = math.inf  # when the thread looks next, if it is waiting
        self._thread: threading.Thread | None = None
        self.wakes = 0

    def arm(self, send: Deadline, deadline: float) -> None:
        with self._cond:
            self._due[send] = deadline
            if self._thread is None:
                self._thread = threading.Thread(
                    target=supervised(self._name, self._run, family="send-deadlines"),
                    name=self._name,
                    daemon=True,
                )
                self._thread.start()
            elif deadline < self._wakes_at:
                self._wakes_at = deadline
                self._cond.notify()

    def disarm(self, send: Deadline) -> None:
        with self._cond:
            self._due.pop(send, None)

    def _run(self) -> None:
        while True:
            with self._cond:
                self.wakes += 1
                late = self._take_late(time.monotonic())
                if not late:
                    self._wakes_at = min(self._due.values(), default=math.inf)
                    wait = self._wakes_at - time.monotonic()
                    self._cond.wait(None if self._wakes_at == math.inf else max(0.0, wait))
            for send in late:
                send.expire()

    def _take_late(self, now: float) -> list[Deadline]:
        late = [send for send, due in self._due.items() if due <= now]
        for send in late:
            del self._due[send]
        return late


WATCHDOG = Watchdog()


def _shut(conn: _Connection) -> None:
    sock = conn.sock
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed: nothing left to end
            sock.shutdown(socket.SHUT_RDWR)
