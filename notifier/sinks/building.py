"""Building sinks from their config: the one place that reads ``*_file`` secrets.

``build_sink`` raises ``SinkBuildError`` naming the sink and the field when
a secret file cannot be read or a URL is unusable, so a bad config fails at
start, not at the first notification.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from notifier.sinks import console
from notifier.sinks.alertmanager import build_alertmanager
from notifier.sinks.alertmanager.config import AlertmanagerSinkConfig
from notifier.sinks.alertmanager.open_alerts import AlertStore, MemoryAlerts
from notifier.sinks.base import Sink
from notifier.sinks.config import (
    ConsoleSinkConfig,
    SinkConfig,
    SlackSinkConfig,
    WebhookSinkConfig,
)
from notifier.sinks.console import ConsoleSink
from notifier.sinks.discord import DiscordSinkConfig, build_discord
from notifier.sinks.email.config import EmailSinkConfig
from notifier.sinks.googlechat import GoogleChatSinkConfig, build_googlechat
from notifier.sinks.mattermost import MattermostSinkConfig, build_mattermost
from notifier.sinks.msteams import TeamsSinkConfig, build_msteams
from notifier.sinks.opsgenie import OpsgenieSinkConfig, build_opsgenie
from notifier.sinks.pagerduty import PagerDutySinkConfig, build_pagerduty
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import (
    SinkBuildError,
    files_read,
    files_unread,
    read_secret,
    require_secret,
    tls_key,
)
from notifier.sinks.telegram import TelegramSinkConfig, build_telegram
from notifier.sinks.thread_roots import MemoryThreads, ThreadStore
from notifier.sinks.webhook import WebhookSink
from notifier.sinks.webhook import payload as webhook_payload
from notifier.sinks.webhook.bodies import CloudEventsIdentity
from notifier.sinks.webhook.sink import WebhookTarget


def sink_problems(
    configs: Iterable[SinkConfig], *, read_files: bool = True
) -> list[tuple[str, SinkBuildError]]:
    """Why ``run`` could not build the enabled sinks: (sink name, error) each (none: they build).

    ``rules check`` calls this, so it accepts exactly what ``run`` starts with:
    every secret file read, every URL and CA bundle checked the same way. With
    ``read_files`` off, files stand in for themselves (they are only in the pod).
    """
    problems = []
    with contextlib.nullcontext() if read_files else files_unread():
        for config in configs:
            if config.enabled:
                try:
                    build_sink(config, threads=MemoryThreads()).close()
                except SinkBuildError as err:
                    problems.append((config.name, err))
    return problems


def build_sink(
    config: SinkConfig, *, threads: ThreadStore, alerts: AlertStore | None = None
) -> Sink:
    """The sink ``config`` describes; ``threads`` keeps the roots of the receivers that thread,
    ``alerts`` what an Alertmanager sink still re-sends (in memory when not given)."""
    return BUILDERS[type(config)](config, threads, alerts or MemoryAlerts())


def _webhook(config: WebhookSinkConfig) -> WebhookSink:
    url = _checked_url(
        config.name, "url", require_secret(config.name, "url", config.url, config.url_file)
    )
    secret = read_secret(config.name, "hmac_secret", config.hmac_secret, config.hmac_secret_file)
    tls_files = files_read()  # else the files are somewhere else (the pod): not checked here
    target = WebhookTarget(
        url=url,
        headers=dict(config.headers),
        hmac_secret=secret.encode() if secret else None,
        body_format=config.format,
        cloudevents=CloudEventsIdentity(config.cloudevents_source, config.cloudevents_type),
        tls_verify=config.tls_verify,
        ca_file=config.ca_file if tls_files else None,
        client_cert_file=config.client_cert_file if tls_files else None,
        client_key_file=config.client_key_file if tls_files else None,
        connect_timeout=config.connect_timeout_seconds,
        read_timeout=config.read_timeout_seconds,
        deadline=config.deadline_seconds,
        proxy=config.proxy,
        resolved_url=_resolved_url(config.name, config.resolved_url, url),
    )
    try:
        return WebhookSink(
            config.name, target, pool_size=config.delivery.concurrency,
            template=ReceiverTemplate(config.name, webhook_payload.PARTS, config.template),
        )  # fmt: skip
    except (OSError, ssl.SSLError) as err:
        files = f"ca_file {config.ca_file!r}, client_cert_file {config.client_cert_file!r}"
        raise SinkBuildError(
            f"sink {config.name!r}: cannot use its TLS files ({files}): {err}",
            key=tls_key(config),
        ) from None


def _email(config: EmailSinkConfig, threads: ThreadStore) -> Sink:
    # Imported here: smtplib and the email package, for configs that have no email sink too.
    from notifier.sinks.email.building import build_email  # noqa: PLC0415

    return build_email(config, threads)


def _slack(config: SlackSinkConfig, threads: ThreadStore) -> Sink:
    # Imported here: slack_sdk adds ~7 MiB and 0.1 s to a start, for configs that have no
    # Slack sink too.
    from notifier.sinks.slack import (  # noqa: PLC0415
        ApiPoster,
        IncomingWebhookPoster,
        Poster,
        SlackSink,
        blocks,
    )

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
        url = _checked_url(config.name, "webhook_url", raw)
        poster = IncomingWebhookPoster(url=url, timeout=config.timeout_seconds, proxy=config.proxy)
    scope = f"{config.name}@{config.channel or ''}"
    return SlackSink(
        config.name, poster, threads=threads if config.threads else None, thread_scope=scope,
        template=ReceiverTemplate(config.name, blocks.PARTS, config.template),
    )  # fmt: skip


def _console(config: ConsoleSinkConfig) -> ConsoleSink:
    template = ReceiverTemplate(config.name, console.PARTS, config.template)
    return ConsoleSink(config.name, max_lines=config.max_lines, template=template)


def _resolved_url(sink: str, resolved: str | None, url: str) -> str | None:
    """``resolved_url``, checked: an http(s) URL on ``url``'s scheme, host and port."""
    if resolved is None:
        return None
    filled = _checked_url(sink, "resolved_url", resolved.replace("{fingerprint}", "x"))
    if "{" in filled or "}" in filled:
        raise SinkBuildError(
            f"sink {sink!r}: resolved_url may hold {{fingerprint}}, nothing else",
            key="resolved_url",
        )
    theirs, ours = urlsplit(filled), urlsplit(url)
    if (theirs.scheme, theirs.hostname, theirs.port) != (ours.scheme, ours.hostname, ours.port):
        raise SinkBuildError(
            f"sink {sink!r}: resolved_url must be on url's scheme, host and port",
            key="resolved_url",
        )
    return resolved


