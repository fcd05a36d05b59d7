"""slack_sdk's clients, with the bytes carried by the sinks' ``Transport``.

slack_sdk sends with urllib, whose timeouts bound each socket read: a Slack
answer (or a proxy's) trickled a byte at a time kept a send going long past
``timeout_seconds``. slack_sdk builds the request, reads Slack's answer into
its ``SlackResponse``/``WebhookResponse`` and raises ``SlackApiError`` as
before; only the HTTP exchange goes through ``Transport``, which has one
deadline per send, bounded answers, and the same proxy rules as the webhook
sink. These override one method each of slack_sdk 3.x (its internal
``_perform_*_internal``, pinned in constraints.txt; a test per client runs
them against a local Slack-shaped server, so an upgrade that renames them fails).
"""

from __future__ import annotations

from typing import Any
from urllib.request import Request

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient, WebhookResponse

from notifier.sinks.transport import Transport

MAX_ANSWER_BYTES = 1024 * 1024  # chat.postMessage echoes the message back: blocks and all


def transport(url: str, timeout: float, proxy: str | None) -> Transport:
    """Each wait is bounded by ``timeout``; a whole send, however trickled, by a second more."""
    return Transport(
        url,
        connect_timeout=min(timeout, 3.0),
        read_timeout=timeout,
        deadline=timeout + 1.0,
        proxy=proxy,
        max_body=MAX_ANSWER_BYTES,
    )


def _exchange(carrier: Transport, req: Request, query: str = "") -> tuple[int, dict[str, str], str]:
    headers = {name: str(value) for name, value in req.header_items()}
    data = req.data if isinstance(req.data, bytes) else b""
    if query and not data:  # a GET method's arguments: Slack takes every method as a form POST
        data = query.encode()
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    reply = carrier.post(data, headers)
    return reply.status, reply.headers, reply.body.decode("utf-8", errors="replace")


class TransportedWebClient(WebClient):
    """``WebClient`` whose API calls travel through ``carrier`` (one URL per method)."""

    def __init__(self, carriers: dict[str, Transport], **options: Any) -> None:
        super().__init__(**options)
        self._carriers = carriers

    def _perform_urllib_http_request_internal(self, url: str, req: Request) -> dict[str, Any]:
        base, _, query = url.partition("?")
        carrier = self._carriers.get(base)
        if carrier is None:
            raise ValueError(f"no transport for {base}")
        status, headers, body = _exchange(carrier, req, query)
        return {"status": status, "headers": headers, "body": body}


class TransportedWebhookClient(WebhookClient):
    """``WebhookClient`` (an incoming-webhook URL) posting through ``carrier``."""

    def __init__(self, carrier: Transport, **options: Any) -> None:
        super().__init__(carrier.url, **options)
        self._carrier = carrier

    def _perform_http_request_internal(self, url: str, req: Request) -> WebhookResponse:
        status, headers, body = _exchange(self._carrier, req)
        return WebhookResponse(url=url, status_code=status, body=body, headers=headers)
