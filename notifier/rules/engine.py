"""The rules stage: transitions in, notifications out.

``RulesEngine.process`` evaluates one transition against the current
ruleset, passes each match through noise control and renders what is to be
sent now; ``tick`` renders group digests that have come due. The ruleset is
read through a callable on every call (``RulesHolder.ruleset``), so a reload
takes effect at the next transition while groups already open keep the
rule they were opened with.

Thread-safe: workers call ``process`` concurrently, one loop calls ``tick``
(every second, or at ``next_due()``). No I/O, no sleeping; the clock is
injected and every call takes an optional ``now``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from notifier.notifications import Message, Notification
from notifier.rules import metrics
from notifier.rules.facts import digest_context, single_context
from notifier.rules.library import Role, builtin_template
from notifier.rules.noise import GroupLabels, NoiseControl, Release
from notifier.rules.notifying import dedup_key, for_digest, for_transition
from notifier.rules.probing import (
    EvalContext,
    NamespaceLabels,
    OwnerLookup,
    default_owner_of,
    no_namespace_labels,
    safely,
)
from notifier.rules.rendering import render_message
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.transitions.model import Transition

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class _Pending:
    """A matched transition on its way through noise control."""

    rule: CompiledRule
    transition: Transition
    context: dict[str, Any]


@dataclass(slots=True)
class Decision:
    """One transition's fate, for /debug/decisions and the logs."""

    matched: tuple[str, ...]  # rules that routed it
    muted: tuple[str, ...] = ()
    dropped_by: str | None = None
    notifications: list[Notification] = field(default_factory=list)
    suppressed: list[tuple[str, str]] = field(default_factory=list)  # (rule or "", reason)

    @classmethod
    def of(cls, evaluation: Evaluation) -> Decision:
        decision = cls(
            matched=tuple(rule.name for rule in evaluation.routes),
            muted=tuple(rule.name for rule in evaluation.muted),
            dropped_by=evaluation.dropped_by.name if evaluation.dropped_by else None,
        )
        if evaluation.suppressed is not None:
            decision.suppressed.append(("", evaluation.suppressed.value))
        return decision


class RulesEngine:
    def __init__(
        self,
        rulesets: Callable[[], Ruleset],
        *,
        clock: Clock = time.time,
        namespace_labels: NamespaceLabels = no_namespace_labels,
        owner_of: OwnerLookup = default_owner_of,
    ) -> None:
        self._rulesets = rulesets
        self._clock = clock
        self._namespace_labels = namespace_labels
        self._owner_of = owner_of
        self._noise: NoiseControl[_Pending] = NoiseControl()

    def process(self, transition: Transition, now: float | None = None) -> list[Notification]:
        """Notifications to send now for ``transition`` (often none)."""
        return self.decide(transition, now).notifications

    def decide(self, transition: Transition, now: float | None = None) -> Decision:
        """What the rules made of ``transition``: what to send now, and why not the rest."""
        now = self._clock() if now is None else now
        ruleset = self._rulesets()
        context = EvalContext(now, self._namespace_labels, self._owner_of)
        evaluation = ruleset.evaluate(transition, context)
        _count(evaluation)
        decision = Decision.of(evaluation)
        if not evaluation.routes:
            return decision
        owner = safely(self._owner_of, transition.obj)
        base = single_context(transition, cluster=ruleset.cluster_name, rule="", owner=owner)
        for rule in evaluation.routes:
            if rule.sinks:
                pending = _Pending(rule, transition, {**base, "rule": rule.name})
                decision.notifications.extend(self._offer(pending, now, decision))
        return decision

    def tick(self, now: float | None = None) -> list[Notification]:
        """Digests (and lone group members) whose time has come."""
        now = self._clock() if now is None else now
        return [n for release in self._noise.tick(now) for n in self._render(release, now)]

    def next_due(self) -> float | None:
        return self._noise.next_due()

    def _offer(self, pending: _Pending, now: float, decision: Decision) -> list[Notification]:
        rule = pending.rule
        admission = self._noise.offer(
            pending,
            rule=rule.name,
            policy=rule.noise,
            dedup_key=dedup_key(rule.name, pending.transition),
            group=group_labels(rule.noise.group_by, pending.context),
            now=now,
        )
        if admission.suppressed is not None:
            metrics.count_suppressed(admission.suppressed)
            decision.suppressed.append((rule.name, admission.suppressed.value))
        return [] if admission.release is None else self._render(admission.release, now)

    def _render(self, release: Release[_Pending], now: float) -> list[Notification]:
        if release.is_digest:
            return _render_digest(release, now)
        item = release.items[0]
        single = builtin_template(Role.SINGLE)
        message, failed = render_message(item.rule.template, single, item.context, item.rule.forms)
        _count_render(failed, "single")
        return for_transition(item.rule.name, item.rule.sinks, item.transition, message, now)


def _render_digest(release: Release[_Pending], now: float) -> list[Notification]:
    rule = release.items[0].rule
    context = digest_context(
        [item.context for item in release.items],
        total=release.total,
        cluster=release.items[0].context["cluster"],
        rule=rule.name,
        group=release.group or (),
    )
    digest = builtin_template(Role.DIGEST)
    message, failed = render_message(rule.digest_template, digest, context, rule.forms)
    _count_render(failed, "digest")
    return for_digest(
        rule.name,
        rule.sinks,
        members=[item.transition for item in release.items],
        group_text=context["group_text"],
        message=message,
        now=now,
    )


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


def group_labels(group_by: tuple[str, ...], context: dict[str, Any]) -> GroupLabels:
    """The values that tell groups apart: (("namespace", "shop"), ("transition", "OOMKilled"))."""
    return tuple((label, _group_value(label, context)) for label in group_by)


def _group_value(label: str, context: dict[str, Any]) -> str:
    if label == "transition":
        return ",".join(context["reached"])
    if label == "owner":
        owner = context["owner"]
        return f"{owner['kind']}/{owner['name']}" if owner else ""
    if label.startswith("label:"):
        return str(context["labels"].get(label.removeprefix("label:"), ""))
    return str(context[label])


def _count(evaluation: Evaluation) -> None:
    if evaluation.routes:
        metrics.EVALUATIONS.labels(outcome="matched").inc()
    elif evaluation.suppressed is not None:
        metrics.EVALUATIONS.labels(outcome="suppressed").inc()
        metrics.count_suppressed(evaluation.suppressed)
    else:
        metrics.EVALUATIONS.labels(outcome="unmatched").inc()


def _count_render(failed: list[str], form: str) -> None:
    for part in failed:
        metrics.RENDER_FAILURES.labels(part=part).inc()
    metrics.NOTIFICATIONS.labels(form=form).inc()
