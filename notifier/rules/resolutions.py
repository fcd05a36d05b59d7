"""Resolutions: the end of an incident, as its rule tells it.

An incident is over (``rules/incidents/resolving.py``: recovered for its window, or its
object deleted); its rule tells one resolution if it still sends them, to the
rule's sinks and those its escalation reached. A ``fold_into: owner`` rule's
end waits for the owner's last object (``rules/incidents/folding.py``) and then says
every object in it (``rules/facts/folded.py``).
"""

from __future__ import annotations

from typing import Any

from notifier.notifications import Notification
from notifier.rules.counting import count_message
from notifier.rules.facts.contexts import resolution_context
from notifier.rules.facts.folded import folded_facts
from notifier.rules.facts.group_keys import thread_for
from notifier.rules.facts.neutral import neutral_facts
from notifier.rules.facts.notifying import for_transition
from notifier.rules.incidents.folding import Folding
from notifier.rules.incidents.resolving import Firing
from notifier.rules.matched import incident_context
from notifier.rules.ruleset import Ruleset
from notifier.transitions.model import Transition


def resolution(
    ruleset: Ruleset,
    folding: Folding,
    firing: Firing,
    *,
    transition: Transition,
    base: dict[str, Any],
    now: float,
) -> list[Notification]:
    """The end of ``firing``, told from ``transition`` (``base``: its context) if its rule
    still sends resolutions; nothing while the owner's other objects are in it."""
    rule = next((r for r in ruleset.rules if r.name == firing.rule), None)
    if rule is None or not rule.send_resolved or not rule.sinks:
        return []
    end = folding.ending(rule, firing)  # fold_into: owner: the last one's end
    if end is None:
        return []
    told = end.firing
    context = resolution_context(incident_context(base, rule, transition), told.states)
    count_message("resolved")
    sinks = tuple(dict.fromkeys((*rule.sinks, *told.escalated)))
    facts = neutral_facts(rule, context, fired_at=told.fired_at)
    if rule.fold_into_owner:
        facts = folded_facts(facts, end.objects)
    return for_transition(
        rule.name, sinks, transition, facts, now, status="resolved",
        thread_key=thread_for(rule, context), closes_thread=rule.thread_by_object,
    )  # fmt: skip
