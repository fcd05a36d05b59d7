"""``type: telegram``: the Bot API's ``sendMessage`` to one chat; follow-ups of a fingerprint
(its resolution) reply to the first message (``reply_parameters``), whose ``message_id`` the
answer gives. Plain text (no parse mode: object text needs no escaping), at most 4096."""

from __future__ import annotations

from typing import Literal, Self

import msgspec
from pydantic import SecretStr, model_validator

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import ChatSinkConfigBase, chat_template, cut
from notifier.sinks.http import http_transport
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.settings import secret_pair
from notifier.sinks.thread_roots import ThreadStore
from notifier.sinks.transport import Reply


class TelegramSinkConfig(ChatSinkConfigBase):
    type: Literal["telegram"]
    bot_token: SecretStr | None = None
    bot_token_file: str | None = None
    chat_id: str  # a number, or @channelname
    api_url: str = "https://api.telegram.org"

    @model_validator(mode="after")
    def _one_token_source(self) -> Self:
        secret_pair(self.bot_token, self.bot_token_file, "bot_token", required=True)
        return self


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
