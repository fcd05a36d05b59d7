"""slack_sdk's clients, with the bytes carried by the sinks' ``Transport``.

slack_sdk sends with urllib, whose timeouts bound each socket read: a Slack
answer (or a proxy's) trickled a byte at a time kept a send going long past
``timeout_seconds``. slack_sdk builds the request, reads Slack's answer into
its ``SlackResponse``/``WebhookResponse`` and raises ``SlackApiError`` as
before; only the HTTP exchange goes through ``Transport``, which has one
deadline per send, bounded answers, and the same proxy rules as the webhook
sink. These override one method each of slack_sdk 3.x (pinned in
constraints.txt; a test per client runs them against a local Slack-shaped
server, so an upgrade that renames them fails): the Web API client's
``_perform_urllib_http_request_internal``, and the incoming webhook's
``send_dict``, which sends the JSON and headers slack_sdk's would (a test
compares the bytes) without its urllib request, retry loop and Block-object
conversion (our blocks are plain mappings): about 30 µs of a post's 190 here.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.request import Request

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient, WebhookResponse
from slack_sdk.webhook.internal_utils import _build_request_headers

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


def _exchange(
    carrier: Transport, data: bytes, headers: dict[str, str], query: str = ""
) -> tuple[int, dict[str, str], str]:
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
        data = req.data if isinstance(req.data, bytes) else b""
        headers = {name: str(value) for name, value in req.header_items()}
        status, answered, body = _exchange(carrier, data, headers, query)
        return {"status": status, "headers": answered, "body": body}


class TransportedWebhookClient(WebhookClient):
    """``WebhookClient`` (an incoming-webhook URL) posting through ``carrier``."""

    def __init__(self, carrier: Transport, **options: Any) -> None:
        super().__init__(carrier.url, **options)
        self._carrier = carrier

    def send_dict(
        self, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> WebhookResponse:
        """The body's set values as JSON, with slack_sdk's headers (named as urllib names
        them: ``Content-type``); any answer is returned, an exchange failure raised."""
        sent = {key: value for key, value in body.items() if value is not None}
        request_headers = _build_request_headers(self.default_headers, headers)
        named = {name.capitalize(): str(value) for name, value in request_headers.items()}
        data = json.dumps(sent).encode("utf-8")
        status, answered, text = _exchange(self._carrier, data, named)
        return WebhookResponse(url=self.url, status_code=status, body=text, headers=answered)
