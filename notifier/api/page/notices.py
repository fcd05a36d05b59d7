"""What the page says after a write ("silence 3f2a added"), from the page itself.

A POST's answer redirects to its view and carries the notice in a cookie
signed with this process's key (``kn_notice``: HttpOnly, SameSite=Strict,
a minute long); the view shows it once and clears it. A link cannot put
words on the page: a notice is never read from the query string, and one
whose signature does not match (forged, or set by another replica) is not
shown.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "kn_notice"
MAX_CHARS = 600  # at most 2,400 bytes of UTF-8: the cookie stays under 4 KB
_KEY = secrets.token_bytes(32)
_PATH = "/page"


def remember_notice(response: Response, notice: str) -> None:
    value = base64.urlsafe_b64encode(notice[:MAX_CHARS].encode()).decode().rstrip("=")
    response.set_cookie(COOKIE, f"{value}.{_signature(value)}", max_age=60, path=_PATH,
                        httponly=True, samesite="strict")  # fmt: skip


def notice_of(request: Request) -> str:
    """The notice this page set for the request's browser; "" when none (or not ours)."""
    value, _, signature = request.cookies.get(COOKIE, "").partition(".")
    if not value or not hmac.compare_digest(signature, _signature(value)):
        return ""
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        return ""


def forget_notice(response: Response) -> None:
    response.delete_cookie(COOKIE, path=_PATH, httponly=True, samesite="strict")


def _signature(value: str) -> str:
    return hmac.new(_KEY, value.encode(), hashlib.sha256).hexdigest()
