"""Mattermost's message from the facts, and the sink that sends it."""

from __future__ import annotations

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import (
    build_on_url,
    chat_template,
    cut,
    markdown_escaped,
)
from notifier.sinks.mattermost.config import MattermostSinkConfig
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.transport import Reply


class MattermostShape:
    integration = "mattermost"
    capabilities = Capabilities(resolve=True, threads=False, update_in_place=False)

    def __init__(self, template: ReceiverTemplate, channel: str | None, username: str) -> None:
        self._template = template
        self._where = {"username": username, **({"channel": channel} if channel else {})}

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        text = (
            f"#### {self._template.render('title', facts)}\n{self._template.render('text', facts)}"
        )
        return Post({"text": cut(text, 16383), **self._where})

    def root_of(self, reply: Reply) -> str | None:
        return None


def build_mattermost(config: MattermostSinkConfig) -> PostingSink:
    template = chat_template(config.name, config.template, markdown_escaped)
    return build_on_url(config, MattermostShape(template, config.channel, config.username))
