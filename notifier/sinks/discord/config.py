"""``type: discord``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal

from notifier.sinks.settings import WebhookUrlConfigBase


class DiscordSinkConfig(WebhookUrlConfigBase):
    type: Literal["discord"]
