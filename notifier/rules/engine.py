"""The rules stage: transitions in, notifications out.

``RulesEngine.process`` evaluates one transition against the current
ruleset, quiets what inhibitions and silences say, and offers each match
(``rules/admissions.py``): folded into its rule's open incident about the
object, or through noise control, rendered if it is to be sent now; the
incidents a transition ends are told (``rules/resolutions.py``). ``tick``
renders what has come due: ``for:`` timers, escalations, reminders, flapping
that ended, incidents recovered for their window (``rules/timing/timekeeper.py``)
and group digests.
The ruleset is read through a callable on every call, so a reload takes
effect at the next transition while groups already open keep the rule they
were opened with. Members a group holds are also handed to a ``Holding``
(``rules/timing/holding.py``), forgotten once their release is submitted
(``forget``), and offered again at start (``restore``).

Thread-safe: workers call ``process`` concurrently, one loop calls ``tick``
(every second, or at ``next_due()``). No I/O, no sleeping; the clock is
injected and every call takes an optional ``now``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from notifier.notifications import Notification
from notifier.origin import Origin
from notifier.rules.admissions import Admissions
from notifier.rules.counting import count_evaluation
from notifier.rules.decisions import Decision
from notifier.rules.facts.contexts import held_context, single_context
from notifier.rules.incidents.folding import FoldedEnds, Folding
from notifier.rules.incidents.resolving import Firings, Resolver
from notifier.rules.matched import Matched, incident_context
from notifier.rules.matching.probing import (
    EvalContext,
    NamespaceLabels,
    OwnerLookup,
    Probe,
    default_owner_of,
    no_namespace_labels,
    safely,
)
from notifier.rules.quieting import NO_SILENCES, Silences, inhibit, silence
from notifier.rules.resolutions import resolution
from notifier.rules.ruleset import CompiledRule, Evaluation, Ruleset
from notifier.rules.suppression.inhibitions import Inhibitor
from notifier.rules.timing.clock_telling import tell_again, tell_flaps
from notifier.rules.timing.held_back import OpenGroup, PendingTimer, Shown, pending_page
from notifier.rules.timing.holding import Holding, NoHolding, Released, joined
from notifier.rules.timing.stays import StayStore
from notifier.rules.timing.timekeeper import TimeKeeper
from notifier.rules.timing.timers import FOR_STEP, Timer, TimerStore
from notifier.transitions.model import Transition

Clock = Callable[[], float]
log = logging.getLogger("notifier.rules")


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
        silences: Silences | None = None,
        timers: TimerStore | None = None,
        stays: StayStore | None = None,
        folded_ends: FoldedEnds | None = None,
    ) -> None:
        self._rulesets = rulesets
        self._clock = clock
        self._namespace_labels = namespace_labels
        self._owner_of = owner_of
        resolver = Resolver(firings)
        self._folding = Folding(resolver, folded_ends)
        self._inhibitor = Inhibitor()
        self._silences = silences or NO_SILENCES
        self._time = TimeKeeper(timers, resolver, stays)
        self._admissions = Admissions(holding or NoHolding(), resolver, self._folding, self._time)

    def process(self, transition: Transition, now: float | None = None) -> list[Notification]:
        """Notifications to send now for ``transition`` (often none)."""
        return self.decide(transition, now).notifications

    def decide(self, transition: Transition, now: float | None = None) -> Decision:
        """What the rules made of ``transition``: what to send now, and why not the rest."""
        now = self._clock() if now is None else now
        ruleset = self._rulesets()
        context = EvalContext(now, self._namespace_labels, self._owner_of)
        evaluation = ruleset.evaluate(transition, context)
        count_evaluation(evaluation)
        decision = Decision.of(evaluation)
        followed = self._time.follow(transition, ruleset, evaluation, decision, now)
        if followed.routes != evaluation.routes:
            evaluation = replace(evaluation, routes=followed.routes)
        evaluation = self._quieted(ruleset, Probe(transition, context), evaluation, decision)
        decision.notifications += tell_flaps(
            ruleset, followed.flaps, self._context, now, over=False
        )
        if not evaluation.routes and not followed.ended:
            return decision
        base = self._context(ruleset, transition)
        for firing in followed.ended:
            told = firing.transition or transition
            decision.notifications += resolution(
                ruleset, self._folding, firing, transition=told, base=base, now=now
            )
        for rule in evaluation.routes:
            if rule.sinks:
                pending = Matched(rule, transition, incident_context(base, rule, transition))
                decision.notifications += self._admissions.offer(pending, now, decision)
        return decision

    def _quieted(
        self, ruleset: Ruleset, probe: Probe, evaluation: Evaluation, decision: Decision
    ) -> Evaluation:
        if ruleset.inhibitions or evaluation.routes:
            evaluation = inhibit(self._inhibitor, ruleset.inhibitions, probe, evaluation, decision)
            evaluation = silence(self._silences, probe, evaluation, decision)
        return evaluation

    def tick(self, now: float | None = None, *, timers: bool = True) -> Released:
        """What has come due (timers: ``_fire_due``), digests; ``forget`` it once submitted."""
        now = self._clock() if now is None else now
        fired = self._fire_due(now) if timers else Released()
        return joined(fired, self._admissions.tick(now))

    def _fire_due(self, now: float) -> Released:
        """Timers come due (quieted as a transition would be now; a muted or flapping rule's
        not told), flapping that is over, incidents recovered for their window."""
        ruleset, told = self._rulesets(), Released()
        for timer, rule in self._time.due(ruleset, now):
            sent: list[Notification] = []
            with self._time.lock:
                if rule is not None and self._time.still_held(timer):
                    sent = self._tell_timer(ruleset, rule, timer, now)
            told = joined(told, Released(sent, timers=(timer,)))
        over = tell_flaps(ruleset, self._time.settled(now), self._context, now, over=True)
        for firing in self._time.recovered(ruleset, now):
            if firing.transition is not None:
                ended, base = firing.transition, self._context(ruleset, firing.transition)
                over += resolution(
                    ruleset, self._folding, firing, transition=ended, base=base, now=now
                )
        return joined(told, Released(over))

    def _tell_timer(
        self, ruleset: Ruleset, rule: CompiledRule, timer: Timer, now: float
    ) -> list[Notification]:
        """A ``for:`` come due (through noise control), an escalation step or a reminder."""
        transition = replace(timer.transition, observed_at=now)
        decision = Decision(matched=(rule.name,))
        probe = Probe(transition, EvalContext(now, self._namespace_labels, self._owner_of))
        if not self._quieted(ruleset, probe, Evaluation((rule,)), decision).routes:
            return []
        base = held_context(self._context(ruleset, transition), timer.since, now)
        context = incident_context(base, rule, transition)
        if timer.step != FOR_STEP:
            return tell_again(rule, replace(timer, transition=transition), context, now)
        return self._admissions.offer(Matched(rule, transition, context), now, decision)

    def caught_up(self) -> None:
        """What changed while the process was down has been acted on: timers may fire."""
        self._time.open = True

    def forget(self, released: Released) -> None:
        """``released`` was submitted: its held members need no durable copy any more."""
        self._admissions.forget(released.tokens)
        if released.timers:
            self._time.fired(released.timers)

    def restore(self) -> Released:
        """Offer again what a previous process held, into groups timed from when it was held.

        Marked ``catch_up``; a member whose rule is gone (or no longer sends) is
        forgotten. Call once at start, before anything else is offered.
        """
        self._time.open = False
        held = self._admissions.held()
        self._admissions.count_tokens_after(held)
        ruleset, restored = self._rulesets(), Released()
        for member in held:
            rule = next((r for r in ruleset.rules if r.name == member.rule and r.sinks), None)
            if rule is None:
                log.warning("held member of rule %r dropped: no such rule now", member.rule)
                restored = joined(restored, Released(tokens=(member.token,)))
                continue
            transition = replace(member.transition, origin=Origin.CATCH_UP)
            context = incident_context(self._context(ruleset, transition), rule, transition)
            pending = Matched(rule, transition, context)
            restored = joined(restored, self._admissions.readmit(pending, member, self._clock()))
        if held:
            log.info("%d group members held before the restart are waiting again", len(held))
        return restored

    def next_due(self) -> float | None:
        timers = self._time.next_due(self._rulesets())
        dues = [due for due in (timers, self._admissions.next_due()) if due is not None]
        return min(dues, default=None)

    def pending(self, shown: Shown, offset: int, limit: int) -> tuple[list[PendingTimer], int]:
        """A page of the ``for:`` timers waiting now, and their count
        (``rules/timing/held_back.py``)."""
        return pending_page(self._time.pending(), self._rulesets().timed, shown, offset, limit)

    def open_groups(self) -> list[OpenGroup]:
        """The groups holding members now, read for the page."""
        return self._admissions.open_groups()

    def _context(self, ruleset: Ruleset, transition: Transition) -> dict[str, Any]:
        owner = safely(self._owner_of, transition.obj)
        return single_context(transition, cluster=ruleset.cluster_name, rule="", owner=owner)
