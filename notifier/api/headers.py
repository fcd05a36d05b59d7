"""The security headers every HTTP answer carries, the page's views and everything else alike.

A Content-Security-Policy that allows scripts, styles and requests from the
page's own origin only (no inline script), no framing, forms posting only to
itself; no sniffing, no referrer to other origins, no caching, and no
powerful browser feature (Permissions-Policy). ``SecurityHeaders`` adds them
to every answer of the application it wraps: views, redirects, static files,
JSON errors, 404s, /healthz and /metrics.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
PERMISSIONS = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), bluetooth=(), "
    "display-capture=(), fullscreen=()"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "Permissions-Policy": PERMISSIONS,
}


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` on every HTTP answer of ``app`` (set, not appended)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
            await send(message)

        await self._app(scope, receive, send_with_headers)
