"""Scoring one trial: which changes were told, how late, and what was lost. Pure.

A *change* is one label patch ``seq=<n>`` on one churn Pod, with the time
the client sent it and the time the API server answered. An *arrival* is a
webhook request naming a Pod and the ``seq`` label it saw.

- **told exactly**: an arrival names that Pod and that seq. Its latency is
  the first such arrival minus the send time (``latency``: the send time
  bounds the API server's acceptance from below, so this never flatters)
  and minus the time the API server's answer was read (``after_answer``:
  bounds acceptance from above, so this may flatter a little; it can be
  negative when the watch event beats the answer to its reader).
- **coalesced**: no arrival names that seq, but one names a later seq of
  the same Pod. The notification that came told the newer state; kube-
  notifier's workqueue folds changes to one object that arrive faster than
  it processes them (by design), so this is not counted as loss.
- **lost**: accepted by the API server (2xx) and neither of the above.
- **duplicates**: arrivals beyond the first for one (Pod, seq).

Changes the API server refused are counted as ``rejected`` and expected by
nobody.

A *mention* is a webhook request naming a churn Pod but no seq: kubewatch's
payload (``eventmeta``: kind, namespace, name, reason "Updated") carries no
labels. kubewatch posts once per watch event, in the order of its queue, so
``match_mentions`` turns mentions into arrivals first in, first out: per
Pod, each mention (in arrival order) tells the earliest accepted change of
that Pod, sent before it arrived, that no earlier mention told. Those
arrivals are then scored like the others; a mention with no such change
left is not an arrival (the trial counts it, ``unmatched``). Two patches to
one Pod that the API server accepts in the other order than they were sent
(only when a Pod is patched faster than a write takes) swap their two
latencies, nothing more.

With the watch floor's arrivals (``watchfloor``): ``watch_latency`` is send
-> a bare watcher (the control plane's part), ``added`` is that watcher's
arrival -> the webhook's (the subject's part), and ``watch_missed`` counts
accepted changes the watcher never saw.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

Send = tuple[int, int, float, float, int]
"""(pod index, seq, sent at, answered at, HTTP status): compact, as the churn processes send it."""

Arrival = tuple[int, int, float]
"""(pod index, seq, arrived at)."""

Mention = tuple[int, float]
"""(pod index, arrived at): a notification naming a churn Pod but no seq (kubewatch's)."""


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of ``values`` (NaN when empty); ``fraction`` in (0, 1]."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Latency:
    """Milliseconds."""

    p50: float
    p95: float
    p99: float
    max: float
    count: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000.0 for s in seconds]
        return cls(
            percentile(ms, 0.50),
            percentile(ms, 0.95),
            percentile(ms, 0.99),
            max(ms) if ms else math.nan,
            len(ms),
        )


@dataclass(frozen=True)
class Score:
    sent: int
    accepted: int
    rejected: int
    told_exactly: int
    coalesced: int
    lost: int
    duplicates: int
    write_rate: float  # accepted changes per second of the trial
    latency: Latency  # send -> webhook arrival, changes told exactly
    after_answer: Latency  # API server's answer read -> webhook arrival
    write_latency: Latency  # send -> API server answer
    watch_latency: Latency  # send -> a bare watcher
    added: Latency  # a bare watcher -> webhook arrival: what the subject adds
    watch_missed: int

    @property
    def nothing_lost(self) -> bool:
        return self.lost == 0

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def score(
    sends: Iterable[Send],
    arrivals: Iterable[Arrival],
    seconds: float,
    watched: Iterable[Arrival] | None = None,
) -> Score:
    """Score one trial that lasted ``seconds`` (the churn's duration, for the rate)."""
    accepted = [s for s in sends if 200 <= s[4] < 300]
    rejected = [s for s in sends if not 200 <= s[4] < 300]
    first, counts, newest = _index(arrivals)
    latencies: list[float] = []
    after_answer: list[float] = []
    coalesced = lost = 0
    for pod, seq, sent, answered, _status in accepted:
        arrived = first.get((pod, seq))
        if arrived is not None:
            latencies.append(arrived - sent)
            after_answer.append(arrived - answered)
        elif newest.get(pod, -1) > seq:
            coalesced += 1
        else:
            lost += 1
    floor = _Floor() if watched is None else _floor(accepted, first, _index(watched)[0])
    return Score(
        sent=len(accepted) + len(rejected),
        accepted=len(accepted),
        rejected=len(rejected),
        told_exactly=len(latencies),
        coalesced=coalesced,
        lost=lost,
        duplicates=sum(n - 1 for n in counts.values()),
        write_rate=len(accepted) / seconds if seconds > 0 else math.nan,
        latency=Latency.of(latencies),
        after_answer=Latency.of(after_answer),
        write_latency=Latency.of([s[3] - s[2] for s in accepted]),
        watch_latency=Latency.of(floor.to_watcher),
        added=Latency.of(floor.added),
        watch_missed=floor.missed,
    )


@dataclass
class _Floor:
    to_watcher: list[float] = field(default_factory=list)
    added: list[float] = field(default_factory=list)
    missed: int = 0


def _floor(
    accepted: Iterable[Send],
    told: dict[tuple[int, int], float],
    seen: dict[tuple[int, int], float],
) -> _Floor:
    floor = _Floor()
    for pod, seq, sent, _answered, _status in accepted:
        watched = seen.get((pod, seq))
        if watched is None:
            floor.missed += 1
            continue
        floor.to_watcher.append(watched - sent)
        if (pod, seq) in told:
            floor.added.append(told[(pod, seq)] - watched)
    return floor


def _index(
    arrivals: Iterable[Arrival],
) -> tuple[dict[tuple[int, int], float], dict[tuple[int, int], int], dict[int, int]]:
    """First arrival time and count per (pod, seq); the newest seq told per pod."""
    first: dict[tuple[int, int], float] = {}
    counts: dict[tuple[int, int], int] = defaultdict(int)
    newest: dict[int, int] = {}
    for pod, seq, at in arrivals:
        key = (pod, seq)
        counts[key] += 1
        first[key] = min(at, first.get(key, at))
        newest[pod] = max(seq, newest.get(pod, seq))
    return first, counts, newest


def all_told(sends: Iterable[Send], arrivals: Iterable[Arrival]) -> bool:
    """Whether every accepted change has been told (exactly or by a later seq)."""
    newest: dict[int, int] = {}
    for pod, seq, _at in arrivals:
        newest[pod] = max(seq, newest.get(pod, seq))
    return all(
        newest.get(pod, -1) >= seq for pod, seq, _s, _a, status in sends if 200 <= status < 300
    )


def match_mentions(sends: Iterable[Send], mentions: Iterable[Mention]) -> tuple[list[Arrival], int]:
    """Arrivals for ``mentions``, first in first out per Pod (see the module docstring),
    and how many mentions matched no change."""
    waiting: dict[int, deque[tuple[float, int]]] = defaultdict(deque)
    for pod, seq, sent, _answered, status in sorted(sends, key=lambda s: s[2]):
        if 200 <= status < 300:
            waiting[pod].append((sent, seq))
    arrivals: list[Arrival] = []
    unmatched = 0
    for pod, at in sorted(mentions, key=lambda m: m[1]):
        queue = waiting.get(pod)
        if queue and queue[0][0] <= at:
            arrivals.append((pod, queue.popleft()[1], at))
        else:
            unmatched += 1
    return arrivals, unmatched
