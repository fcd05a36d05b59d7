"""What the one-POST receivers share: their config base, built-in text and how they are built.

Their built-in template has two parts, ``title`` and ``text``, both plain
text from the notification's facts; a sink's ``template:`` may replace
either. A secret (a webhook URL, a routing key, a bot token) comes inline
or from its ``*_file``, and never appears in what the sink says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import Field, SecretStr, model_validator

from notifier.notifications import Facts, Notification
from notifier.sinks.http import http_transport
from notifier.sinks.likely_cause import CAUSE_TEXT
from notifier.sinks.posting import PostingSink, Shape
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.settings import DeliveryOptions, HttpSettings, SinkConfigBase, secret_pair
from notifier.sinks.thread_roots import ThreadStore

BUILTIN_TEXT = {
    "title": "{{ '[RESOLVED] ' if resolved | default(false) else '' }}{{ summary }}",
    "text": (
        "{% for label, value in details | default([]) %}{{ label }}: {{ value }}\n{% endfor %}"
        "{% for member in members | default([]) %}- {{ member.kind }} {{ member.key }}:"
        " {{ member.transition }}\n{% endfor %}"
        f"{CAUSE_TEXT}"
        "{% for log in (context | default({})).get('logs', []) %}{{ log.container }} log:\n"
        "{{ log.lines[-20:] | join('\n') }}\n{% endfor %}"
        "rule {{ rule }} · {{ severity }}{% if observed_at %} · {{ observed_at }}{% endif %}"
    ),
}


class ChatDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=2, ge=1, le=32)


class ChatSinkConfigBase(SinkConfigBase, HttpSettings):
    template: dict[str, str] = {}  # parts: title, text
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
    return ReceiverTemplate(sink, BUILTIN_TEXT, user)


def facts_of(notification: Notification) -> Facts:
    """The facts, or what a notification without them (a replayed old one) still says."""
    return notification.facts or {"summary": notification.message.text, "rule": notification.rule}


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def severity_of(facts: Facts, levels: Mapping[str, Any], default: Any) -> Any:
    return levels.get(str(facts.get("told_severity") or facts.get("severity", "")), default)
