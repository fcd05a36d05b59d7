"""The control plane's servers survive a port taken between its choice and their bind.

A port chosen free may be someone else's before the server binds it (an
outgoing connection handed it by the kernel, another run choosing it too):
that once cost a whole CI run. ``free_port`` chooses outside the kernel's
ephemeral range, and ``start_listening`` starts the server again on a new port.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.controlplane.processes import (
    Process,
    Started,
    ephemeral_range,
    free_port,
    listens,
    start_listening,
)

# A server as etcd or kube-apiserver is one here: it binds the port it is given, or says
# Go's words for a taken one and exits 1.
SERVER = """
import socket, sys, time
sock = socket.socket()
try:
    sock.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    print(f"listen tcp 127.0.0.1:{sys.argv[1]}: bind: address already in use", flush=True)
    sys.exit(1)
sock.listen()
time.sleep(120)
"""


def test_a_free_port_is_below_the_ephemeral_range() -> None:
    low, _ = ephemeral_range()
    assert all(free_port() < low for _ in range(20))


def test_listens_tells_the_process_that_holds_the_port(taken: int) -> None:
    assert listens(os.getpid(), taken)
    assert not listens(os.getpid(), free_port())


def test_a_server_whose_port_was_taken_starts_again_on_another(tmp_path: Path, taken: int) -> None:
    ports = iter([taken, free_port()])
    started: list[Process] = []

    def start() -> Started:
        port = next(ports)
        server = Process("server", [sys.executable, "-c", SERVER, str(port)], tmp_path)
        server.start()
        started.append(server)
        return server, [port]

    server = start_listening(start, timeout=30)
    try:
        assert len(started) == 2 and server is started[1]
        assert not started[0].alive() and server.alive()
        assert "address already in use" in (tmp_path / "server.log").read_text()
    finally:
        server.stop()


def test_a_server_that_fails_for_another_reason_is_not_started_again(tmp_path: Path) -> None:
    calls: list[int] = []

    def start() -> Started:
        calls.append(1)
        server = Process("broken", [sys.executable, "-c", "raise SystemExit(3)"], tmp_path)
        server.start()
        return server, [free_port()]

    with pytest.raises(RuntimeError, match="broken exited"):
        start_listening(start, timeout=30)
    assert calls == [1]
