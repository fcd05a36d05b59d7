from __future__ import annotations

import socket
import time

from notifier.sinks.deadlines import Deadline, Watchdog


class _Conn:
    def __init__(self) -> None:
        self.sock: socket.socket | None
        self.sock, self.peer = socket.socketpair()


def test_a_passed_deadline_shuts_the_connection_down() -> None:
    watchdog = Watchdog("test-deadlines")
    send, conn = Deadline(0.05), _Conn()
    watchdog.arm(send, time.monotonic() + 0.05)
    send.uses(conn)
    assert conn.sock is not None
    conn.sock.settimeout(10)

    started = time.monotonic()
    assert conn.sock.recv(1) == b""  # shut down: the blocked read ends
    assert send.expired
    assert time.monotonic() - started < 9


def test_a_steady_flow_of_sends_does_not_wake_the_watchdog_for_each() -> None:
    watchdog = Watchdog("test-deadlines")
    for _ in range(200):
        send = Deadline(30)
        watchdog.arm(send, time.monotonic() + 30)
        watchdog.disarm(send)

    assert watchdog.wakes <= 2


def test_an_earlier_deadline_than_the_next_wake_up_is_still_kept() -> None:
    watchdog = Watchdog("test-deadlines")
    late = Deadline(30)
    watchdog.arm(late, time.monotonic() + 30)
    early, conn = Deadline(0.05), _Conn()
    watchdog.arm(early, time.monotonic() + 0.05)
    early.uses(conn)

    give_up = time.monotonic() + 5
    while not early.expired and time.monotonic() < give_up:
        time.sleep(0.01)
    assert early.expired
    assert not late.expired
