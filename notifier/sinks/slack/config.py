"""``type: slack``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, SecretStr, model_validator

from notifier.sinks.settings import DeliveryOptions, SinkConfigBase, secret_pair


class SlackDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=1, ge=1, le=32)
    # Slack accepts about one message per second per channel.
    min_interval_seconds: float = Field(default=1.0, ge=0)


class SlackSinkConfig(SinkConfigBase):
    """Either a bot ``token`` plus ``channel`` (chat.postMessage, threads possible)
    or an incoming ``webhook_url`` (its channel is fixed by Slack, no threads)."""

    template_parts = ("text", "blocks")
    type: Literal["slack"]
    channel: str | None = None
    token: SecretStr | None = None
    token_file: str | None = None
    webhook_url: SecretStr | None = None
    webhook_url_file: str | None = None
    base_url: str = "https://slack.com/api/"
    timeout_seconds: float = Field(default=10.0, gt=0)
    proxy: str | None = None  # as a webhook's: None from the environment, "direct" for none
    threads: bool = True
    template: dict[str, Any] = {}  # parts: text, blocks (a structure whose strings are templates)
    delivery: SlackDeliveryOptions = SlackDeliveryOptions()

    @property
    def uses_bot_token(self) -> bool:
        return self.token is not None or self.token_file is not None

    @property
    def pacing_group(self) -> str:
        return f"slack:{self.channel}" if self.uses_bot_token else f"slack:{self.name}"

    @model_validator(mode="after")
    def _one_way_to_post(self) -> Self:
        secret_pair(self.token, self.token_file, "token", required=False)
        secret_pair(self.webhook_url, self.webhook_url_file, "webhook_url", required=False)
        has_webhook = self.webhook_url is not None or self.webhook_url_file is not None
        if self.uses_bot_token == has_webhook:
            raise ValueError("set exactly one of token (with channel) or webhook_url")
        if self.uses_bot_token and not self.channel:
            raise ValueError("channel is required with a bot token")
        return self
