"""Notifications for tests, with ids and ordering keys that say what they are."""

from __future__ import annotations

import itertools
import time
from typing import Any

from notifier.notifications import Facts, Notification

_ids = itertools.count(1)


def notification(
    sink: str = "hook",
    *,
    key: str = "Pod/default/web-1",
    text: str = "web-1 is CrashLoopBackOff",
    facts: Facts | None = None,
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
        facts={**facts_of(key, text, number), **(facts or {})},
        observed_at=time.time() if observed_at is None else observed_at,
        thread_key=thread_key,
        resolves=resolves,
        closes_thread=closes_thread,
    )


def facts_of(key: str, summary: str, number: int = 0) -> Facts:
    """Facts of an object ``Kind/namespace/name`` with ``summary``; ``number`` its test's."""
    kind, _, rest = key.partition("/")
    namespace, _, name = rest.partition("/")
    return {
        "rule": "pod-crash", "kind": kind, "namespace": namespace, "name": name,
        "key": f"{namespace}/{name}", "summary": summary, "transition": "Running -> Failed",
        "severity": "critical", "status": "firing", "details": [], "count": number,
    }  # fmt: skip


def key_of(body: dict[str, Any]) -> str:
    """The ``Kind/namespace/name`` a webhook's JSON body (kube-notifier/v1) is about."""
    found = body["object"]
    return "/".join(part for part in (found["kind"], found["namespace"], found["name"]) if part)
