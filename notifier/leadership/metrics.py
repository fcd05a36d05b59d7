"""Leader election metrics."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

IS_LEADER = Gauge("kube_notifier_leader_is_leader", "1 while this replica holds the Lease.")
TRANSITIONS = Counter(
    "kube_notifier_leader_transitions_total", "Times this replica became or stopped being leader."
)
REPLAYED = Counter(
    "kube_notifier_leader_replayed_total",
    "Notifications a new leader sent from its standby window at takeover.",
)
