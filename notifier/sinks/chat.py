"""What the one-POST receivers share: their config base, built-in text and how they are built.

Their message has two parts, ``title`` (the headline, ``[RESOLVED]`` first on
a resolution) and ``text`` (details, a digest's members, the enriched context
and a footer: ``lines``), both plain text from the notification's facts; a
sink's ``template:`` may replace either. A secret (a webhook URL, a routing
key, a bot token) comes inline or from its ``*_file``, and never appears in
what the sink says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import Field, SecretStr, model_validator

from notifier.notifications import Facts
from notifier.sinks import lines
from notifier.sinks.http import http_transport
from notifier.sinks.posting import PostingSink, Shape
from notifier.sinks.rendering import Part, ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.settings import DeliveryOptions, HttpSettings, SinkConfigBase, secret_pair
from notifier.sinks.thread_roots import ThreadStore


def title(facts: Facts) -> str:
    return f"{'[RESOLVED] ' if facts.get('resolved') else ''}{lines.headline(facts)}"


def text(facts: Facts) -> str:
    return "\n".join(lines.body_lines(facts))


PARTS = {"title": Part(title), "text": Part(text)}


class ChatDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=2, ge=1, le=32)


class ChatSinkConfigBase(SinkConfigBase, HttpSettings):
    template_parts = ("title", "text")
    template: dict[str, str] = {}
    delivery: ChatDeliveryOptions = ChatDeliveryOptions()


class WebhookUrlConfigBase(ChatSinkConfigBase):
    """A receiver reached at a secret URL (Teams, Discord, Google Chat, Mattermost)."""

    url: SecretStr | None = None
    url_file: str | None = None

    @model_validator(mode="after")
    def _one_url_source(self) -> Self:
        secret_pair(self.url, self.url_file, "url", required=True)
        return self


def build_on_url(
    config: WebhookUrlConfigBase, shape: Shape, threads: ThreadStore | None = None
) -> PostingSink:
    url = require_secret(config.name, "url", config.url, config.url_file)
    transport = http_transport(config.name, config, url, pool_size=config.delivery.concurrency)
    return PostingSink(config.name, shape, transport, threads=threads)


def chat_template(sink: str, user: Mapping[str, str]) -> ReceiverTemplate:
    return ReceiverTemplate(sink, PARTS, user)


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def severity_of(facts: Facts, levels: Mapping[str, Any], default: Any) -> Any:
    return levels.get(str(facts.get("told_severity") or facts.get("severity", "")), default)
