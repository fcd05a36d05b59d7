"""``type: googlechat``: a space's incoming webhook; ``text`` (at most 4096 characters) in a
thread per fingerprint (``thread.threadKey``, replying where the thread exists)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.googlechat.config import GoogleChatSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: GoogleChatSinkConfig, _threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.googlechat.sink import build_googlechat  # noqa: PLC0415 (its sender, when built)

    return build_googlechat(config)


RECEIVER = ReceiverType(GoogleChatSinkConfig, _build, title="Google Chat")
