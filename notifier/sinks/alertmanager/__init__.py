"""``type: alertmanager``: alerts to every peer, resolutions as ``endsAt``, refreshes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.alertmanager.config import AlertmanagerSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: AlertmanagerSinkConfig, _threads: ThreadStore, alerts: AlertStore) -> Sink:
    from notifier.sinks.alertmanager.building import build_alertmanager  # noqa: PLC0415 (its sender, when built)

    return build_alertmanager(config, alerts)


RECEIVER = ReceiverType(AlertmanagerSinkConfig, _build, title="Alertmanager")
