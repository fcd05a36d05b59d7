"""What the one-POST receivers share: their built-in text, its Markdown escape, how they are built.

Their message has two parts, ``title`` (the headline, ``[RESOLVED]`` first on
a resolution) and ``text`` (details, a digest's members, the enriched context
and a footer: ``lines``), both plain text from the notification's facts; a
sink's ``template:`` may replace either. Their settings build on
``notifier.sinks.settings.ChatSinkConfigBase``. A secret (a webhook URL, a routing
key, a bot token) comes inline or from its ``*_file``, and never appears in
what the sink says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from notifier.notifications import Facts
from notifier.sinks import lines
from notifier.sinks.http import http_transport
from notifier.sinks.posting import PostingSink, Shape
from notifier.sinks.rendering import Part, ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.settings import WebhookUrlConfigBase
from notifier.sinks.thread_roots import ThreadStore
from notifier.templating.environment import Escape
from notifier.text import without_controls

# Markdown's markup, the backslash first (the backslashes put before the others stay single).
_MARKUP = "\\*_~`[]<>|#"
# The facts each part shows: object text in them is escaped for a receiver with markup.
_TITLE_FACTS = ("summary",)
_TEXT_FACTS = ("details", "members", "context", "rule", "severity", "observed_at")
_SEQUENCES = (list, tuple)


def title(facts: Facts) -> str:
    return f"{'[RESOLVED] ' if facts.get('resolved') else ''}{lines.headline(facts)}"


def text(facts: Facts) -> str:
    return "\n".join(lines.body_lines(facts))


def markdown_escaped(value: Any) -> Any:
    """Object text shown as itself in Markdown (Discord, Mattermost, Teams): markup
    characters backslash-escaped, a mention (``@channel``) broken by a word joiner."""
    if isinstance(value, str):
        value = without_controls(value)
        for char in _MARKUP:  # a replace per character present: re.sub's template and
            if char in value:  # str.translate are slower
                value = value.replace(char, "\\" + char)
        return value.replace("@", "@\u2060") if "@" in value else value
    if isinstance(value, _SEQUENCES):
        return [markdown_escaped(item) for item in value]
    if isinstance(value, dict):
        return {key: markdown_escaped(item) for key, item in value.items()}
    return value


def _escaping(
    build: Callable[[Facts], str], escape: Escape, shown: tuple[str, ...]
) -> Callable[[Facts], str]:
    """``build`` given the facts with the ``shown`` ones escaped (only those: the rest is
    not shown, and escaping costs)."""

    def built(facts: Facts) -> str:
        return build({**facts, **{n: escape(facts[n]) for n in shown if n in facts}})

    return built


def chat_parts(escape: Escape | None = None) -> dict[str, Part]:
    """``title`` and ``text``; with ``escape``, the object text in them escaped for markup."""
    if escape is None:
        return {"title": Part(title), "text": Part(text)}
    return {
        "title": Part(_escaping(title, escape, _TITLE_FACTS), escape=escape),
        "text": Part(_escaping(text, escape, _TEXT_FACTS), escape=escape),
    }


def build_on_url(
    config: WebhookUrlConfigBase, shape: Shape, threads: ThreadStore | None = None
) -> PostingSink:
    url = require_secret(config.name, "url", config.url, config.url_file)
    transport = http_transport(config.name, config, url, pool_size=config.delivery.concurrency)
    return PostingSink(config.name, shape, transport, threads=threads)


def chat_template(
    sink: str, user: Mapping[str, str], escape: Escape | None = None
) -> ReceiverTemplate:
    return ReceiverTemplate(sink, chat_parts(escape), user)


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def severity_of(facts: Facts, levels: Mapping[str, Any], default: Any) -> Any:
    return levels.get(str(facts.get("told_severity") or facts.get("severity", "")), default)
