"""Microsoft Teams's message from the facts, and the sink that sends it."""

from __future__ import annotations

from typing import Any

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import (
    build_on_url,
    chat_template,
    cut,
    markdown_escaped,
)
from notifier.sinks.msteams.config import TeamsSinkConfig
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.transport import Reply

CARD_TYPE = "application/vnd.microsoft.card.adaptive"
_COLOURS = {"critical": "Attention", "warning": "Warning"}


_MAX_LINES = 60


class TeamsShape:
    integration = "msteams"
    capabilities = Capabilities(resolve=True, threads=False, update_in_place=False)

    def __init__(self, template: ReceiverTemplate) -> None:
        self._template = template

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        colour = (
            "Good" if notification.resolves else _COLOURS.get(str(facts.get("severity")), "Default")
        )
        body: list[dict[str, Any]] = [
            {"type": "TextBlock", "text": cut(self._template.render("title", facts), 1000),
             "weight": "Bolder", "size": "Medium", "wrap": True, "color": colour},
            *text_blocks(cut(self._template.render("text", facts), 10000)),
        ]  # fmt: skip
        card = {
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "type": "AdaptiveCard",
            "version": "1.4",
            "body": body,
        }
        return Post(
            {"type": "message", "attachments": [{"contentType": CARD_TYPE, "content": card}]}
        )

    def root_of(self, reply: Reply) -> str | None:
        return None


def text_blocks(text: str) -> list[dict[str, Any]]:
    """A TextBlock per line (Teams joins the lines of one), at most ``_MAX_LINES``; a blank
    line is a gap before the next."""
    blocks: list[dict[str, Any]] = []
    gap = False
    for line in text.splitlines():
        if not line.strip():
            gap = True
            continue
        block = {"type": "TextBlock", "text": line, "wrap": True, "spacing": "None"}
        if gap:
            block["spacing"] = "Medium"
        blocks.append(block)
        gap = False
    if len(blocks) > _MAX_LINES:
        left = len(blocks) - _MAX_LINES + 1
        blocks = [*blocks[: _MAX_LINES - 1], {"type": "TextBlock", "text": f"… {left} more lines"}]
    return blocks or [{"type": "TextBlock", "text": "-"}]


def build_msteams(config: TeamsSinkConfig) -> PostingSink:
    return build_on_url(
        config, TeamsShape(chat_template(config.name, config.template, markdown_escaped))
    )
