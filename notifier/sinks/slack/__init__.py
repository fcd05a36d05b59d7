"""``type: slack``: Block Kit by chat.postMessage with a bot token (threads, edits), or by an
incoming webhook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.receiver_types import ReceiverType
from notifier.sinks.slack.config import SlackSinkConfig

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: SlackSinkConfig, threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.slack.building import build_slack  # noqa: PLC0415 (its sender, when built)

    return build_slack(config, threads)


RECEIVER = ReceiverType(SlackSinkConfig, _build, title="Slack")
