"""Workqueue metrics on the default Prometheus registry, labeled by queue ``name``.

``name`` is the queue's purpose (one per kind or sink), never an object key:
``queue_metrics`` rejects names that look like keys (``ns/name``) so the
label stays bounded.

Counters and histograms are updated on every operation through children
bound once per name, so the hot path skips the label lookup. The gauges
(depth, unfinished work, longest running item) cost nothing per operation:
they are computed from the live queues whenever the registry is read.
Queues sharing a name add up (depth, unfinished work) or take the maximum
(longest running item).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple, Protocol

from prometheus_client import REGISTRY, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

_PREFIX = "kube_notifier_workqueue"
_NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,62}")

# From sub-millisecond hand-offs to a stuck worker; few buckets keep observe() cheap.
_DURATION_BUCKETS = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 60.0, 300.0)

ADDS = Counter(f"{_PREFIX}_adds_total", "Keys accepted into the queue.", ["name"])
RETRIES = Counter(f"{_PREFIX}_retries_total", "Rate-limited re-adds of a key.", ["name"])
DROPS = Counter(f"{_PREFIX}_drops_total", "Keys dropped after reaching the retry limit.", ["name"])
QUEUE_DURATION = Histogram(
    f"{_PREFIX}_queue_duration_seconds",
    "Time from a key's add to the get that hands it to a worker.",
    ["name"],
    buckets=_DURATION_BUCKETS,
)
WORK_DURATION = Histogram(
    f"{_PREFIX}_work_duration_seconds",
    "Time from a key's get to its done.",
    ["name"],
    buckets=_DURATION_BUCKETS,
)


class QueueStats(NamedTuple):
    """A point-in-time view of one queue, for the gauges."""

    depth: int
    unfinished_work_seconds: float
    longest_running_seconds: float


class StatsSource(Protocol):
    @property
    def name(self) -> str: ...

    def stats(self) -> QueueStats: ...


@dataclass(frozen=True, slots=True)
class QueueMetrics:
    """The per-operation metrics of one queue name, label already bound."""

    adds: Counter
    retries: Counter
    drops: Counter
    queue_duration: Histogram
    work_duration: Histogram


def validate_queue_name(name: str) -> str:
    if not _NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"queue name {name!r} must match {_NAME_PATTERN.pattern}: it is a bounded metrics "
            "label (one per kind or sink), never an object key"
        )
    return name


@cache
def queue_metrics(name: str) -> QueueMetrics:
    validate_queue_name(name)
    return QueueMetrics(
        adds=ADDS.labels(name=name),
        retries=RETRIES.labels(name=name),
        drops=DROPS.labels(name=name),
        queue_duration=QUEUE_DURATION.labels(name=name),
        work_duration=WORK_DURATION.labels(name=name),
    )


class _LiveQueueGauges:
    """A registry collector reading the gauges from every queue still alive."""

    def __init__(self) -> None:
        self._sources: weakref.WeakSet[StatsSource] = weakref.WeakSet()
        self._lock = threading.Lock()

    def track(self, source: StatsSource) -> None:
        with self._lock:
            self._sources.add(source)

    def describe(self) -> Iterable[Metric]:
        # Lets the registry learn our names without calling collect() at registration.
        return _gauge_families({})

    def collect(self) -> Iterable[Metric]:
        with self._lock:
            sources = list(self._sources)
        return _gauge_families(_stats_by_name(sources))


def _stats_by_name(sources: Iterable[StatsSource]) -> dict[str, QueueStats]:
    merged: dict[str, QueueStats] = {}
    for source in sources:
        stats = source.stats()
        previous = merged.get(source.name)
        merged[source.name] = stats if previous is None else _merge(previous, stats)
    return merged


def _merge(a: QueueStats, b: QueueStats) -> QueueStats:
    return QueueStats(
        depth=a.depth + b.depth,
        unfinished_work_seconds=a.unfinished_work_seconds + b.unfinished_work_seconds,
        longest_running_seconds=max(a.longest_running_seconds, b.longest_running_seconds),
    )


def _gauge_families(stats_by_name: dict[str, QueueStats]) -> list[Metric]:
    depth = GaugeMetricFamily(f"{_PREFIX}_depth", "Keys waiting in the queue.", labels=["name"])
    unfinished = GaugeMetricFamily(
        f"{_PREFIX}_unfinished_work_seconds",
        "Seconds of work in progress that done() has not yet closed, summed over keys.",
        labels=["name"],
    )
    longest = GaugeMetricFamily(
        f"{_PREFIX}_longest_running_processor_seconds",
        "Seconds the longest-running key in progress has been running.",
        labels=["name"],
    )
    for name, stats in stats_by_name.items():
        depth.add_metric([name], stats.depth)
        unfinished.add_metric([name], stats.unfinished_work_seconds)
        longest.add_metric([name], stats.longest_running_seconds)
    return [depth, unfinished, longest]


_LIVE_QUEUES = _LiveQueueGauges()
REGISTRY.register(_LIVE_QUEUES)


def track_gauges(source: StatsSource) -> None:
    """Report ``source``'s gauges on every registry read, for as long as it lives."""
    _LIVE_QUEUES.track(source)
