"""Building deliveries against the loopback servers, with fast retries, and reading metrics."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import REGISTRY

from notifier.delivery import Delivery, DeliveryTarget
from notifier.notifications import Notification
from notifier.sinks.config import DeliveryOptions
from notifier.sinks.slack.posting import ApiPoster
from notifier.sinks.slack.sink import SlackSink
from notifier.sinks.thread_roots import ThreadStore
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget
from tests.support.slack_server import TOKEN, SlackServer
from tests.support.webhook_server import ReceivedRequest
from tests.unit.sinks.factories import key_of, notification

_names = itertools.count(1)

FAST = {"backoff_initial_seconds": 0.05, "backoff_max_seconds": 0.4}


def unique(prefix: str) -> str:
    """A sink name no other test uses, so metric samples are this test's alone."""
    return f"{prefix}-{next(_names)}"


def webhook_target(
    url: str, name: str, *, read_timeout: float = 5.0, **options: Any
) -> DeliveryTarget:
    sink = WebhookSink(name, WebhookTarget(url=url, read_timeout=read_timeout))
    settings = DeliveryOptions(**{"concurrency": 2, **FAST, **options})
    return DeliveryTarget(sink, settings, pacing_group=name)


def slack_target(
    slack: SlackServer, name: str, *, threads: ThreadStore | None = None, **options: Any
) -> DeliveryTarget:
    poster = ApiPoster(token=TOKEN, channel="#ops", base_url=slack.api_url, timeout=5.0)
    sink = SlackSink(name, poster, threads=threads, thread_scope=f"{name}@#ops")
    settings = DeliveryOptions(**{"concurrency": 1, "min_interval_seconds": 0.1, **FAST, **options})
    return DeliveryTarget(sink, settings, pacing_group="slack:#ops")


def metric(name: str, sink: str, integration: str = "webhook", **labels: str) -> float:
    value = REGISTRY.get_sample_value(
        f"kube_notifier_delivery_{name}", {"integration": integration, "sink": sink, **labels}
    )
    return value or 0.0


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def delivered_ids(requests: list[ReceivedRequest]) -> list[str]:
    """Idempotency keys of the requests answered 2xx, in arrival order."""
    return [r.header("Idempotency-Key") or "" for r in requests if 200 <= r.status < 300]


def ids_per_key(requests: list[ReceivedRequest]) -> dict[str, list[str]]:
    """Per ordering key (the payload's object), the ids delivered, in arrival order."""
    order: dict[str, list[str]] = {}
    for request in requests:
        if 200 <= request.status < 300:
            order.setdefault(key_of(request.json()), []).append(
                request.header("Idempotency-Key") or ""
            )
    return order


def started(stoppers: list[Delivery], delivery: Delivery) -> Delivery:
    """``delivery``, started; the ``stoppers`` fixture stops it after the test."""
    delivery.start()
    stoppers.append(delivery)
    return delivery


def burst(sink: str, count: int, keys: int) -> list[Notification]:
    return [notification(sink, key=f"Pod/default/web-{n % keys}") for n in range(count)]


def expected_per_key(notes: list[Notification]) -> dict[str, list[str]]:
    order: dict[str, list[str]] = {}
    for note in notes:
        order.setdefault(note.ordering_key, []).append(note.id)
    return order


def all_delivered(notes: list[Notification]) -> Callable[[list[ReceivedRequest]], bool]:
    wanted = {note.id for note in notes}
    return lambda requests: wanted <= set(delivered_ids(requests))
