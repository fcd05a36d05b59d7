"""The two ways to post to Slack, behind one ``post(text, blocks, thread_ts) -> ts``.

``ApiPoster``: ``chat.postMessage`` with a bot token through slack_sdk's
``WebClient``; returns the message ``ts`` (so replies can thread).
``IncomingWebhookPoster``: an incoming-webhook URL through ``WebhookClient``;
Slack returns no ``ts`` there, so it cannot thread.

slack_sdk's own retry handlers are turned off (delivery owns retries) and
its logger is silenced: at debug level it would log the token and the
webhook URL.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from http.client import HTTPException
from typing import Any, Protocol

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from notifier.sinks.proxies import proxy_for
from notifier.sinks.slack.failures import failure_for_exception, failure_for_response

_sdk_log = logging.getLogger("notifier.sinks.slack.sdk")
_sdk_log.setLevel(logging.CRITICAL)

Blocks = list[dict[str, Any]]


class Poster(Protocol):
    @property
    def can_thread(self) -> bool: ...

    def post(self, text: str, blocks: Blocks, thread_ts: str | None) -> str | None: ...


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
        self._client = WebClient(
            token=token,
            base_url=base_url if base_url.endswith("/") else f"{base_url}/",
            timeout=math.ceil(timeout),
            retry_handlers=[],
            logger=_sdk_log,
        )
        # slack_sdk reads HTTPS_PROXY but not NO_PROXY: decide as the webhook sink does.
        self._client.proxy = proxy_for(base_url, proxy)

    @property
    def can_thread(self) -> bool:
        return True

    def post(self, text: str, blocks: Blocks, thread_ts: str | None) -> str | None:
        try:
            response = self._client.chat_postMessage(
                channel=self._channel, text=text, blocks=blocks or None, thread_ts=thread_ts
            )
        except SlackApiError as err:
            status, data = err.response.status_code, err.response.data
            error = str(data.get("error", "")) if isinstance(data, dict) else ""
            raise failure_for_response(
                status, error, err.response.headers, now=self._clock()
            ) from None
        except (OSError, HTTPException) as err:
            raise failure_for_exception(err) from None
        ts = response.get("ts")
        return ts if isinstance(ts, str) else None


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
        self._client = WebhookClient(
            url, timeout=math.ceil(timeout), retry_handlers=[], logger=_sdk_log
        )
        self._client.proxy = proxy_for(url, proxy)

    @property
    def can_thread(self) -> bool:
        return False

    def post(self, text: str, blocks: Blocks, thread_ts: str | None) -> str | None:
        try:
            response = self._client.send(text=text, blocks=blocks or None)
        except (OSError, HTTPException) as err:
            raise failure_for_exception(err) from None
        if response.status_code != 200:
            raise failure_for_response(
                response.status_code, response.body or "", response.headers, now=self._clock()
            )
        return None
