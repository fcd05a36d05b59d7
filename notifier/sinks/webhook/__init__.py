"""``type: webhook``: a JSON POST of the ``kube-notifier/v1`` payload (or a CloudEvent), signed
and idempotent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.receiver_types import ReceiverType
from notifier.sinks.webhook.config import WebhookSinkConfig

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: WebhookSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.webhook.building import build_webhook  # noqa: PLC0415 (its sender, when built)

    return build_webhook(config)


RECEIVER = ReceiverType(WebhookSinkConfig, _build, title="webhooks")
