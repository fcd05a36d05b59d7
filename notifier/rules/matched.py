"""A matched transition on its way through noise control, and the digest a release of several
becomes: one notification per sink, its facts the digest's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from notifier.notifications import Notification
from notifier.rules.counting import count_message
from notifier.rules.facts.contexts import digest_context
from notifier.rules.facts.group_keys import thread_for
from notifier.rules.facts.neutral import neutral_facts
from notifier.rules.facts.notifying import fingerprint, for_digest
from notifier.rules.incidents.folding import incident_fingerprint
from notifier.rules.noise.grouping import Release
from notifier.rules.ruleset import CompiledRule
from notifier.transitions.model import Transition


@dataclass(frozen=True, slots=True)
class Matched:
    """A matched transition on its way through noise control."""

    rule: CompiledRule
    transition: Transition
    context: dict[str, Any]


def rule_context(base: dict[str, Any], rule: str, transition: Transition) -> dict[str, Any]:
    return {**base, "rule": rule, "fingerprint": fingerprint(rule, transition)}


def incident_context(
    base: dict[str, Any], rule: CompiledRule, transition: Transition
) -> dict[str, Any]:
    """``base`` as ``rule`` tells it: its name, its incident's fingerprint (``fold_into``)."""
    return {**base, "rule": rule.name, "fingerprint": incident_fingerprint(rule, transition)}


def render_digest(release: Release[Matched], now: float) -> list[Notification]:
    rule = release.items[0].rule
    context = digest_context(
        [item.context for item in release.items],
        total=release.total,
        cluster=release.items[0].context["cluster"],
        rule=rule.name,
        group=release.group or (),
    )
    count_message("digest")
    return for_digest(
        rule.name,
        rule.sinks,
        members=[item.transition for item in release.items],
        group_text=context["group_text"],
        facts=neutral_facts(rule, context),
        now=now,
        thread_key=thread_for(rule, release.items[0].context),
    )
