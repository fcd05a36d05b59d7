"""Run uvicorn in a background thread, so the rest of the service stays plain threads."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import uvicorn
from starlette.types import ASGIApp

from notifier.supervision import supervised


class _OncePerSecond(uvicorn.Server):
    """uvicorn's server ticking once a second, not ten times: its tick refreshes the
    ``date`` header (one-second resolution) and checks for an exit, and ten wake-ups a
    second were most of the service's idle CPU. ``exit_now`` ends the wait at once."""

    tick_seconds = 1.0
    _loop: asyncio.AbstractEventLoop | None = None
    _wake: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        counter = 0  # uvicorn refreshes the date header when counter % 10 == 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick_seconds)

    def exit_now(self) -> None:
        self.should_exit = True
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended: nothing to wake
                loop.call_soon_threadsafe(wake.set)


class HttpServer:
    def __init__(self, app: ASGIApp, *, host: str, port: int) -> None:
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
        # uvicorn leaves signals alone off the main thread: they stay the service's.
        self._server = _OncePerSecond(config)
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
        self._server.exit_now()
        self._thread.join(timeout)
