"""The HTTP application: health that tells the truth, Prometheus metrics, the on-call's page.

The core routes are plain Starlette; /readyz's body says its verdict first
(``ready``, or ``not ready: <check> since <time>``), then each check. The
page is FastAPI (its query checks): a quarter of a second of imports, so its
application is built on the first request that reaches it, not at start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from notifier.api.checks import Check, CheckResult, run_checks
from notifier.api.decision_log import DecisionLog
from notifier.api.headers import SecurityHeaders
from notifier.api.page.views import PageParts
from notifier.api.readiness import Readiness, Verdict

SERVICE_UNAVAILABLE = 503
UNPROCESSABLE = 422
DEFAULT_DECISIONS = 100


def _report(results: list[CheckResult]) -> JSONResponse:
    ok = all(r.ok for r in results)
    body = {
        "status": "ok" if ok else "failing",
        "checks": [{"name": r.name, "ok": r.ok, "detail": r.detail} for r in results],
    }
    return JSONResponse(body, status_code=200 if ok else SERVICE_UNAVAILABLE)


def _checks(path: str, checks: Callable[[], Sequence[Check]]) -> Route:
    def report(_request: Request) -> JSONResponse:
        return _report(run_checks(checks()))

    return Route(path, report, methods=["GET"])


def _verdict(verdict: Verdict) -> JSONResponse:
    body = {
        "verdict": verdict.words(),
        "status": "ok" if verdict.ready else "failing",
        "checks": [{"name": r.name, "ok": r.ok, "detail": r.detail} for r in verdict.results],
    }
    return JSONResponse(body, status_code=200 if verdict.ready else SERVICE_UNAVAILABLE)


def _readiness(readiness: Readiness) -> Route:
    def report(_request: Request) -> JSONResponse:
        return _verdict(readiness.verdict())

    return Route("/readyz", report, methods=["GET"])


def _metrics(registry: CollectorRegistry) -> Route:
    def metrics(request: Request) -> Response:
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
        return Response(encoder(registry), media_type=content_type)

    return Route("/metrics", metrics, methods=["GET"])


def _decisions(log: DecisionLog) -> Route:
    def recent_decisions(request: Request) -> JSONResponse:
        limit = request.query_params.get("limit", str(DEFAULT_DECISIONS))
        if not limit.isdigit():
            return JSONResponse({"detail": "limit: a whole number"}, status_code=UNPROCESSABLE)
        return JSONResponse({"decisions": log.recent(int(limit))})

    return Route("/debug/decisions", recent_decisions, methods=["GET"])


class BuiltOnFirstRequest:
    """An ASGI application built (in a worker thread, off the event loop) when first called."""

    def __init__(self, build: Callable[[], ASGIApp]) -> None:
        self._build = build
        self._app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            built = await run_in_threadpool(self._build)
            self._app = self._app or built  # two first requests at once: keep one
        await self._app(scope, receive, send)


def _page_app(parts: PageParts) -> ASGIApp:
    from notifier.api.page.routes import page_app  # noqa: PLC0415 - FastAPI: on first use

    return page_app(parts)


def create_app(
    *,
    liveness: Callable[[], Sequence[Check]],
    readiness: Readiness,
    registry: CollectorRegistry = REGISTRY,
    decisions: DecisionLog | None = None,
    page: PageParts | None = None,
) -> ASGIApp:
    """``decisions`` (/debug/decisions) and ``page`` (/ and /page/...) are served when given;
    every answer carries the security headers (``api/headers.py``)."""
    routes: list[BaseRoute] = [
        _checks("/healthz", liveness),
        _readiness(readiness),
        _metrics(registry),
    ]
    if decisions is not None:
        routes.append(_decisions(decisions))
    if page is not None:
        routes.append(Mount("", app=BuiltOnFirstRequest(partial(_page_app, page))))
    return SecurityHeaders(Starlette(routes=routes))
