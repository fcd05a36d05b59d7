"""The neutral facts a notification carries: what every receiver renders its body from."""

from __future__ import annotations

from typing import Any

from notifier.notifications import Facts
from notifier.rules.facts.contexts import plain_facts
from notifier.rules.ruleset import CompiledRule
from notifier.transitions.model import Transition


def neutral_facts(
    rule: CompiledRule,
    context: dict[str, Any],
    fired_at: float = 0.0,
    transition: Transition | None = None,
) -> Facts:
    """The neutral facts every receiver renders its body from."""
    told: frozenset[str] = frozenset(context.get("resolved_states", ()))
    if transition is not None:  # a firing: what send_resolved remembers (resolving.py)
        told = frozenset(transition.reached & transition.new_states)
        told = told & rule.to if rule.to else told
    return plain_facts(
        context, labels=rule.labels, send_resolved=rule.send_resolved, fired_at=fired_at,
        told=told,
    )  # fmt: skip
