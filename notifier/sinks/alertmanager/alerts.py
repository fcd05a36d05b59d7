"""Alerts as Alertmanager's API v2 takes them (``POST /api/v2/alerts``), built from facts.

Labels say what the alert is, so they stay the same from firing to
resolution: ``alertname`` (the rule), ``cluster``, ``namespace``, ``kind``,
``name``, ``state``, ``severity``, the sink's ``labels`` and the rule's
``labels:`` (the rule's win). Empty values are left out, as Alertmanager
would. Annotations say what happened: ``summary``, ``description``, the
log excerpt when the rule enriched it, and the ``fingerprint``. ``startsAt``
is when the firing was observed; a resolution sets ``endsAt``. A digest
becomes one alert per member: Alertmanager groups them itself.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from notifier.notifications import Facts, Notification
from notifier.sinks import lines
from notifier.sinks.likely_cause import cause_fields
from notifier.sinks.rendering import Part, ReceiverTemplate
from notifier.text import without_controls


def description(facts: Facts) -> str:
    """Beside the summary, a line at a time: the details, owners and events (the logs are
    an annotation of their own)."""
    return "\n".join([*lines.detail_lines(facts), *lines.context_lines(facts, log_lines=0)])


PARTS = {
    "summary": Part(lines.headline),
    "description": Part(description),
    "generator_url": Part(lambda facts: ""),
}
_MAX_ANNOTATION = 4000  # characters of one annotation; a log excerpt keeps its end
_IDENTITY = ("cluster", "namespace", "kind", "name", "state", "severity")

Alert = dict[str, Any]


def facts_per_alert(notification: Notification) -> list[Facts]:
    """One facts per alert: the notification's, or each digest member's."""
    facts = notification.facts
    if "members" not in facts:
        return [facts]
    shared: Facts = {
        name: facts[name] for name in ("rule_labels", "send_resolved") if name in facts
    }
    return [
        {**member, **shared, "fired_at": member.get("observed_at", "")}
        for member in facts["members"]
    ]


def new_alert(facts: Facts, template: ReceiverTemplate, labels: dict[str, str]) -> Alert:
    alert: Alert = {
        "labels": labels_of(facts, labels),
        "annotations": annotations_of(facts, template),
        "startsAt": facts.get("fired_at") or facts.get("observed_at") or now_rfc3339(),
    }
    url = template.render("generator_url", facts)
    if url.startswith(("http://", "https://")):
        alert["generatorURL"] = url
    return alert


def labels_of(facts: Facts, labels: dict[str, str]) -> dict[str, str]:
    found = {name: str(facts.get(name) or "") for name in _IDENTITY}
    found["state"] = next(iter(facts.get("told_states") or ()), found["state"])
    if facts.get("resolved"):  # the severity of what was told, not of the end
        found["severity"] = facts.get("told_severity") or found["severity"]
    found = {**found, **labels, **facts.get("rule_labels", {})}
    found["alertname"] = str(facts.get("rule", ""))
    return {name: value for name, value in found.items() if value}


def annotations_of(facts: Facts, template: ReceiverTemplate) -> dict[str, str]:
    annotations = {
        "summary": template.render("summary", facts)[:_MAX_ANNOTATION],
        "description": template.render("description", facts)[:_MAX_ANNOTATION],
        "fingerprint": str(facts.get("fingerprint", "")),
        **cause_fields(facts),
    }
    logs = log_excerpt(facts.get("context"))
    if logs:
        annotations["logs"] = logs
    return {name: value for name, value in annotations.items() if value}


def log_excerpt(context: Any) -> str:
    """The enriched logs' last lines, within one annotation's bound."""
    if not isinstance(context, dict):
        return ""
    parts = [
        f"{lines.one_line(log.get('container', '?'))}:\n"
        + "\n".join(without_controls(str(line)) for line in log.get("lines", []))
        for log in context.get("logs", [])
        if isinstance(log, dict)
    ]
    text = "\n".join(parts)
    return text if len(text) <= _MAX_ANNOTATION else "…" + text[-_MAX_ANNOTATION + 1 :]


def ended(alert: Alert, facts: Facts) -> Alert:
    """``alert`` (as it was sent firing) with ``endsAt``: when its end was observed."""
    return {**alert, "endsAt": facts.get("observed_at") or now_rfc3339()}


def now_rfc3339() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")
