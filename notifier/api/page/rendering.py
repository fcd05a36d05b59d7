"""Templates (Jinja2, every value escaped) and the answer that carries the page's headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse

from notifier.api.page import wording
from notifier.api.page.guard import protect, remember_token, token_of
from notifier.api.page.views import PageParts

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,  # every value, whatever the file is named
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters.update(when=wording.when, ago=wording.ago, due_in=wording.due_in,
                    seconds=wording.seconds)  # fmt: skip
_ENV.globals.update(outcome=wording.outcome, reasons=wording.reasons)


# Who the cluster's auth proxy says is asking (oauth2-proxy, ingress external auth):
# only a default for the silence form's author field, which the person may change.
_USER_HEADERS = ("x-auth-request-user", "x-forwarded-user", "x-auth-request-email",
                 "x-forwarded-email")  # fmt: skip


def render(
    request: Request, template: str, parts: PageParts, status: int = 200, **values: Any
) -> HTMLResponse:
    token = token_of(request)
    html = _ENV.get_template(template).render(
        csrf=token,
        writes=parts.writes is not None,
        view=template.removesuffix(".html"),
        user=next((request.headers[h] for h in _USER_HEADERS if h in request.headers), "")[:100],
        **values,
    )
    response = HTMLResponse(html, status_code=status)
    remember_token(response, token)
    protect(response)
    return response
