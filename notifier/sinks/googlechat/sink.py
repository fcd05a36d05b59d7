"""Google Chat's message from the facts, and the sink that sends it."""

from __future__ import annotations

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import chat_template, cut
from notifier.sinks.googlechat.config import GoogleChatSinkConfig
from notifier.sinks.http import http_transport
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.transport import Reply

REPLY_OPTION = "messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD"


class GoogleChatShape:
    integration = "googlechat"
    # Threads by key, kept by Google Chat: nothing to remember on our side (no ThreadStore).
    capabilities = Capabilities(resolve=True, threads=True, update_in_place=False)

    def __init__(self, template: ReceiverTemplate, url: str) -> None:
        self._template = template
        self._url = f"{url}{'&' if '?' in url else '?'}{REPLY_OPTION}"

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        text = f"*{self._template.render('title', facts)}*\n{self._template.render('text', facts)}"
        thread = {"threadKey": notification.fingerprint or notification.id}
        return Post({"text": cut(text, 4096), "thread": thread}, url=self._url)

    def root_of(self, reply: Reply) -> str | None:
        return None


def build_googlechat(config: GoogleChatSinkConfig) -> PostingSink:
    url = require_secret(config.name, "url", config.url, config.url_file)
    transport = http_transport(config.name, config, url, pool_size=config.delivery.concurrency)
    shape = GoogleChatShape(chat_template(config.name, config.template), url)
    return PostingSink(config.name, shape, transport)
