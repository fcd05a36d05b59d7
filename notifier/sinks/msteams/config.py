"""``type: msteams``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal

from notifier.sinks.settings import WebhookUrlConfigBase


class TeamsSinkConfig(WebhookUrlConfigBase):
    type: Literal["msteams"]
