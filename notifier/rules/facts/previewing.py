"""What ``rules test`` shows: the facts each matched rule would tell alone, and what it would
hand each of its sinks (``--explain``), for them to render their bodies from."""

from __future__ import annotations

from notifier.notifications import Facts, Notification
from notifier.rules.facts.contexts import resolution_context, single_context
from notifier.rules.facts.group_keys import thread_for
from notifier.rules.facts.neutral import neutral_facts
from notifier.rules.facts.notifying import fingerprint, for_transition
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.transitions.model import Transition


def preview(
    ruleset: Ruleset, transition: Transition, evaluation: Evaluation, owner: tuple[str, str] | None
) -> list[tuple[CompiledRule, Facts]]:
    """The facts each matched rule would tell alone, noise control aside (``rules test``)."""
    base = single_context(transition, cluster=ruleset.cluster_name, rule="", owner=owner)
    return [
        (rule, neutral_facts(rule, {**base, "rule": rule.name}, transition=transition))
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
    facts = neutral_facts(rule, context, fired_at, None if resolved else transition)
    return for_transition(
        rule.name, rule.sinks, transition, facts, transition.observed_at,
        status="resolved" if resolved else "firing", thread_key=thread_for(rule, context),
        closes_thread=rule.thread_by_object,
    )  # fmt: skip
