"""Telegram's message from the facts, and the sink that sends it."""

from __future__ import annotations

import msgspec

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import chat_template, cut
from notifier.sinks.http import http_transport
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.telegram.config import TelegramSinkConfig
from notifier.sinks.thread_roots import ThreadStore
from notifier.sinks.transport import Reply


class _Sent(msgspec.Struct):
    message_id: int


class _Answer(msgspec.Struct):
    ok: bool
    result: _Sent | None = None


class TelegramShape:
    integration = "telegram"
    capabilities = Capabilities(resolve=True, threads=True, update_in_place=False)

    def __init__(self, template: ReceiverTemplate, chat_id: str) -> None:
        self._template = template
        self._chat_id = chat_id

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        text = f"{self._template.render('title', facts)}\n\n{self._template.render('text', facts)}"
        body: dict[str, object] = {"chat_id": self._chat_id, "text": cut(text, 4096)}
        if root is not None:
            body["reply_parameters"] = {
                "message_id": int(root),
                "allow_sending_without_reply": True,
            }
        return Post(body)

    def root_of(self, reply: Reply) -> str | None:
        try:
            answer = msgspec.json.decode(reply.body, type=_Answer)
        except msgspec.DecodeError:
            return None
        return str(answer.result.message_id) if answer.ok and answer.result else None


def build_telegram(config: TelegramSinkConfig, threads: ThreadStore) -> PostingSink:
    token = require_secret(config.name, "bot_token", config.bot_token, config.bot_token_file)
    url = f"{config.api_url.rstrip('/')}/bot{token}/sendMessage"
    transport = http_transport(
        config.name, config, url, pool_size=config.delivery.concurrency, field="api_url"
    )
    shape = TelegramShape(chat_template(config.name, config.template), config.chat_id)
    return PostingSink(config.name, shape, transport, threads=threads)
