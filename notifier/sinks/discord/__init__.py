"""``type: discord``: a channel webhook (Execute Webhook): ``content`` of at most 2000
characters, no mentions parsed (object text cannot ping ``@everyone``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.discord.config import DiscordSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: DiscordSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.discord.sink import build_discord  # noqa: PLC0415 (its sender, when built)

    return build_discord(config)


RECEIVER = ReceiverType(DiscordSinkConfig, _build, title="Discord")
