"""Run uvicorn in a background thread, so the rest of the service stays plain threads."""

from __future__ import annotations

import threading
import time

import uvicorn
from starlette.types import ASGIApp

from notifier.supervision import supervised


class HttpServer:
    def __init__(self, app: ASGIApp, *, host: str, port: int) -> None:
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
        # uvicorn leaves signals alone off the main thread: they stay the service's.
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=supervised("http", self._server.run), name="http", daemon=True
        )

    def start(self, timeout: float = 10.0) -> None:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("HTTP server failed to start (port in use?)")
            time.sleep(0.02)

    @property
    def port(self) -> int:
        servers = self._server.servers
        if servers and servers[0].sockets:
            port: int = servers[0].sockets[0].getsockname()[1]
            return port
        return int(self._server.config.port)

    def stop(self, timeout: float = 5.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
