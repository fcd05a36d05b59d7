"""Notifications for tests, with ids and ordering keys that say what they are."""

from __future__ import annotations

import itertools
import time
from typing import Any

from notifier.notifications import Message, Notification

_ids = itertools.count(1)


def notification(
    sink: str = "hook",
    *,
    key: str = "Pod/default/web-1",
    text: str = "web-1 is CrashLoopBackOff",
    payload: dict[str, Any] | None = None,
    blocks: tuple[dict[str, Any], ...] = (),
    thread_key: str | None = None,
    observed_at: float | None = None,
    id: str | None = None,
    resolves: bool = False,
    closes_thread: bool = False,
) -> Notification:
    number = next(_ids)
    return Notification(
        id=id or f"n-{number}",
        sink=sink,
        rule="pod-crash",
        ordering_key=key,
        message=Message(text=text, blocks=blocks, payload=payload or {"n": number, "key": key}),
        observed_at=time.time() if observed_at is None else observed_at,
        thread_key=thread_key,
        resolves=resolves,
        closes_thread=closes_thread,
    )
