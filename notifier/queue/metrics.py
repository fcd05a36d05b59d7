"""Workqueue metrics on the default Prometheus registry, labeled by queue ``name``.

``name`` is the queue's purpose (one per kind or sink), never an object key:
``queue_counts`` rejects names that look like keys (``ns/name``) so the
label stays bounded.

Exposed (prefix ``kube_notifier_workqueue_``): ``adds_total``,
``retries_total``, ``drops_total`` (counters); ``queue_duration_seconds``
(add -> get) and ``work_duration_seconds`` (get -> done) (histograms);
``depth``, ``unfinished_work_seconds``, ``longest_running_processor_seconds``
(gauges).

Why a collector instead of prometheus_client's Counter and Histogram: those
take a lock of their own per increment, five per add/get/done, which cost
as much as the queue itself. Here each queue keeps plain running totals
(``QueueCounts``) that it updates under the lock it already holds, and one
registry collector reads them, under that same lock, when the registry is
scraped. Totals of a queue outlive the queue (counters never go back);
its gauges leave with it. Queues sharing a name add up, except the longest
running item, which is the longest of all.
"""

from __future__ import annotations

import re
import threading
import weakref
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from prometheus_client import REGISTRY
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.utils import floatToGoString

_PREFIX = "kube_notifier_workqueue"
_NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,62}")

# From sub-millisecond hand-offs to a stuck worker.
DURATION_BUCKETS = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 60.0, 300.0)
_BUCKET_LABELS = [*map(floatToGoString, DURATION_BUCKETS), "+Inf"]


class DurationHistogram:
    """Per-bucket (not cumulative) counts and the sum; the last bucket is +Inf."""

    __slots__ = ("buckets", "total")

    def __init__(self) -> None:
        self.buckets = [0] * (len(DURATION_BUCKETS) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.buckets[bisect_left(DURATION_BUCKETS, seconds)] += 1
        self.total += seconds

    def add(self, other: DurationHistogram) -> None:
        self.buckets = [a + b for a, b in zip(self.buckets, other.buckets, strict=True)]
        self.total += other.total

    def cumulative(self) -> list[tuple[str, float]]:
        running = 0
        pairs: list[tuple[str, float]] = []
        for label, count in zip(_BUCKET_LABELS, self.buckets, strict=True):
            running += count
            pairs.append((label, running))
        return pairs


@dataclass(slots=True, eq=False)
class QueueCounts:
    """Running totals of one queue. Every field is guarded by ``lock``, the queue's lock."""

    name: str
    lock: threading.Lock
    adds: int = 0
    retries: int = 0
    drops: int = 0
    queue_duration: DurationHistogram = field(default_factory=DurationHistogram)
    work_duration: DurationHistogram = field(default_factory=DurationHistogram)

    def add(self, other: QueueCounts) -> None:
        """Fold ``other`` (a snapshot nobody else holds) into these totals."""
        self.adds += other.adds
        self.retries += other.retries
        self.drops += other.drops
        self.queue_duration.add(other.queue_duration)
        self.work_duration.add(other.work_duration)


class QueueStats(NamedTuple):
    """A point-in-time view of one queue, for the gauges."""

    depth: int
    unfinished_work_seconds: float
    longest_running_seconds: float


class StatsSource(Protocol):
    @property
    def name(self) -> str: ...

    def stats(self) -> QueueStats: ...


def validate_queue_name(name: str) -> str:
    if not _NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"queue name {name!r} must match {_NAME_PATTERN.pattern}: it is a bounded metrics "
            "label (one per kind or sink), never an object key"
        )
    return name


class _QueueCollector:
    """Reads every queue's totals and every live queue's gauges at scrape time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: list[QueueCounts] = []
        self._live: weakref.WeakSet[StatsSource] = weakref.WeakSet()

    def register(self, counts: QueueCounts, source: StatsSource) -> None:
        with self._lock:
            self._counts.append(counts)
            self._live.add(source)

    def describe(self) -> Iterable[Metric]:
        # Lets the registry learn our names without calling collect() at registration.
        return [*_counter_families({}), *_gauge_families({})]

    def collect(self) -> Iterable[Metric]:
        with self._lock:
            counts = list(self._counts)
            live = list(self._live)
        return [*_counter_families(_totals_by_name(counts)), *_gauge_families(_stats_by_name(live))]


def _snapshot(counts: QueueCounts) -> QueueCounts:
    copy = QueueCounts(counts.name, counts.lock)
    with counts.lock:
        copy.add(counts)
    return copy


def _totals_by_name(all_counts: Iterable[QueueCounts]) -> dict[str, QueueCounts]:
    totals: dict[str, QueueCounts] = {}
    for counts in all_counts:
        snapshot = _snapshot(counts)
        if counts.name in totals:
            totals[counts.name].add(snapshot)
        else:
            totals[counts.name] = snapshot
    return totals


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


def _counter_families(totals: dict[str, QueueCounts]) -> list[Metric]:
    adds = CounterMetricFamily(f"{_PREFIX}_adds", "Keys accepted into the queue.", labels=["name"])
    retries = CounterMetricFamily(
        f"{_PREFIX}_retries", "Rate-limited re-adds of a key.", labels=["name"]
    )
    drops = CounterMetricFamily(
        f"{_PREFIX}_drops", "Keys dropped after reaching the retry limit.", labels=["name"]
    )
    queued = HistogramMetricFamily(
        f"{_PREFIX}_queue_duration_seconds",
        "Time from a key's add to the get that hands it to a worker.",
        labels=["name"],
    )
    worked = HistogramMetricFamily(
        f"{_PREFIX}_work_duration_seconds", "Time from a key's get to its done.", labels=["name"]
    )
    for name, counts in totals.items():
        adds.add_metric([name], counts.adds)
        retries.add_metric([name], counts.retries)
        drops.add_metric([name], counts.drops)
        _add_histogram(queued, name, counts.queue_duration)
        _add_histogram(worked, name, counts.work_duration)
    return [adds, retries, drops, queued, worked]


def _add_histogram(family: HistogramMetricFamily, name: str, hist: DurationHistogram) -> None:
    family.add_metric([name], buckets=hist.cumulative(), sum_value=hist.total)


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


_COLLECTOR = _QueueCollector()
REGISTRY.register(_COLLECTOR)


def queue_counts(source: StatsSource, lock: threading.Lock) -> QueueCounts:
    """New totals for ``source``, a queue guarded by ``lock``, reported from now on.

    The totals are kept after the queue is gone (a few hundred bytes per
    queue ever made); the gauges are read from ``source`` while it lives.
    """
    counts = QueueCounts(validate_queue_name(source.name), lock)
    _COLLECTOR.register(counts, source)
    return counts
