"""Discord's message from the facts, and the sink that sends it."""

from __future__ import annotations

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import (
    build_on_url,
    chat_template,
    cut,
    markdown_escaped,
)
from notifier.sinks.discord.config import DiscordSinkConfig
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.transport import Reply


class DiscordShape:
    integration = "discord"
    capabilities = Capabilities(resolve=True, threads=False, update_in_place=False)

    def __init__(self, template: ReceiverTemplate) -> None:
        self._template = template

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        text = (
            f"**{self._template.render('title', facts)}**\n{self._template.render('text', facts)}"
        )
        return Post({"content": cut(text, 2000), "allowed_mentions": {"parse": []}})

    def root_of(self, reply: Reply) -> str | None:
        return None


def build_discord(config: DiscordSinkConfig) -> PostingSink:
    return build_on_url(
        config, DiscordShape(chat_template(config.name, config.template, markdown_escaped))
    )
