"""HttpServer: uvicorn on its own thread, ticking once a second, stopped at once."""

from __future__ import annotations

import urllib.request

from fastapi import FastAPI

from notifier.api.server import HttpServer


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    return app


def test_it_serves_and_a_stop_does_not_wait_for_the_next_tick() -> None:
    server = HttpServer(_app(), host="127.0.0.1", port=0)
    server._server.tick_seconds = 60.0  # a stop that waited for the next tick would time out
    server.start()
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/ping", timeout=5) as reply:
        assert reply.status == 200
        assert reply.headers["date"]  # the tick's date header is there from the start
    server.stop(timeout=5)
    assert not server._thread.is_alive()