def _checked_url(sink: str, field: str, url: str) -> str:
    try:
        parts = urlsplit(url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        usable = False
    if not usable:
        # The URL is a secret: say what is wrong, not what it is.
        raise SinkBuildError(
            f"sink {sink!r}: {field} must be an http(s) URL with a host", key=field
        )
    return url


Builder = Callable[[Any, ThreadStore, AlertStore], Sink]
# Every type of sinks.config.SinkConfig, with how it is built (a test checks none is missing).
BUILDERS: dict[type[Any], Builder] = {
    ConsoleSinkConfig: lambda config, _, __: _console(config),
    WebhookSinkConfig: lambda config, _, __: _webhook(config),
    SlackSinkConfig: lambda config, threads, _: _slack(config, threads),
    AlertmanagerSinkConfig: lambda config, _, alerts: build_alertmanager(config, alerts),
    EmailSinkConfig: lambda config, threads, _: _email(config, threads),
    TelegramSinkConfig: lambda config, threads, _: build_telegram(config, threads),
    PagerDutySinkConfig: lambda config, _, __: build_pagerduty(config),
    OpsgenieSinkConfig: lambda config, _, __: build_opsgenie(config),
    TeamsSinkConfig: lambda config, _, __: build_msteams(config),
    DiscordSinkConfig: lambda config, _, __: build_discord(config),
    GoogleChatSinkConfig: lambda config, _, __: build_googlechat(config),
    MattermostSinkConfig: lambda config, _, __: build_mattermost(config),
}
