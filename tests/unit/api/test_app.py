"""The core routes on plain Starlette; the page's application built on its first request."""

from __future__ import annotations

import subprocess
import sys

from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient
from starlette.types import ASGIApp

from notifier.api.app import BuiltOnFirstRequest, create_app
from notifier.api.checks import flag
from notifier.api.decision_log import DecisionLog
from notifier.api.headers import HEADERS
from notifier.api.readiness import Readiness


def test_health_readiness_and_decisions_answer() -> None:
    failing = [flag("informers", lambda: False, "not synced")]
    readiness = Readiness(lambda: failing, clock=lambda: 1.7e9)
    app = create_app(liveness=list, readiness=readiness, decisions=DecisionLog())
    client = TestClient(app)
    assert client.get("/healthz").json() == {"status": "ok", "checks": []}
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert list(ready.json()) == ["verdict", "status", "checks"]  # the verdict first
    assert ready.json()["verdict"] == "not ready: informers since 2023-11-14T22:13:20Z"
    assert ready.json()["checks"] == [{"name": "informers", "ok": False, "detail": "not synced"}]
    assert client.get("/debug/decisions", params={"limit": "5"}).json() == {"decisions": []}
    assert client.get("/debug/decisions", params={"limit": "x"}).status_code == 422
    assert client.get("/metrics").text.startswith("# HELP")
    assert client.get("/page/now").status_code == 404  # no page given


def test_a_ready_service_says_so_and_every_answer_carries_the_security_headers() -> None:
    client = TestClient(create_app(liveness=list, readiness=Readiness(list)))
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"verdict": "ready", "status": "ok",
                                                         "checks": []}  # fmt: skip
    for answer in (ready, client.get("/metrics"), client.get("/nowhere")):
        assert {name: answer.headers.get(name) for name in HEADERS} == HEADERS
    assert "camera=()" in ready.headers["permissions-policy"]


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
        " from notifier.api.readiness import Readiness;"
        " create_app(liveness=list, readiness=Readiness(list), page=object());"
        " print('fastapi' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == "False"
