"""Admissions: a rule's match told now, folded into an incident, held in a group or dropped.

A match (``Matched``) is *offered*: part of its rule's open incident about the
object, or its owner's (``rules/incidents/folding.py``), it is folded and told no more;
else noise control admits it (dedup, groups: ``rules/noise``). What tells or is
held opens or grows the rule's incident (``rules/incidents/resolving.py``) and times its
escalation and reminders (``rules/timing/timekeeper.py``); a member a group holds is
handed to the ``Holding`` under a token (``rules/timing/holding.py``) and offered
again after a restart (``readmit``). What noise control releases (one
transition, or a group's digest) is rendered into notifications.

Thread-safe as its parts are: noise control, the resolver and the time keeper
take their own locks; the token counter is an ``itertools.count``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from notifier.notifications import Notification
from notifier.rules import metrics
from notifier.rules.counting import count_message
from notifier.rules.decisions import Decision
from notifier.rules.facts.enriching import context_request
from notifier.rules.facts.folded import folded_facts
from notifier.rules.facts.group_keys import group_labels, thread_for
from notifier.rules.facts.neutral import neutral_facts
from notifier.rules.facts.notifying import dedup_key, for_transition
from notifier.rules.incidents.folding import Folding
from notifier.rules.incidents.resolving import Resolver
from notifier.rules.matched import Matched, render_digest
from notifier.rules.noise.control import Admission, NoiseControl
from notifier.rules.noise.grouping import Release
from notifier.rules.reasons import SuppressReason
from notifier.rules.timing.held_back import OpenGroup, groups_of
from notifier.rules.timing.holding import Held, Holding, Released
from notifier.rules.timing.timekeeper import TimeKeeper


class Admissions:
    def __init__(
        self, holding: Holding, resolver: Resolver, folding: Folding, time: TimeKeeper
    ) -> None:
        self._noise: NoiseControl[Matched] = NoiseControl()
        self._holding = holding
        self._resolver = resolver
        self._folding = folding
        self._time = time
        self._tokens = itertools.count(1)

    def offer(self, pending: Matched, now: float, decision: Decision) -> list[Notification]:
        """What ``pending`` tells now (often nothing: folded, held, suppressed: said in
        ``decision``)."""
        rule, token = pending.rule, next(self._tokens)
        if self._folds(pending, decision, now):
            return []
        admission = self._admit(pending, now, token)
        if admission.release is not None or admission.held:
            self._resolver.told(rule, pending.transition, now)
        if admission.held:
            self._holding.hold(Held(token, rule.name, pending.transition, now))
        if admission.suppressed is not None:
            metrics.count_suppressed(admission.suppressed)
            decision.suppressed.append((rule.name, admission.suppressed.value))
        return [] if admission.release is None else self._render(admission.release, now)

    def readmit(self, pending: Matched, member: Held, now: float) -> Released:
        """``member``, held before a restart, offered again into a group timed from when it
        was held; its token is done with unless a group holds it again."""
        admission = self._admit(pending, member.held_at, member.token)
        if admission.release is not None:  # the rule no longer groups: send it now
            return Released(self._render(admission.release, now), (member.token,))
        return Released() if admission.held else Released(tokens=(member.token,))

    def count_tokens_after(self, held: Iterable[Held]) -> None:
        """New tokens follow those of the members held before a restart."""
        self._tokens = itertools.count(max((m.token for m in held), default=0) + 1)

    def forget(self, tokens: tuple[int, ...]) -> None:
        """These members' release was submitted: no durable copy is needed any more."""
        if tokens:
            self._holding.forget(tokens)

    def held(self) -> list[Held]:
        return self._holding.held()

    def tick(self, now: float) -> Released:
        """The group digests come due by ``now``."""
        releases = self._noise.tick(now)
        notifications = [n for release in releases for n in self._render(release, now)]
        return Released(notifications, tuple(t for r in releases for t in r.tokens))

    def next_due(self) -> float | None:
        return self._noise.next_due()

    def open_groups(self) -> list[OpenGroup]:
        """The groups holding members now, read for the page."""
        return groups_of(self._noise.open_groups(), lambda item: item.transition)

    def _folds(self, pending: Matched, decision: Decision, now: float) -> bool:
        """Part of the rule's open incident (or its owner's: ``fold_into``): told no more."""
        reason = self._folding.folds(pending.rule, pending.transition, now)
        if reason is not None:
            metrics.count_suppressed(SuppressReason.INCIDENT)
            decision.suppressed.append((pending.rule.name, reason))
        return reason is not None

    def _admit(self, pending: Matched, now: float, token: int) -> Admission[Matched]:
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

    def _render(self, release: Release[Matched], now: float) -> list[Notification]:
        self._remember(release, now)
        if release.is_digest:
            return render_digest(release, now)
        item = release.items[0]
        count_message("single")
        context = context_request(item.rule.enrich, item.transition)
        facts = neutral_facts(item.rule, item.context, transition=item.transition)
        if item.rule.fold_into_owner:
            facts = folded_facts(facts, self._folding.objects(item.rule, item.transition))
        return for_transition(
            item.rule.name, item.rule.sinks, item.transition, facts, now,
            thread_key=thread_for(item.rule, item.context), context=context,
        )  # fmt: skip

    def _remember(self, release: Release[Matched], now: float) -> None:
        """What was told, for rules that escalate or remind."""
        for item in release.items:
            self._time.told(item.rule, item.transition, now)
