"""The two ways to post to Slack, behind one ``post(text, blocks, thread_ts) -> ts``.

``ApiPoster``: ``chat.postMessage`` with a bot token through slack_sdk's
``WebClient``; returns the message ``ts`` (so replies can thread).
``IncomingWebhookPoster``: an incoming-webhook URL through ``WebhookClient``;
Slack returns no ``ts`` there, so it cannot thread. Both clients send through
the sinks' ``Transport`` (``transported``): one deadline per send, the
webhook sink's proxy rules; a failure below HTTP is classified as the
webhook sink's are.

slack_sdk's own retry handlers are turned off (delivery owns retries) and
its logger is silenced: at debug level it would log the token and the
webhook URL.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any, Protocol

from slack_sdk.errors import SlackApiError

from notifier.sinks.base import Verdict
from notifier.sinks.slack.checking import check_slack
from notifier.sinks.slack.failures import failure_for_response
from notifier.sinks.slack.transported import (
    TransportedWebClient,
    TransportedWebhookClient,
    transport,
)
from notifier.sinks.webhook.failures import failure_for_exception

_sdk_log = logging.getLogger("notifier.sinks.slack.sdk")
_sdk_log.setLevel(logging.CRITICAL)

Blocks = list[dict[str, Any]]
_METHODS = ("chat.postMessage", "chat.update", "auth.test", "conversations.info",
            "conversations.list")  # fmt: skip


class Poster(Protocol):
    @property
    def can_thread(self) -> bool: ...

    def post(self, text: str, blocks: Blocks, thread_ts: str | None) -> str | None: ...

    def update(self, ts: str, text: str, blocks: Blocks) -> None: ...

    def check(self) -> Verdict: ...


class ApiPoster:
    def __init__(
        self,
        *,
        token: str,
        channel: str,
        base_url: str,
        timeout: float,
        proxy: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._channel = channel
        self._clock = clock
        base = base_url if base_url.endswith("/") else f"{base_url}/"
        carriers = [transport(f"{base}{method}", timeout, proxy) for method in _METHODS]
        self._channel_id: str | None = None  # chat.update wants the ID; posts tell it
        self._client = TransportedWebClient(
            {carrier.url: carrier for carrier in carriers},
            token=token,
            base_url=base,
            timeout=math.ceil(timeout),
            retry_handlers=[],
            logger=_sdk_log,
        )

    @property
    def can_thread(self) -> bool:
        return True

    def check(self) -> Verdict:
        """The token and the channel, checked without posting (``checking``)."""
        return check_slack(self._client, self._channel)

    def post(self, text: str, blocks: Blocks, thread_ts: str | None) -> str | None:
        response = self._call(
            lambda: self._client.chat_postMessage(
                channel=self._channel, text=text, blocks=blocks or None, thread_ts=thread_ts
            )
        )
        channel = response.get("channel")
        if isinstance(channel, str):
            self._channel_id = channel
        ts = response.get("ts")
        return ts if isinstance(ts, str) else None

    def update(self, ts: str, text: str, blocks: Blocks) -> None:
        """Replace the message ``ts`` (a thread's first one) with this text and blocks."""
        channel = self._channel_id or self._channel
        self._call(
            lambda: self._client.chat_update(
                channel=channel, ts=ts, text=text, blocks=blocks or None
            )
        )

    def _call(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except SlackApiError as err:
            status, data = err.response.status_code, err.response.data
            error = str(data.get("error", "")) if isinstance(data, dict) else ""
            raise failure_for_response(
                status, error, err.response.headers, now=self._clock()
            ) from None
        except Exception as err:  # what the transport raised: a timeout, a refusal, a proxy
            raise failure_for_exception(err, "slack") from None


class IncomingWebhookPoster:
    def __init__(
        self,
        *,
        url: str,
        timeout: float,
        proxy: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._clock = clock
        self._carrier = transport(url, timeout, proxy)
        self._client = TransportedWebhookClient(
            self._carrier, timeout=math.ceil(timeout), retry_handlers=[], logger=_sdk_log
        )

    @property
    def can_thread(self) -> bool:
        return False

    def check(self) -> Verdict:
        return Verdict(None, "an incoming webhook cannot be checked without posting")

    def update(self, ts: str, text: str, blocks: Blocks) -> None:
        raise NotImplementedError("an incoming webhook cannot update a message")

    def post(self, text: str, blocks: Blocks, thread_ts: str | None) -> str | None:
        try:
            response = self._client.send(text=text, blocks=blocks or None)
        except Exception as err:  # what the transport raised
            raise failure_for_exception(err, "slack webhook") from None
        if response.status_code != 200:
            raise failure_for_response(
                response.status_code, response.body or "", response.headers, now=self._clock()
            )
        return None
