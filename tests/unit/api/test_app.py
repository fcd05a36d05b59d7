"""The core routes on plain Starlette; the page's application built on its first request."""

from __future__ import annotations

import subprocess
import sys

from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient
from starlette.types import ASGIApp

from notifier.api.app import BuiltOnFirstRequest, create_app
from notifier.api.checks import flag
from notifier.api.decisions import DecisionLog


def test_health_readiness_and_decisions_answer() -> None:
    failing = [flag("informers", lambda: False, "not synced")]
    app = create_app(liveness=list, readiness=lambda: failing, decisions=DecisionLog())
    client = TestClient(app)
    assert client.get("/healthz").json() == {"status": "ok", "checks": []}
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["checks"] == [{"name": "informers", "ok": False, "detail": "not synced"}]
    assert client.get("/debug/decisions", params={"limit": "5"}).json() == {"decisions": []}
    assert client.get("/debug/decisions", params={"limit": "x"}).status_code == 422
    assert client.get("/metrics").text.startswith("# HELP")
    assert client.get("/page/now").status_code == 404  # no page given


def test_the_page_is_built_once_and_only_when_first_asked_for() -> None:
    built: list[ASGIApp] = []

    def build() -> ASGIApp:
        built.append(PlainTextResponse("the page"))
        return built[-1]

    lazy = BuiltOnFirstRequest(build)
    client = TestClient(lazy)
    assert built == []
    assert client.get("/page/now").text == "the page"
    assert client.get("/page/why").text == "the page"
    assert len(built) == 1


def test_building_the_app_with_the_page_imports_no_fastapi() -> None:
    # The parts are not looked at before the page's first request: any object stands in.
    probe = (
        "import sys; from notifier.api.app import create_app;"
        " create_app(liveness=list, readiness=list, page=object());"
        " print('fastapi' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == "False"
