"""``type: pagerduty``: Events API v2; a firing triggers, its resolution resolves (dedup_key).

``dedup_key`` is the fingerprint (rule + object), so the resolution closes
the incident its firing opened and a repeat adds to it. Documented shape:
``routing_key`` (32 characters), ``event_action``, ``dedup_key`` (at most 255),
and for a trigger ``payload`` with ``summary`` (at most 1024), ``source``,
``severity`` (critical, error, warning, info) and ``custom_details``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.pagerduty.config import PagerDutySinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: PagerDutySinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.pagerduty.sink import build_pagerduty  # noqa: PLC0415 (its sender, when built)

    return build_pagerduty(config)


RECEIVER = ReceiverType(PagerDutySinkConfig, _build, title="PagerDuty")
