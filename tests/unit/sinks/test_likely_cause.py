"""The receivers that render from facts show what ``enrich: [changes]`` found."""

from __future__ import annotations

import dataclasses
from typing import Any

from notifier.enrichment.attaching import context_fields
from notifier.enrichment.changes import Changes
from notifier.enrichment.context import Context
from notifier.notifications import Facts
from notifier.sinks.alertmanager.alerts import PARTS, annotations_of
from notifier.sinks.chat import chat_template
from notifier.sinks.email.messages import PARTS as MAIL_PARTS
from notifier.sinks.email.messages import compose
from notifier.sinks.opsgenie.sink import OpsgenieShape
from notifier.sinks.pagerduty.sink import PagerDutyShape
from notifier.sinks.rendering import ReceiverTemplate
from tests.unit.sinks.factories import notification

CAUSE = "ConfigMap app-config changed 30s before, by kubectl (kubectl-edit): keys <b>"
CHANGES = Changes(likely_cause=CAUSE, window_seconds=3600, notes=("node: forbidden",))
FACTS: Facts = {
    "summary": "Pod shop/web-1 CrashLoopBackOff", "rule": "crash", "severity": "warning",
    "observed_at": "2026-11-28T03:00:00Z", "kind": "Pod", "namespace": "shop", "name": "web-1",
    "context": context_fields(Context(changes=CHANGES)),
}  # fmt: skip


def _told(**facts: Any) -> Any:
    return dataclasses.replace(notification(), facts={**FACTS, **facts})


def test_alertmanager_has_a_likely_cause_annotation_and_the_lines_beside_it() -> None:
    annotations = annotations_of(FACTS, ReceiverTemplate("am", PARTS, {}))
    assert annotations["likely_cause"] == CAUSE
    assert annotations["changes"] == "not known: node: forbidden"


def test_pagerduty_and_opsgenie_carry_it_as_a_detail_and_in_their_text() -> None:
    template = chat_template("pd", {})
    event = PagerDutyShape("k" * 32, template).post_for(_told(), None).body
    details = event["payload"]["custom_details"]
    assert details["likely_cause"] == CAUSE and f"Likely cause: {CAUSE}" in details["text"]
    alert = OpsgenieShape("https://api.opsgenie.com", template).post_for(_told(), None).body
    assert alert["details"]["likely_cause"] == CAUSE and CAUSE in alert["description"]


def test_email_tells_it_in_text_and_escaped_html() -> None:
    template = ReceiverTemplate("mail", MAIL_PARTS, {})
    mail = compose(_told(), template, sender="a@b.c", to=["d@e.f"], root=None, domain="b.c")
    text, html = (part.get_content() for part in mail.iter_parts())
    assert f"Likely cause: {CAUSE}" in text
    assert "<p>Likely cause: ConfigMap app-config" in html and "keys &lt;b&gt;" in html


def test_a_message_without_changes_says_nothing_of_them() -> None:
    facts = {**FACTS, "context": context_fields(Context(owners=("Deployment/web",)))}
    assert "Likely cause" not in chat_template("chat", {}).render("text", facts)
    assert "likely_cause" not in annotations_of(facts, ReceiverTemplate("am", PARTS, {}))
