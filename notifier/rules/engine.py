"""The rules stage: transitions in, notifications out.

``RulesEngine.process`` evaluates one transition against the current
ruleset, passes each match through noise control and renders what is to be
sent now; ``tick`` renders group digests that have come due. The ruleset is
read through a callable on every call (``RulesHolder.ruleset``), so a reload
takes effect at the next transition while groups already open keep the
rule they were opened with. Members a group holds are also handed to a
``Holding`` (``notifier.rules.holding``), forgotten once their release is
submitted (``forget``), and offered again at start (``restore``).

Thread-safe: workers call ``process`` concurrently, one loop calls ``tick``
(every second, or at ``next_due()``). No I/O, no sleeping; the clock is
injected and every call takes an optional ``now``.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from notifier.notifications import Facts, Message, Notification
from notifier.rules import metrics
from notifier.rules.decisions import Decision
from notifier.rules.enriching import context_request
from notifier.rules.facts import digest_context, plain_facts, resolution_context, single_context
from notifier.rules.group_keys import group_labels, thread_for
from notifier.rules.holding import Held, Holding, NoHolding, Released
from notifier.rules.inhibiting import Inhibitor
from notifier.rules.library import Role, builtin_template
from notifier.rules.noise import Admission, NoiseControl, Release
from notifier.rules.notifying import dedup_key, fingerprint, for_digest, for_transition
from notifier.rules.probing import (
    EvalContext,
    NamespaceLabels,
    OwnerLookup,
    Probe,
    default_owner_of,
    no_namespace_labels,
    safely,
)
from notifier.rules.quieting import inhibit, silence
from notifier.rules.resolving import Firing, Firings, Resolver
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.rules.silences import SilenceBook
from notifier.templating.rendering import render_message
from notifier.transitions.model import Origin, Transition

Clock = Callable[[], float]
log = logging.getLogger("notifier.rules")


@dataclass(frozen=True, slots=True)
class _Pending:
    """A matched transition on its way through noise control."""

    rule: CompiledRule
    transition: Transition
    context: dict[str, Any]


class RulesEngine:
    def __init__(
        self,
        rulesets: Callable[[], Ruleset],
        *,
        clock: Clock = time.time,
        namespace_labels: NamespaceLabels = no_namespace_labels,
        owner_of: OwnerLookup = default_owner_of,
        holding: Holding | None = None,
        firings: Firings | None = None,
        silences: SilenceBook | None = None,
    ) -> None:
        self._rulesets = rulesets
        self._clock = clock
        self._namespace_labels = namespace_labels
        self._owner_of = owner_of
        self._noise: NoiseControl[_Pending] = NoiseControl()
        self._holding = holding or NoHolding()
        self._resolver = Resolver(firings)
        self._inhibitor = Inhibitor()
        self._silences = silences or SilenceBook()
        self._tokens = itertools.count(1)

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
        if ruleset.inhibitions or evaluation.routes:
            probe = Probe(transition, context)
            evaluation = inhibit(self._inhibitor, ruleset.inhibitions, probe, evaluation, decision)
            evaluation = silence(self._silences, probe, evaluation, decision)
        ended = self._resolver.resolved(transition)
        if not evaluation.routes and not ended:
            return decision
        base = self._context(ruleset, transition)
        for firing in ended:
            told = self._resolution(ruleset, firing, transition, base, now)
            decision.notifications.extend(told)
        for rule in evaluation.routes:
            if rule.sinks:
                pending = _Pending(rule, transition, _for_rule(base, rule.name, transition))
                decision.notifications.extend(self._offer(pending, now, decision))
        return decision

    def _resolution(
        self,
        ruleset: Ruleset,
        firing: Firing,
        transition: Transition,
        base: dict[str, Any],
        now: float,
    ) -> list[Notification]:
        """The end of ``firing``, told by its rule if the rule still sends resolutions."""
        rule = next((r for r in ruleset.rules if r.name == firing.rule), None)
        if rule is None or not rule.send_resolved or not rule.sinks:
            return []
        context = resolution_context(_for_rule(base, rule.name, transition), firing.states)
        single = builtin_template(Role.SINGLE)
        message, failed = render_message(rule.template, single, context, rule.forms)
        _count_render(failed, "resolved")
        facts = _facts(rule, context, fired_at=firing.fired_at)
        return for_transition(
            rule.name, rule.sinks, transition, message, now, status="resolved",
            thread_key=thread_for(rule, context), closes_thread=rule.thread_by_object, facts=facts,
        )  # fmt: skip

    def tick(self, now: float | None = None) -> Released:
        """Digests (and lone group members) whose time has come; ``forget`` once submitted."""
        now = self._clock() if now is None else now
        releases = self._noise.tick(now)
        notifications = [n for release in releases for n in self._render(release, now)]
        return Released(notifications, tuple(t for r in releases for t in r.tokens))

    def forget(self, released: Released) -> None:
        """``released`` was submitted: its held members need no durable copy any more."""
        if released.tokens:
            self._holding.forget(released.tokens)

    def restore(self) -> Released:
        """Offer again what a previous process held, into groups timed from when it was held.

        Marked ``catch_up``; a member whose rule is gone (or no longer sends) is
        forgotten. Call once at start, before anything else is offered.
        """
        held = self._holding.held()
        self._tokens = itertools.count(max((m.token for m in held), default=0) + 1)
        ruleset, restored = self._rulesets(), Released()
        for member in held:
            rule = next((r for r in ruleset.rules if r.name == member.rule and r.sinks), None)
            if rule is None:
                log.warning("held member of rule %r dropped: no such rule now", member.rule)
                restored = _joined(restored, Released(tokens=(member.token,)))
                continue
            transition = replace(member.transition, origin=Origin.CATCH_UP)
            pending = _Pending(
                rule,
                transition,
                _for_rule(self._context(ruleset, transition), rule.name, transition),
            )
            restored = _joined(restored, self._readmit(pending, member))
        if held:
            log.info("%d group members held before the restart are waiting again", len(held))
        return restored

    def next_due(self) -> float | None:
        return self._noise.next_due()

    def _context(self, ruleset: Ruleset, transition: Transition) -> dict[str, Any]:
        owner = safely(self._owner_of, transition.obj)
        return single_context(transition, cluster=ruleset.cluster_name, rule="", owner=owner)

    def _offer(self, pending: _Pending, now: float, decision: Decision) -> list[Notification]:
        rule, token = pending.rule, next(self._tokens)
        admission = self._admit(pending, now, token)
        if admission.held:
            self._holding.hold(Held(token, rule.name, pending.transition, now))
        if admission.suppressed is not None:
            metrics.count_suppressed(admission.suppressed)
            decision.suppressed.append((rule.name, admission.suppressed.value))
        return [] if admission.release is None else self._render(admission.release, now)

    def _readmit(self, pending: _Pending, member: Held) -> Released:
        admission = self._admit(pending, member.held_at, member.token)
        if admission.release is not None:  # the rule no longer groups: send it now
            return Released(self._render(admission.release, self._clock()), (member.token,))
        return Released() if admission.held else Released(tokens=(member.token,))

    def _admit(self, pending: _Pending, now: float, token: int) -> Admission[_Pending]:
        rule = pending.rule
        return self._noise.offer(
            pending,
            rule=rule.name,
            policy=rule.noise,
            dedup_key=dedup_key(rule.name, pending.transition),
            group=group_labels(rule.noise.group_by, pending.context),
            now=now,
            token=token,
        )

    def _render(self, release: Release[_Pending], now: float) -> list[Notification]:
        if release.is_digest:
            self._remember(release, now)
            return _render_digest(release, now)
        item = release.items[0]
        single = builtin_template(Role.SINGLE)
        message, failed = render_message(item.rule.template, single, item.context, item.rule.forms)
        _count_render(failed, "single")
        self._remember(release, now)
        context = context_request(item.rule.enrich, item.transition)
        return for_transition(
            item.rule.name, item.rule.sinks, item.transition, message, now,
            thread_key=thread_for(item.rule, item.context), context=context,
            facts=_facts(item.rule, item.context, transition=item.transition),
        )  # fmt: skip

    def _remember(self, release: Release[_Pending], now: float) -> None:
        """What was told, for rules that send a resolution when it is over."""
        for item in release.items:
            if item.rule.send_resolved:
                self._resolver.fired(item.rule.name, item.transition, now, item.rule.to)


def _for_rule(base: dict[str, Any], rule: str, transition: Transition) -> dict[str, Any]:
    return {**base, "rule": rule, "fingerprint": fingerprint(rule, transition)}


def _joined(first: Released, second: Released) -> Released:
    return Released(first.notifications + second.notifications, first.tokens + second.tokens)


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
        thread_key=thread_for(rule, release.items[0].context),
        facts=_facts(rule, context),
    )


def _facts(
    rule: CompiledRule,
    context: dict[str, Any],
    fired_at: float = 0.0,
    transition: Transition | None = None,
) -> Facts | None:
    """The neutral facts, for rules with a sink that renders its own body."""
    if "facts" not in rule.forms:
        return None
    told: frozenset[str] = frozenset(context.get("resolved_states", ()))
    if transition is not None:  # a firing: what send_resolved remembers (resolving.py)
        told = frozenset(transition.reached & transition.new_states)
        told = told & rule.to if rule.to else told
    return plain_facts(
        context, labels=rule.labels, send_resolved=rule.send_resolved, fired_at=fired_at,
        told=told,
    )  # fmt: skip


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
    context = _for_rule(base, rule.name, transition)
    fired_at = transition.observed_at
    if resolved:
        told = frozenset(transition.reached & transition.new_states)
        context = resolution_context(context, told & rule.to if rule.to else told)
    message, _ = render_message(rule.template, builtin_template(Role.SINGLE), context, rule.forms)
    return for_transition(
        rule.name, rule.sinks, transition, message, transition.observed_at,
        status="resolved" if resolved else "firing", thread_key=thread_for(rule, context),
        closes_thread=rule.thread_by_object,
        facts=_facts(rule, context, fired_at, None if resolved else transition),
    )  # fmt: skip


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
