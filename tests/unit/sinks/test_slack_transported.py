"""The incoming webhook sends the very request slack_sdk's own client would: body bytes and
headers, though it skips slack_sdk's urllib request (``transported.send_dict``)."""

from __future__ import annotations

from typing import Any
from urllib.request import Request

import pytest
from slack_sdk.webhook import WebhookClient, WebhookResponse

from notifier.sinks.slack.transported import TransportedWebhookClient
from notifier.sinks.transport import Reply, Transport

URL = "https://hooks.slack.example/services/T/B/x"


class _Recorded(Transport):
    """A transport that keeps what it was asked to post and answers 200 ``ok``."""

    def __init__(self) -> None:
        super().__init__(URL, connect_timeout=1.0, read_timeout=1.0, deadline=2.0)
        self.posted: list[tuple[bytes, dict[str, str]]] = []

    def post(self, body: bytes, headers: dict[str, str], *, url: str | None = None) -> Reply:
        self.posted.append((body, headers))
        return Reply(200, None, b"ok")


class _Stock(WebhookClient):
    """slack_sdk's client as shipped, stopped where urllib would send: what it would send."""

    sent: list[tuple[bytes, dict[str, str]]]

    def _perform_http_request_internal(self, url: str, req: Request) -> WebhookResponse:
        assert isinstance(req.data, bytes)
        self.sent = [(req.data, {name: str(value) for name, value in req.header_items()})]
        return WebhookResponse(url=url, status_code=200, body="ok", headers={})


MESSAGES: list[dict[str, Any]] = [
    {"text": "plain"},
    {"text": "a <b> & é \u202e ✓", "blocks": [{"type": "section", "text": {"type": "mrkdwn",
                                                                              "text": "*x*"}}]},
    {"text": "with a header of its own", "headers": {"X-Extra": "1", "user-agent": "mine"}},
]  # fmt: skip


@pytest.mark.parametrize("message", MESSAGES, ids=["text", "blocks", "headers"])
def test_the_request_is_slack_sdks_own(message: dict[str, Any]) -> None:
    carrier = _Recorded()
    ours = TransportedWebhookClient(carrier, timeout=1, retry_handlers=[])
    stock = _Stock(URL, timeout=1, retry_handlers=[])

    answer = ours.send(**message)
    stock.send(**message)

    assert carrier.posted == stock.sent
    assert (answer.status_code, answer.body) == (200, "ok")
