"""``type: msteams``: a Teams Workflows webhook ("post to a channel when a webhook request is
received"), given one Adaptive Card (version 1.4) per notification: title, text and facts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.msteams.config import TeamsSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: TeamsSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.msteams.sink import build_msteams  # noqa: PLC0415 (its sender, when built)

    return build_msteams(config)


RECEIVER = ReceiverType(TeamsSinkConfig, _build, title="Microsoft Teams")
