"""``type: mattermost``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal

from notifier.sinks.settings import WebhookUrlConfigBase


class MattermostSinkConfig(WebhookUrlConfigBase):
    type: Literal["mattermost"]
    channel: str | None = None  # else the webhook's own
    username: str = "kube-notifier"
