"""Delivery metrics, labelled by ``integration`` (the receiver's type, one of
``sinks.registry.RECEIVERS``) and ``sink``.

Sink names come from the config, so labels stay bounded; ``reason`` labels
are ``SendError`` reasons (bounded by contract) or ``max_attempts`` /
``max_age``. Queue depth and the oldest item's age are read from the live
queues at scrape time; two queues of one sink (during a config reload) add up.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import NamedTuple, Protocol

from prometheus_client import REGISTRY, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

_LABELS = ["integration", "sink"]

SENT = Counter("kube_notifier_delivery_sent_total", "Notifications delivered.", _LABELS)
FAILED = Counter(
    "kube_notifier_delivery_failed_total", "Send attempts that failed.", [*_LABELS, "reason"]
)
RETRIED = Counter(
    "kube_notifier_delivery_retried_total", "Failed attempts scheduled to be tried again.", _LABELS
)
DROPPED = Counter(
    "kube_notifier_delivery_dropped_total",
    "Notifications lost: queue full or stopped with no outbox, or an unknown sink.",
    [*_LABELS, "reason"],
)
SPILLED = Counter(
    "kube_notifier_delivery_spilled_total",
    "Notifications left in the outbox because the queue was full; loaded back when it drains.",
    _LABELS,
)
DEAD_LETTERED = Counter(
    "kube_notifier_delivery_dead_lettered_total",
    "Notifications given up on (permanent error, too many attempts, too old).",
    [*_LABELS, "reason"],
)
LATENCY = Histogram(
    "kube_notifier_delivery_latency_seconds",
    "Seconds from the change being observed to the notification being delivered.",
    _LABELS,
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800),
)


class QueueView(Protocol):
    @property
    def integration(self) -> str: ...

    @property
    def sink_name(self) -> str: ...

    def depth(self) -> int: ...

    def oldest_age(self) -> float: ...

    def longest_send(self) -> float: ...


class _QueueCollector(Collector):
    def __init__(self) -> None:
        self._views: list[QueueView] = []
        self._lock = threading.Lock()

    def track(self, view: QueueView) -> None:
        with self._lock:
            self._views.append(view)

    def untrack(self, view: QueueView) -> None:
        with self._lock:
            self._views = [tracked for tracked in self._views if tracked is not view]

    def describe(self) -> Iterator[Metric]:
        yield from self._families({}, {})

    def collect(self) -> Iterator[Metric]:
        depths: dict[tuple[str, str], float] = {}
        ages: dict[tuple[str, str], float] = {}
        sends: dict[tuple[str, str], float] = {}
        with self._lock:
            views = list(self._views)
        for view in views:
            labels = (view.integration, view.sink_name)
            depths[labels] = depths.get(labels, 0) + view.depth()
            ages[labels] = max(ages.get(labels, 0.0), view.oldest_age())
            sends[labels] = max(sends.get(labels, 0.0), view.longest_send())
        yield from self._families(depths, ages, sends)

    def _families(
        self,
        depths: dict[tuple[str, str], float],
        ages: dict[tuple[str, str], float],
        sends: dict[tuple[str, str], float] | None = None,
    ) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "kube_notifier_delivery_queue_depth",
            "Notifications waiting for a sink, in memory and left in the outbox.",
            labels=_LABELS,
        )
        age = GaugeMetricFamily(
            "kube_notifier_delivery_oldest_item_age_seconds",
            "Age of the oldest notification waiting in a sink's queue.",
            labels=_LABELS,
        )
        send = GaugeMetricFamily(
            "kube_notifier_delivery_longest_send_seconds",
            "How long the oldest send now in flight has been waiting for its sink (0: none).",
            labels=_LABELS,
        )
        for labels, value in depths.items():
            depth.add_metric(list(labels), value)
        for labels, value in ages.items():
            age.add_metric(list(labels), value)
        for labels, value in (sends or {}).items():
            send.add_metric(list(labels), value)
        yield depth
        yield age
        yield send


QUEUES = _QueueCollector()
REGISTRY.register(QUEUES)


class SinkLabels(NamedTuple):
    integration: str
    sink: str
