"""Messages the rules' clock adds: flapping and its end, escalations, reminders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from notifier.notifications import Notification
from notifier.rules.counting import count_message
from notifier.rules.facts.contexts import ordered
from notifier.rules.facts.group_keys import thread_for
from notifier.rules.facts.neutral import neutral_facts
from notifier.rules.facts.notifying import fingerprint, for_transition
from notifier.rules.incidents.flapping import Flap
from notifier.rules.ruleset import CompiledRule, Ruleset
from notifier.rules.timing.timers import Timer
from notifier.templating.environment import format_duration
from notifier.transitions.model import Transition


def tell_flaps(
    ruleset: Ruleset,
    flaps: Sequence[Flap],
    context_of: Callable[[Ruleset, Transition], dict[str, Any]],
    now: float,
    *,
    over: bool,
) -> list[Notification]:
    """What to tell of ``flaps`` (begun, or ``over``), by the rules that still send."""
    told = []
    for flap in flaps:
        rule = next((r for r in ruleset.rules if r.name == flap.rule and r.sinks), None)
        if rule is not None:
            told += tell_flap(rule, flap, context_of(ruleset, flap.transition), now, over=over)
    return told


def tell_flap(
    rule: CompiledRule, flap: Flap, base: dict[str, Any], now: float, *, over: bool
) -> list[Notification]:
    """``base`` is the single context of ``flap.transition``, for no rule yet."""
    states = ", ".join(ordered(flap.wanted)) or "its states"
    within = format_duration(flap.within)
    text = (
        f"no longer flapping: {states} steady for {within}"
        if over
        else f"flapping: entered or left {states} {flap.changes} times within {within}"
    )
    prefix = f"[{base['cluster']}] " if base["cluster"] else ""
    context = {
        **base,
        "rule": rule.name,
        "fingerprint": fingerprint(rule.name, flap.transition),
        "status": "resolved" if over else "flapping",
        "resolved": over,
        "resolved_states": ordered(flap.wanted) if over else [],
        "transition": text,
        "summary": f"{prefix}{base['kind']} {base['key']}: {text}",
        "severity": "info" if over else base["severity"],
    }
    count_message("resolved" if over else "single")
    return for_transition(
        rule.name, rule.sinks, flap.transition, neutral_facts(rule, context), now,
        status="resolved" if over else "flapping", thread_key=thread_for(rule, context),
    )  # fmt: skip


def tell_again(
    rule: CompiledRule, timer: Timer, context: dict[str, Any], now: float
) -> list[Notification]:
    """An escalation step's or a reminder's message: the rule's, saying how long it has fired.

    ``context`` is the rule's context of the timer's transition, with ``held_context``."""
    escalation = timer.step > 0
    sinks = rule.escalate[timer.step - 1].sinks if escalation else rule.sinks
    variant = f"escalated-{timer.step}" if escalation else f"reminder-{timer.told}"
    count_message("single")
    return for_transition(
        rule.name, sinks, timer.transition, neutral_facts(rule, context), now, status=variant,
        thread_key=thread_for(rule, context),
    )  # fmt: skip
