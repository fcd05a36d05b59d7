"""Building a webhook sink from its config."""

from __future__ import annotations

import ssl
from urllib.parse import urlsplit

from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import (
    SinkBuildError,
    checked_url,
    files_read,
    read_secret,
    require_secret,
    tls_key,
)
from notifier.sinks.webhook import payload as webhook_payload
from notifier.sinks.webhook.bodies import CloudEventsIdentity
from notifier.sinks.webhook.config import WebhookSinkConfig
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget


def build_webhook(config: WebhookSinkConfig) -> WebhookSink:
    url = checked_url(
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


def _resolved_url(sink: str, resolved: str | None, url: str) -> str | None:
    """``resolved_url``, checked: an http(s) URL on ``url``'s scheme, host and port."""
    if resolved is None:
        return None
    filled = checked_url(sink, "resolved_url", resolved.replace("{fingerprint}", "x"))
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
