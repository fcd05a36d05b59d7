"""Sink settings as they appear under ``sinks:`` in the config file.

Each sink type owns its model; this module joins them into one union,
told apart by ``type``. Unknown keys are errors (``extra="forbid"``).

Secrets (``url``, ``token``, ``webhook_url``, ``hmac_secret``) are
``SecretStr``: already expanded from ``${ENV}`` by the config loader, or
read from the matching ``*_file`` when the sink is built. Either form is
accepted, never both. ``SecretStr`` keeps them out of reprs and logs.

Every sink carries ``delivery:`` options (queue size, concurrency, retry
limits, pacing) that the delivery stage reads; sinks themselves never retry.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import Field, SecretStr, model_validator

from notifier.sinks.alertmanager.config import AlertmanagerSinkConfig
from notifier.sinks.discord import DiscordSinkConfig
from notifier.sinks.email.config import EmailSinkConfig
from notifier.sinks.googlechat import GoogleChatSinkConfig
from notifier.sinks.mattermost import MattermostSinkConfig
from notifier.sinks.msteams import TeamsSinkConfig
from notifier.sinks.opsgenie import OpsgenieSinkConfig
from notifier.sinks.pagerduty import PagerDutySinkConfig
from notifier.sinks.settings import (
    ConsoleDeliveryOptions,
    DeliveryOptions,
    HttpSettings,
    SinkConfigBase,
    SlackDeliveryOptions,
    WebhookDeliveryOptions,
    secret_pair,
)
from notifier.sinks.telegram import TelegramSinkConfig

__all__ = ["DeliveryOptions", "HttpSettings", "SinkConfig"]


class ConsoleSinkConfig(SinkConfigBase):
    template_parts = ("text",)
    type: Literal["console"]
    max_lines: int = Field(default=3, ge=1, le=100)
    template: dict[str, str] = {}  # parts: text
    delivery: ConsoleDeliveryOptions = ConsoleDeliveryOptions()


class WebhookSinkConfig(SinkConfigBase, HttpSettings):
    template_parts = ("payload",)
    type: Literal["webhook"]
    url: SecretStr | None = None
    url_file: str | None = None
    # Where resolutions go when the receiver closes elsewhere than it opens (Opsgenie): same
    # scheme, host and port as url; "{fingerprint}" is replaced by the resolution's.
    resolved_url: str | None = None
    format: Literal["json", "cloudevents"] = "json"
    cloudevents_source: str = "kube-notifier"
    cloudevents_type: str = "io.kube-notifier.notification"
    headers: dict[str, str] = {}
    hmac_secret: SecretStr | None = None
    hmac_secret_file: str | None = None
    template: dict[str, Any] = {}  # parts: payload (a structure whose strings are templates)
    delivery: WebhookDeliveryOptions = WebhookDeliveryOptions()

    @model_validator(mode="after")
    def _one_source_per_secret(self) -> Self:
        secret_pair(self.url, self.url_file, "url", required=True)
        secret_pair(self.hmac_secret, self.hmac_secret_file, "hmac_secret", required=False)
        return self


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


SinkConfig = Annotated[
    ConsoleSinkConfig
    | WebhookSinkConfig
    | SlackSinkConfig
    | AlertmanagerSinkConfig
    | EmailSinkConfig
    | PagerDutySinkConfig
    | OpsgenieSinkConfig
    | TeamsSinkConfig
    | DiscordSinkConfig
    | GoogleChatSinkConfig
    | MattermostSinkConfig
    | TelegramSinkConfig,
    Field(discriminator="type"),
]
