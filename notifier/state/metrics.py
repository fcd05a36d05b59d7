"""Metrics of the state database (default registry, bounded labels)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

FRESH_STARTS = Counter(
    "kube_notifier_state_fresh_starts_total",
    "State databases set aside at start (corrupt, locked, incompatible) for an empty one.",
    ["reason"],
)
WRITE_ERRORS = Counter(
    "kube_notifier_state_write_errors_total",
    "State writes that failed and were dropped (the process keeps running without them).",
)
PENDING_WRITES = Gauge(
    "kube_notifier_state_pending_writes",
    "Writes queued for the state database and not committed yet.",
)
