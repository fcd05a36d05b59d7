"""What a rule's notification is grouped and threaded by, from its message context.

``group_labels``: the values that tell a rule's groups apart (``group_by``).
``thread_for``: the Slack thread a rule's notification goes in. With
``thread_by: object`` one thread per object (the fingerprint); with
``thread_by: group`` one per group, keyed by the ``group_by`` labels that
belong to the object (``namespace``, ``owner``, ``label:...``), not those
that describe the change (``transition``, ``reason``), so a member's
resolution, which reached other states, finds its digest's thread.
"""

from __future__ import annotations

from typing import Any

from notifier.rules.noise.grouping import GroupLabels
from notifier.rules.ruleset import CompiledRule

_OF_THE_CHANGE = frozenset({"transition", "reason"})


def group_labels(group_by: tuple[str, ...], context: dict[str, Any]) -> GroupLabels:
    """The values that tell groups apart: (("namespace", "shop"), ("transition", "OOMKilled"))."""
    return tuple((label, _group_value(label, context)) for label in group_by)


def thread_for(rule: CompiledRule, context: dict[str, Any]) -> str | None:
    if rule.thread_by_object:
        return str(context["fingerprint"])
    if not rule.thread_by_group:
        return None
    kept = tuple(label for label in rule.noise.group_by if label not in _OF_THE_CHANGE)
    values = ",".join(f"{label}={value}" for label, value in group_labels(kept, context))
    return f"group:{rule.name}|{values}"


def _group_value(label: str, context: dict[str, Any]) -> str:
    if label == "transition":
        return ",".join(context["reached"])
    if label == "owner":
        owner = context["owner"]
        return f"{owner['kind']}/{owner['name']}" if owner else ""
    if label.startswith("label:"):
        return str(context["labels"].get(label.removeprefix("label:"), ""))
    return str(context[label])
