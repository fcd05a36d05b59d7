"""Building an Alertmanager sink from its config."""

from __future__ import annotations

from notifier.sinks.alertmanager.alerts import PARTS
from notifier.sinks.alertmanager.config import AlertmanagerSinkConfig
from notifier.sinks.alertmanager.open_alerts import AlertStore
from notifier.sinks.alertmanager.sink import API_PATH, AlertmanagerSink
from notifier.sinks.http import http_transport
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import read_secret


def build_alertmanager(config: AlertmanagerSinkConfig, store: AlertStore) -> AlertmanagerSink:
    name = config.name
    token = read_secret(name, "bearer_token", config.bearer_token, config.bearer_token_file)
    transports = [
        http_transport(
            name, config, url.rstrip("/") + API_PATH, pool_size=config.delivery.concurrency,
            field=f"urls[{index}]",
        )
        for index, url in enumerate(config.urls)
    ]  # fmt: skip
    return AlertmanagerSink(
        name,
        transports,
        template=ReceiverTemplate(name, PARTS, config.template),
        labels=dict(config.labels),
        headers={"Authorization": f"Bearer {token}"} if token else {},
        store=store,
        resend_interval=config.resend_interval_seconds,
    )
