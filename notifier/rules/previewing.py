"""What ``rules test`` shows: the message each matched rule would render alone."""

from __future__ import annotations

from notifier.notifications import Message
from notifier.rules.facts import single_context
from notifier.rules.library import Role, builtin_template
from notifier.rules.rendering import render_message
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.transitions.model import Transition


def preview(
    ruleset: Ruleset, transition: Transition, evaluation: Evaluation, owner: tuple[str, str] | None
) -> list[tuple[CompiledRule, Message]]:
    """The message each matched rule would render alone, noise control aside (``rules test``)."""
    base = single_context(transition, cluster=ruleset.cluster_name, rule="", owner=owner)
    single = builtin_template(Role.SINGLE)
    return [
        (rule, render_message(rule.template, single, {**base, "rule": rule.name})[0])
        for rule in evaluation.routes
    ]
