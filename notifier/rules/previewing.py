"""What ``rules test`` shows: the message each matched rule would render alone, and what
it would hand each of its sinks (``--explain``)."""

from __future__ import annotations

from notifier.notifications import Message, Notification
from notifier.rules.facts import resolution_context, single_context
from notifier.rules.group_keys import thread_for
from notifier.rules.library import Role, builtin_template
from notifier.rules.neutral_facts import neutral_facts
from notifier.rules.notifying import fingerprint, for_transition
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.templating.rendering import render_message
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


def preview_notifications(
    ruleset: Ruleset,
    transition: Transition,
    rule: CompiledRule,
    owner: tuple[str, str] | None,
    *,
    resolved: bool = False,
) -> list[Notification]:
    """What ``rule`` would hand each of its sinks for ``transition`` alone (``rules test``).

    With ``resolved``, its resolution instead: as if the states it reached had ended now.
    """
    base = single_context(transition, cluster=ruleset.cluster_name, rule="", owner=owner)
    context = {**base, "rule": rule.name, "fingerprint": fingerprint(rule.name, transition)}
    fired_at = transition.observed_at
    if resolved:
        told = frozenset(transition.reached & transition.new_states)
        context = resolution_context(context, told & rule.to if rule.to else told)
    message, _ = render_message(rule.template, builtin_template(Role.SINGLE), context, rule.forms)
    return for_transition(
        rule.name, rule.sinks, transition, message, transition.observed_at,
        status="resolved" if resolved else "firing", thread_key=thread_for(rule, context),
        closes_thread=rule.thread_by_object,
        facts=neutral_facts(rule, context, fired_at, None if resolved else transition),
    )  # fmt: skip
