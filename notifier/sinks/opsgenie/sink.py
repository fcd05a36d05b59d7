"""Opsgenie's message from the facts, and the sink that sends it."""

from __future__ import annotations

from urllib.parse import quote

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import chat_template, cut, severity_of
from notifier.sinks.http import http_transport
from notifier.sinks.likely_cause import cause_fields
from notifier.sinks.opsgenie.config import OpsgenieSinkConfig
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.transport import Reply

_PRIORITIES = {"critical": "P1", "warning": "P3", "info": "P5"}


class OpsgenieShape:
    integration = "opsgenie"
    capabilities = Capabilities(resolve=True, threads=False, update_in_place=True)

    def __init__(self, api_url: str, template: ReceiverTemplate) -> None:
        self._alerts = api_url.rstrip("/") + "/v2/alerts"
        self._template = template

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        alias = cut(notification.fingerprint or notification.id, 512)
        source = cut(f"kube-notifier/{facts.get('cluster') or 'kubernetes'}", 100)
        if notification.resolves:
            close = f"{self._alerts}/{quote(alias, safe='')}/close?identifierType=alias"
            note = cut(self._template.render("title", facts), 25000)
            return Post({"user": "kube-notifier", "source": source, "note": note}, url=close)
        tags = [str(facts.get(name, "")) for name in ("kind", "namespace", "rule")]
        entity = "/".join(str(facts.get(name, "")) for name in ("kind", "namespace", "name"))
        return Post({
            "message": cut(self._template.render("title", facts), 130),
            "alias": alias,
            "description": cut(self._template.render("text", facts), 15000),
            "priority": severity_of(facts, _PRIORITIES, "P5"),
            "source": source,
            "entity": cut(entity, 512),
            "tags": [cut(tag, 50) for tag in tags if tag],
            "details": {"rule": notification.rule, "transition": str(facts.get("transition", "")),
                        **cause_fields(facts)},
        })  # fmt: skip

    def root_of(self, reply: Reply) -> str | None:
        return None


def build_opsgenie(config: OpsgenieSinkConfig) -> PostingSink:
    key = require_secret(config.name, "api_key", config.api_key, config.api_key_file)
    shape = OpsgenieShape(config.api_url, chat_template(config.name, config.template))
    url = config.api_url.rstrip("/") + "/v2/alerts"
    transport = http_transport(
        config.name, config, url, pool_size=config.delivery.concurrency, field="api_url"
    )
    return PostingSink(config.name, shape, transport, headers={"Authorization": f"GenieKey {key}"})
