"""What keeps the page safe to post from: a same-origin check, a token.

- Every answer carries the security headers of ``api/headers.py`` (the
  Content-Security-Policy among them), added around the whole application.
- A POST must come from the page itself: its ``Origin`` names this host (or
  the browser says ``Sec-Fetch-Site: same-origin``), and its form carries
  the token of the ``kn_csrf`` cookie (double submit; SameSite=Strict), so
  another site cannot make a browser write, and any replica accepts the
  token of another (no server-side session).
- Bodies are read up to ``MAX_FORM_BYTES``.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import parse_qs, urlsplit

from fastapi import Request, Response

COOKIE = "kn_csrf"
MAX_FORM_BYTES = 16 * 1024


class RefusedError(Exception):
    """A POST the page will not act on: 403 with this reason."""


def token_of(request: Request) -> str:
    """The request's CSRF token, or a new one (set by ``remember_token``)."""
    return request.cookies.get(COOKIE) or secrets.token_urlsafe(24)


def remember_token(response: Response, token: str) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/page")


async def checked_form(request: Request) -> dict[str, str]:
    """The form of a POST from this page; ``RefusedError`` otherwise."""
    _same_origin(request)
    body = await _bounded_body(request)
    form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
    cookie, sent = request.cookies.get(COOKIE, ""), form.get("csrf", "")
    if not cookie or not hmac.compare_digest(cookie.encode(), sent.encode()):
        raise RefusedError("the form's token does not match (reload the page and try again)")
    return form


def _same_origin(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin is not None:
        if urlsplit(origin).netloc != request.headers.get("host", ""):
            raise RefusedError(f"a request from another origin ({origin}) is refused")
    elif request.headers.get("sec-fetch-site") != "same-origin":
        raise RefusedError("a request that does not say where it comes from is refused")


async def _bounded_body(request: Request) -> bytes:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise RefusedError(f"the form is over {MAX_FORM_BYTES} bytes")
    return body
