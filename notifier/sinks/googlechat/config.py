"""``type: googlechat``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal

from notifier.sinks.settings import WebhookUrlConfigBase


class GoogleChatSinkConfig(WebhookUrlConfigBase):
    type: Literal["googlechat"]
