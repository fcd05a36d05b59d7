"""Templates (Jinja2, every value escaped and its invisible characters shown) and the answer.

Every view is rendered with what the page says about itself: the readiness
verdict /readyz gives (a banner when not ready, with since when), the time
it was read ("as of"), and the notice a write left for it (``notices.py``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse

from notifier.api.page import wording
from notifier.api.page.guard import remember_token, token_of
from notifier.api.page.notices import COOKIE as NOTICE_COOKIE
from notifier.api.page.notices import forget_notice, notice_of
from notifier.api.page.views import PageParts

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,  # every value, whatever the file is named
    finalize=wording.visible,  # then escaped: a U+202E in a name is shown, not obeyed
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters.update(when=wording.when, ago=wording.ago, due_in=wording.due_in,
                    seconds=wording.seconds, told=wording.told)  # fmt: skip
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
        health=parts.health.verdict(),
        as_of=time.time(),
        notice=notice_of(request),
        sent=parts.sent.state,
        **values,
    )
    response = HTMLResponse(html, status_code=status)
    remember_token(response, token)
    if NOTICE_COOKIE in request.cookies:
        forget_notice(response)  # said once
    return response
