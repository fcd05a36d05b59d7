"""``type: mattermost``: an incoming webhook; ``text`` (Markdown, at most 16383 characters)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.mattermost.config import MattermostSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: MattermostSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.mattermost.sink import build_mattermost  # noqa: PLC0415 (its sender, when built)

    return build_mattermost(config)


RECEIVER = ReceiverType(MattermostSinkConfig, _build, title="Mattermost")
