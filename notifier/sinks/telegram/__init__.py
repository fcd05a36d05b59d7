"""``type: telegram``: the Bot API's ``sendMessage`` to one chat; follow-ups of a fingerprint
(its resolution) reply to the first message (``reply_parameters``), whose ``message_id`` the
answer gives. Plain text (no parse mode: object text needs no escaping), at most 4096."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.receiver_types import ReceiverType
from notifier.sinks.telegram.config import TelegramSinkConfig

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: TelegramSinkConfig, threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.telegram.sink import build_telegram  # noqa: PLC0415 (its sender, when built)

    return build_telegram(config, threads)


RECEIVER = ReceiverType(TelegramSinkConfig, _build, title="Telegram")
