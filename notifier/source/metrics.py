"""Informer metrics. Labels: ``kind`` (one per watched kind) and bounded reasons/types only."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

WATCH_EVENTS = Counter(
    "kube_notifier_watch_events_total",
    "Watch events received, by kind and event type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR).",
    ["kind", "type"],
)
LISTS = Counter(
    "kube_notifier_lists_total", "Full lists completed (initial and relists).", ["kind"]
)
RELISTS = Counter(
    "kube_notifier_relists_total", "Relists forced by 410 Gone (history compacted).", ["kind"]
)
WATCH_RESTARTS = Counter(
    "kube_notifier_watch_restarts_total",
    "Watches reopened, by reason: closed (server timeout), stalled (inactivity watchdog), "
    "gone (410), throttled (429), error.",
    ["kind", "reason"],
)
ACTIVITY_AGE = Gauge(
    "kube_notifier_watch_activity_age_seconds",
    "Seconds since the last watch event or bookmark.",
    ["kind"],
)
CACHED_OBJECTS = Gauge("kube_notifier_cached_objects", "Objects in the informer cache.", ["kind"])
SYNCED = Gauge(
    "kube_notifier_informer_synced", "1 once the initial list was handed on, else 0.", ["kind"]
)
