"""PagerDuty's message from the facts, and the sink that sends it."""

from __future__ import annotations

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities
from notifier.sinks.chat import chat_template, cut, severity_of
from notifier.sinks.http import http_transport
from notifier.sinks.likely_cause import cause_fields
from notifier.sinks.pagerduty.config import PagerDutySinkConfig
from notifier.sinks.posting import Post, PostingSink
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import require_secret
from notifier.sinks.transport import Reply

_SEVERITIES = {"critical": "critical", "warning": "warning", "info": "info"}


class PagerDutyShape:
    integration = "pagerduty"
    capabilities = Capabilities(resolve=True, threads=False, update_in_place=True)

    def __init__(self, routing_key: str, template: ReceiverTemplate) -> None:
        self._key = routing_key
        self._template = template

    def post_for(self, notification: Notification, root: str | None) -> Post:
        facts = notification.facts
        event = {
            "routing_key": self._key,
            "event_action": "resolve" if notification.resolves else "trigger",
            "dedup_key": cut(notification.fingerprint or notification.id, 255),
        }
        if notification.resolves:
            return Post(event)
        payload = {
            "summary": cut(self._template.render("title", facts), 1024),
            "source": cut(
                f"{facts.get('cluster') or 'kubernetes'}/{facts.get('namespace', '')}", 255
            ),
            "severity": severity_of(facts, _SEVERITIES, "info"),
            "component": f"{facts.get('kind', '')}/{facts.get('name', '')}",
            "group": str(facts.get("namespace", "")),
            "class": str(facts.get("state") or facts.get("event", "")),
            "custom_details": {
                "text": self._template.render("text", facts),
                "rule": notification.rule,
                **cause_fields(facts),
            },
        }
        return Post({**event, "payload": payload, "client": "kube-notifier"})

    def root_of(self, reply: Reply) -> str | None:
        return None


def build_pagerduty(config: PagerDutySinkConfig) -> PostingSink:
    key = require_secret(config.name, "routing_key", config.routing_key, config.routing_key_file)
    transport = http_transport(
        config.name, config, config.url, pool_size=config.delivery.concurrency
    )
    shape = PagerDutyShape(key, chat_template(config.name, config.template))
    return PostingSink(config.name, shape, transport)
