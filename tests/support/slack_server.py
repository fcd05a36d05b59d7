"""A Slack stand-in on 127.0.0.1: the Web API's ``chat.postMessage`` and an incoming webhook.

A start-up check's calls are answered too: ``auth.test`` (``TOKEN`` only),
``conversations.list`` (one channel, ``#ops`` = ``CHANNEL_ID``) and
``conversations.info`` (``channel_not_found`` for any other ID).

``chat.postMessage`` (at ``api_url``, token ``TOKEN``) answers like Slack:
``{"ok": true, "channel", "ts"}`` on success, ``{"ok": false, "error"}``
otherwise (``invalid_auth`` for a wrong token). The incoming webhook (at
``webhook_url``) answers ``ok`` or an error code as text with a 4xx status,
as Slack does. Failures are scripted and apply to whichever endpoint is
called next: ``fail("channel_not_found")``, ``rate_limit(retry_after=3)``,
``server_error(500)``, ``hang()``. Successful posts are in ``messages()``.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qs

from tests.support.webhook_server import HANG, LoopbackServer, ReceivedRequest, Reply

TOKEN = "xoxb-test-token"
CHANNEL_ID = "C0TESTCHAN"
CHANNEL_NAME = "ops"  # what conversations.list shows: "#ops" exists

_WEBHOOK_PATH = "/services/T000/B000/secret"
_WEBHOOK_STATUS = {
    "channel_not_found": 404,
    "no_service": 404,
    "channel_is_archived": 410,
    "invalid_token": 403,
    "action_prohibited": 403,
}


@dataclass(frozen=True)
class PostedMessage:
    text: str
    blocks: list[dict[str, Any]] | None
    channel: str | None  # None for the incoming webhook
    thread_ts: str | None
    ts: str | None
    arrived_at: float


@dataclass(frozen=True)
class _Failure:
    error: str
    status: int
    retry_after: int | None = None
    hang: bool = False
    trickle: bool = False


class SlackServer(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(self._respond)
        self._failures: deque[_Failure] = deque()
        self._messages: list[PostedMessage] = []
        self._updates: list[tuple[str, str]] = []
        self._ts = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    @property
    def webhook_url(self) -> str:
        return f"{self.base_url}{_WEBHOOK_PATH}"

    def fail(self, error: str, *, times: int = 1) -> None:
        self._script(_Failure(error, 200), times)

    def rate_limit(self, retry_after: int, *, times: int = 1) -> None:
        self._script(_Failure("ratelimited", 429, retry_after), times)

    def server_error(self, status: int = 500, *, times: int = 1) -> None:
        self._script(_Failure("internal_error", status), times)

    def trickle(self, *, times: int = 1) -> None:
        """A successful answer sent a byte at a time (as a broken proxy has been seen to)."""
        self._script(_Failure("", 200, trickle=True), times)

    def hang(self, *, times: int = 1) -> None:
        self._script(_Failure("", 0, hang=True), times)

    def messages(self) -> list[PostedMessage]:
        with self._lock:
            return list(self._messages)

    def _script(self, failure: _Failure, times: int) -> None:
        with self._lock:
            self._failures.extend([failure] * times)

    def updates(self) -> list[tuple[str, str]]:
        """``chat.update`` calls: (ts, text)."""
        with self._lock:
            return list(self._updates)

    def _respond(self, request: ReceivedRequest) -> Reply:
        if request.path.startswith("/api/chat.update"):
            return self._update(request)
        if request.path.startswith(("/api/auth.test", "/api/conversations.")):
            return self._check(request)
        return self._message(request)

    def _message(self, request: ReceivedRequest) -> Reply:
        is_api = request.path.startswith("/api/chat.postMessage")
        if is_api and request.header("Authorization") != f"Bearer {TOKEN}":
            return _api_error(_Failure("invalid_auth", 200))
        with self._lock:
            failure = self._failures.popleft() if self._failures else None
        if failure is not None:
            if failure.hang:
                return HANG
            if failure.trickle:  # padded: 50 more bytes, 10 s at the trickle's pace
                answer = self._post(request, is_api)
                return replace(answer, body=answer.body + b" " * 50, trickle=True)
            return _api_error(failure) if is_api else _webhook_error(failure)
        return self._post(request, is_api)

    def _check(self, request: ReceivedRequest) -> Reply:
        """auth.test and the channel lookups a start-up check makes (form-encoded, as Slack)."""
        if request.header("Authorization") != f"Bearer {TOKEN}":
            return _api_error(_Failure("invalid_auth", 200))
        fields = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        if request.path.startswith("/api/auth.test"):
            return _json(200, {"ok": True, "user": "kube-notifier", "team": "Test"})
        if request.path.startswith("/api/conversations.info"):
            if fields.get("channel") != CHANNEL_ID:
                return _api_error(_Failure("channel_not_found", 200))
            return _json(200, {"ok": True, "channel": {"id": CHANNEL_ID, "name": CHANNEL_NAME}})
        channels = [{"id": CHANNEL_ID, "name": CHANNEL_NAME}]
        return _json(200, {"ok": True, "channels": channels, "response_metadata": {}})

    def _update(self, request: ReceivedRequest) -> Reply:
        """chat.update: needs the channel's ID (as Slack does) and a ts it gave out."""
        if request.header("Authorization") != f"Bearer {TOKEN}":
            return _api_error(_Failure("invalid_auth", 200))
        fields = request.json()
        with self._lock:
            known = {m.ts for m in self._messages}
            if fields.get("channel") != CHANNEL_ID:
                return _api_error(_Failure("channel_not_found", 200))
            if fields.get("ts") not in known:
                return _api_error(_Failure("message_not_found", 200))
            self._updates.append((fields["ts"], fields.get("text", "")))
        return _json(200, {"ok": True, "channel": CHANNEL_ID, "ts": fields["ts"]})

    def _post(self, request: ReceivedRequest, is_api: bool) -> Reply:
        fields = request.json()
        ts = f"1700000000.{next(self._ts):06d}" if is_api else None
        message = PostedMessage(
            text=fields.get("text", ""),
            blocks=fields.get("blocks"),
            channel=fields.get("channel") if is_api else None,
            thread_ts=fields.get("thread_ts"),
            ts=ts,
            arrived_at=request.arrived_at,
        )
        with self._lock:
            self._messages.append(message)
        if not is_api:
            return Reply(200, b"ok", {"Content-Type": "text/html"})
        return _json(200, {"ok": True, "channel": CHANNEL_ID, "ts": ts})


def _api_error(failure: _Failure) -> Reply:
    reply = _json(failure.status, {"ok": False, "error": failure.error})
    if failure.retry_after is None:
        return reply
    return Reply(
        reply.status, reply.body, {**reply.headers, "Retry-After": str(failure.retry_after)}
    )


def _webhook_error(failure: _Failure) -> Reply:
    status = failure.status if failure.status != 200 else _WEBHOOK_STATUS.get(failure.error, 400)
    headers = {"Content-Type": "text/html"}
    if failure.retry_after is not None:
        headers["Retry-After"] = str(failure.retry_after)
    return Reply(status, failure.error.encode(), headers)


def _json(status: int, document: dict[str, Any]) -> Reply:
    return Reply(status, json.dumps(document).encode(), {"Content-Type": "application/json"})
