"""FastAPI application: health that tells the truth, Prometheus metrics, the on-call's page."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder

from notifier.api.checks import Check, CheckResult, run_checks
from notifier.api.decisions import DecisionLog
from notifier.api.page.routes import add_page
from notifier.api.page.views import PageParts

SERVICE_UNAVAILABLE = 503


def _report(results: list[CheckResult]) -> JSONResponse:
    ok = all(r.ok for r in results)
    body = {
        "status": "ok" if ok else "failing",
        "checks": [{"name": r.name, "ok": r.ok, "detail": r.detail} for r in results],
    }
    return JSONResponse(body, status_code=200 if ok else SERVICE_UNAVAILABLE)


def create_app(
    *,
    liveness: Callable[[], Sequence[Check]],
    readiness: Callable[[], Sequence[Check]],
    registry: CollectorRegistry = REGISTRY,
    decisions: DecisionLog | None = None,
    page: PageParts | None = None,
) -> FastAPI:
    """``decisions`` (/debug/decisions) and ``page`` (/page/...) are served when given."""
    app = FastAPI(title="kube-notifier", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/healthz")
    def healthz() -> JSONResponse:
        return _report(run_checks(liveness()))

    @app.get("/readyz")
    def readyz() -> JSONResponse:
        return _report(run_checks(readiness()))

    @app.get("/metrics")
    def metrics(request: Request) -> Response:
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
        return Response(encoder(registry), media_type=content_type)

    if decisions is not None:

        @app.get("/debug/decisions")
        def recent_decisions(limit: int = 100) -> JSONResponse:
            return JSONResponse({"decisions": decisions.recent(limit)})

    if page is not None:
        add_page(app, page)

    return app
