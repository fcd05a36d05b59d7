"""``PostingSink``: the receivers that are one JSON POST per notification, told apart by a shape.

A ``Shape`` says what one receiver's service takes: the body (and, for a
resolution that goes elsewhere, the URL) for a notification, what it
supports, and, for a service that threads by the id of the first message
(Telegram), that id read from the answer. The sink posts through the shared
``Transport`` (proxies, TLS, mTLS, one deadline, bounded answers), keeps
thread roots per fingerprint in the ``ThreadStore`` when the shape threads,
and classifies failures as the webhook sink does. Thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.http import post
from notifier.sinks.showing import shown
from notifier.sinks.thread_roots import ThreadStore
from notifier.sinks.transport import Reply, Transport

_LOCK_STRIPES = 16


@dataclass(frozen=True, slots=True)
class Post:
    body: dict[str, Any]
    url: str | None = None  # None: the sink's URL; else one on its scheme, host and port
    headers: dict[str, str] = field(default_factory=dict)


class Shape(Protocol):
    @property
    def integration(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def post_for(self, notification: Notification, root: str | None) -> Post:
        """What to send; ``root`` is the thread's first message id, when there is one."""
        ...

    def root_of(self, reply: Reply) -> str | None:
        """The id a follow-up replies to, from the first message's answer (None: no threads)."""
        ...


class PostingSink:
    def __init__(
        self,
        name: str,
        shape: Shape,
        transport: Transport,
        *,
        headers: dict[str, str] | None = None,
        threads: ThreadStore | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._name = name
        self._shape = shape
        self._transport = transport
        self._headers = dict(headers or {})
        self._threads = threads  # given to shapes whose service threads by the first message's id
        self._scope = f"{name}@{shape.integration}"
        self._clock = clock
        self._stripes = tuple(threading.Lock() for _ in range(_LOCK_STRIPES))

    @property
    def name(self) -> str:
        return self._name

    @property
    def integration(self) -> str:
        return self._shape.integration

    @property
    def capabilities(self) -> Capabilities:
        return self._shape.capabilities

    def preview(self, notification: Notification) -> str:
        return shown(self._shape.post_for(notification, None).body)

    def send(self, notification: Notification) -> None:
        if self._threads is None:
            self._post(self._shape.post_for(notification, None))
            return
        key = notification.fingerprint or notification.id
        with self._stripes[hash(key) % _LOCK_STRIPES]:
            root = self._threads.thread_ts(self._scope, key)
            reply = self._post(self._shape.post_for(notification, root))
            first = self._shape.root_of(reply) if root is None else None
            if first is not None:
                self._threads.remember_thread(self._scope, key, first)

    def close(self) -> None:
        self._transport.close()

    def _post(self, sent: Post) -> Reply:
        body = msgspec.json.encode(sent.body)
        headers = {**self._headers, **sent.headers}
        return post(self._transport, body, headers, clock=self._clock, url=sent.url)
