"""Building a Slack sink from its config (imported only when one is configured: slack_sdk)."""

from __future__ import annotations

from notifier.sinks.base import Sink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import checked_url, require_secret
from notifier.sinks.slack import blocks
from notifier.sinks.slack.config import SlackSinkConfig
from notifier.sinks.slack.posting import ApiPoster, IncomingWebhookPoster, Poster
from notifier.sinks.slack.sink import SlackSink
from notifier.sinks.thread_roots import ThreadStore


def build_slack(config: SlackSinkConfig, threads: ThreadStore) -> Sink:
    poster: Poster
    if config.uses_bot_token:
        assert config.channel is not None  # the model's validator guarantees it
        token = require_secret(config.name, "token", config.token, config.token_file)
        poster = ApiPoster(
            token=token,
            channel=config.channel,
            base_url=config.base_url,
            timeout=config.timeout_seconds,
            proxy=config.proxy,
        )
    else:
        raw = require_secret(
            config.name, "webhook_url", config.webhook_url, config.webhook_url_file
        )
        url = checked_url(config.name, "webhook_url", raw)
        poster = IncomingWebhookPoster(url=url, timeout=config.timeout_seconds, proxy=config.proxy)
    scope = f"{config.name}@{config.channel or ''}"
    return SlackSink(
        config.name, poster, threads=threads if config.threads else None, thread_scope=scope,
        template=ReceiverTemplate(config.name, blocks.PARTS, config.template),
    )  # fmt: skip
