"""The page's four views (GET): Now, Why not, Silences, Delivery; and its static files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from notifier.api.page.forms import add_forms
from notifier.api.page.rendering import render
from notifier.api.page.views import FiringItem, PageParts
from notifier.api.page.wording import visible
from notifier.api.paged import Paged, Where
from notifier.silences.book import SilenceError, parse_matchers

FIRING_PER_PAGE = 100
PENDING_PER_PAGE = 100
GROUPS_PER_PAGE = 50
DECISIONS_PER_PAGE = 50
RESOLVED_SHOWN = 50
PREVIEW_SHOWN = 50
FAILURES_SHOWN = 50
DEAD_LETTERS_SHOWN = 100

Text = Annotated[str, Query(max_length=253)]
PageNumber = Annotated[int, Query(ge=0, le=100_000)]


def page_app(parts: PageParts) -> FastAPI:
    """The page's own application, mounted at the root by ``api/app.py``."""
    app = FastAPI(title="kube-notifier", docs_url=None, redoc_url=None, openapi_url=None)
    add_page(app, parts)
    return app


def add_page(app: FastAPI, parts: PageParts) -> None:
    app.mount("/page/static", StaticFiles(directory=Path(__file__).parent / "static"), "static")

    @app.get("/", include_in_schema=False)
    def index() -> RedirectResponse:
        return RedirectResponse("/page/now", status_code=303)

    @app.get("/page/now")
    def now(request: Request, *, namespace: Text = "", kind: Text = "", rule: Text = "",
            page: PageNumber = 0, pending_page: PageNumber = 0,
            group_page: PageNumber = 0) -> HTMLResponse:  # fmt: skip
        where = Where(namespace.strip(), kind.strip(), rule.strip())
        firing = parts.now.firing(where, page * FIRING_PER_PAGE, FIRING_PER_PAGE)
        pending = parts.waiting.pending(where, pending_page * PENDING_PER_PAGE, PENDING_PER_PAGE)
        groups = parts.waiting.groups(where, group_page * GROUPS_PER_PAGE, GROUPS_PER_PAGE)
        resolved = parts.now.resolved(where, RESOLVED_SHOWN)
        silences = {silence.id: silence for silence in parts.silences.silences()}
        return render(request, "now.html", parts, where=where, firing=firing, resolved=resolved,
                      page=page, pending=pending, pending_page=pending_page, groups=groups,
                      group_page=group_page, silences=silences)  # fmt: skip

    @app.get("/page/why")
    def why(request: Request, q: Text = "", page: PageNumber = 0) -> HTMLResponse:
        found = parts.decisions.search(q, page * DECISIONS_PER_PAGE, DECISIONS_PER_PAGE)
        return render(request, "why.html", parts, q=q, found=found, page=page)

    @app.get("/page/silences")
    def silences(request: Request, match: Text = "") -> HTMLResponse:
        preview, error = _preview(parts, match)
        return render(request, "silences.html", parts, silences=parts.silences.silences(),
                      match=match, preview=preview, error=error,
                      where=parts.silences_map)  # fmt: skip

    @app.get("/page/silences/preview")
    def preview_json(match: Text = "") -> JSONResponse:
        preview, error = _preview(parts, match)
        items = [] if preview is None else preview.items
        body = {"error": visible(error), "total": 0 if preview is None else preview.total,
                "items": [{"rule": visible(i.rule), "kind": i.kind,
                           "namespace": visible(i.namespace), "name": visible(i.name),
                           "states": list(i.states)} for i in items]}  # fmt: skip
        return JSONResponse(body)

    @app.get("/page/delivery")
    def delivery(request: Request) -> HTMLResponse:
        view, writes = parts.delivery, parts.writes
        return render(request, "delivery.html", parts, queues=view.queues(),
                      failures=view.failures(FAILURES_SHOWN),
                      letters=view.dead_letters(DEAD_LETTERS_SHOWN),
                      replay=writes is not None and writes.replay is not None)  # fmt: skip

    add_forms(app, parts)


def _preview(parts: PageParts, match: str) -> tuple[Paged[FiringItem] | None, str]:
    if not match.strip():
        return None, ""
    try:
        return parts.silences.preview(parse_matchers(match), PREVIEW_SHOWN), ""
    except SilenceError as err:
        return None, str(err)
