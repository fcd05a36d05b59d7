"""Enrichment metrics: API requests by part and outcome, fetches, and the delay added."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

API_REQUESTS = Counter(
    "kube_notifier_enrichment_api_requests_total",
    "API requests made to fetch context, by part (logs, events, owners, changes) and outcome",
    ["part", "outcome"],
)
FETCHES = Counter(
    "kube_notifier_enrichment_fetches_total",
    "Context fetches by outcome: complete, partial (some part missing), skipped (too many waiting)",
    ["outcome"],
)
WAITED = Histogram(
    "kube_notifier_enrichment_wait_seconds",
    "How long a notification at the head of its sink's queue waited for its context",
    buckets=_SECONDS,
)
FETCH_SECONDS = Histogram(
    "kube_notifier_enrichment_fetch_seconds",
    "How long fetching one notification's context took",
    buckets=_SECONDS,
)
