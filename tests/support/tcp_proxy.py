"""A loopback TCP proxy the tests can cut or stall, to break watches on purpose.

``stall()`` stops forwarding on open connections without closing them (a
half-open connection, as a dead NAT entry looks); new connections still
work. ``cut()`` closes everything and refuses new connections until
``restore()``.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading


class TcpProxy:
    def __init__(self, upstream_port: int) -> None:
        self._upstream = ("127.0.0.1", upstream_port)
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket, threading.Event]] = []
        self._refusing = False
        self._closed = threading.Event()
        self.connections = 0
        threading.Thread(target=self._accept_loop, daemon=True, name="tcp-proxy").start()

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if self._refusing:
                client.close()
                continue
            self._open_pair(client)

    def _open_pair(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self._upstream, timeout=5)
        except OSError:
            client.close()
            return
        stalled = threading.Event()
        with self._lock:
            self._pairs.append((client, upstream, stalled))
            self.connections += 1
        threading.Thread(target=self._pump, args=(client, upstream, stalled), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket, stalled: threading.Event) -> None:
        peers = {a: b, b: a}
        with contextlib.suppress(OSError, ValueError):
            while not self._closed.is_set():
                readable, _, _ = select.select([a, b], [], [], 0.2)
                if stalled.is_set():
                    continue  # hold the bytes: the peer sees silence, not a close
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return self._close(a, b)
                    peers[sock].sendall(data)
        self._close(a, b)

    @staticmethod
    def _close(*socks: socket.socket) -> None:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.close()

    def stall(self) -> None:
        with self._lock:
            for _, _, stalled in self._pairs:
                stalled.set()

    def cut(self) -> None:
        self._refusing = True
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for client, upstream, _ in pairs:
            self._close(client, upstream)

    def restore(self) -> None:
        self._refusing = False

    def close(self) -> None:
        self._closed.set()
        self.cut()
        self._close(self._server)
